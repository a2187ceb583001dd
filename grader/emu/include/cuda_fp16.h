// The CPU emulator's <cuda_fp16.h>: __half and __half2 on IEEE binary16 (tilelab_emu_f16.h: the
// compiler's _Float16, or the same conversions in software where it has none, as clang 14 on x86-64;
// rounded to nearest even as CUDA's __float2half), with the conversions and arithmetic course code
// uses. Half arithmetic is done in float and rounded once, which is what a GPU's half instructions
// give for + - * and fma. CUDA's own header would redefine the vector types the emulator has.
#pragma once
#include "tilelab_emu.h"
#include "tilelab_emu_f16.h"

struct __half {
  tlemu::f16 v;
  __half() = default;
  __half(float f) : v(tlemu::f16_from(f)) {}
  __half(double f) : v(tlemu::f16_from(f)) {}
  __half(int i) : v(tlemu::f16_from(i)) {}
  operator float() const { return tlemu::f16_to_float(v); }
};
struct __half2 {
  __half x, y;
};
typedef __half half;
typedef __half2 half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half __int2half_rn(int i) { return __half(i); }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return {__half(a), __half(a)}; }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
inline __half __hneg(__half a) { return __half(-float(a)); }
inline __half __hfma(__half a, __half b, __half c) { return __half(::fmaf(float(a), float(b), float(c))); }
inline __half2 __hadd2(__half2 a, __half2 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
