// tilelab CPU emulator: CUDA's device math with CUDA's overloads and semantics (crt/math_functions.h
// and .hpp, device_functions.h), for host code that runs the kernels. Every function returns by
// value with the type CUDA's overload returns; the overload sets are CUDA's, so a call that is
// ambiguous for nvcc (min(size_t, int)) is ambiguous here too. Included by tilelab_emu.h.
//
// Arithmetic is IEEE single or double as on a GPU; g++ on x86-64 does not contract a*b+c into an
// FMA (no FMA instruction without -mfma), while nvcc does by default: the same summation order can
// differ in the last bits between the backends, within the kit's correctness rule.
#ifndef TILELAB_EMU_MATH_H
#define TILELAB_EMU_MATH_H

#include <math.h>    // libstdc++'s wrapper: std's float overloads (sqrt(float), abs(float)) in ::, as CUDA has them
#include <stdlib.h>
#include <cmath>
#include <cstdint>
#include <cstring>

// ---- min and max: CUDA's 15 overloads each (crt/math_functions.hpp) plus the int one ----
#define TLEMU_MINMAX(R, A, B)                                              \
  inline R min(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
  inline R max(A a, B b) { return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); }
TLEMU_MINMAX(int, int, int)
TLEMU_MINMAX(unsigned int, unsigned int, unsigned int)
TLEMU_MINMAX(unsigned int, int, unsigned int)
TLEMU_MINMAX(unsigned int, unsigned int, int)
TLEMU_MINMAX(long, long, long)
TLEMU_MINMAX(unsigned long, unsigned long, unsigned long)
TLEMU_MINMAX(unsigned long, long, unsigned long)
TLEMU_MINMAX(unsigned long, unsigned long, long)
TLEMU_MINMAX(long long, long long, long long)
TLEMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
TLEMU_MINMAX(unsigned long long, long long, unsigned long long)
TLEMU_MINMAX(unsigned long long, unsigned long long, long long)
#undef TLEMU_MINMAX
// Floating point: fminf/fmaxf and fmin/fmax, so a NaN argument yields the other one, as on a GPU.
inline float min(float a, float b) { return ::fminf(a, b); }
inline float max(float a, float b) { return ::fmaxf(a, b); }
inline double min(double a, double b) { return ::fmin(a, b); }
inline double max(double a, double b) { return ::fmax(a, b); }
inline double min(float a, double b) { return ::fmin(double(a), b); }
inline double max(float a, double b) { return ::fmax(double(a), b); }
inline double min(double a, float b) { return ::fmin(a, double(b)); }
inline double max(double a, float b) { return ::fmax(a, double(b)); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- float intrinsics: _rn is IEEE round-to-nearest, which host float arithmetic is ----
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return ::fmaf(a, b, c); }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return ::sqrtf(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return ::fma(a, b, c); }
// The fast approximations: the exact function (the GPU's result differs by a few ulp at most).
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float a) { return ::expf(a); }
inline float __exp10f(float a) { return ::exp10f(a); }
inline float __logf(float a) { return ::logf(a); }
inline float __log2f(float a) { return ::log2f(a); }
inline float __sinf(float a) { return ::sinf(a); }
inline float __cosf(float a) { return ::cosf(a); }
inline float __tanf(float a) { return ::tanf(a); }
inline float __powf(float a, float b) { return ::powf(a, b); }
inline float rsqrtf(float a) { return 1.0f / ::sqrtf(a); }
inline double rsqrt(double a) { return 1.0 / ::sqrt(a); }
inline float __saturatef(float x) { return x >= 1.f ? 1.f : (x > 0.f ? x : 0.f); }  // NaN -> 0

// ---- conversions and bit casts ----
inline int __float2int_rn(float x) { return int(::nearbyintf(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline int __float2int_rd(float x) { return int(::floorf(x)); }
inline int __float2int_ru(float x) { return int(::ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return (unsigned int)(::nearbyintf(x)); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned int x) { return float(x); }
inline float __double2float_rn(double x) { return float(x); }
namespace tlemu {
template <class To, class From>
inline To bit_cast(From f) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of one size");
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}
}  // namespace tlemu
inline int __float_as_int(float x) { return tlemu::bit_cast<int>(x); }
inline unsigned int __float_as_uint(float x) { return tlemu::bit_cast<unsigned int>(x); }
inline float __int_as_float(int x) { return tlemu::bit_cast<float>(x); }
inline float __uint_as_float(unsigned int x) { return tlemu::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return tlemu::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return tlemu::bit_cast<double>(x); }

// ---- integer intrinsics ----
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mul24(int a, int b) {  // the low 32 bits of the product of the low 24 bits, sign-extended
  const long long a24 = int(unsigned(a) << 8) >> 8, b24 = int(unsigned(b) << 8) >> 8;
  return int((unsigned long long)(a24 * b24));
}
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return int(((long long)a * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) { return unsigned(((unsigned long long)a * b) >> 32); }

// ---- loads with a cache hint (__ldg: through the read-only cache): a plain load ----
#define TLEMU_LOAD(name) \
  template <class T>     \
  inline T name(const T* p) { return *p; }
TLEMU_LOAD(__ldg)
TLEMU_LOAD(__ldcg)
TLEMU_LOAD(__ldca)
TLEMU_LOAD(__ldcs)
TLEMU_LOAD(__ldlu)
TLEMU_LOAD(__ldcv)
#undef TLEMU_LOAD

#endif  // TILELAB_EMU_MATH_H
