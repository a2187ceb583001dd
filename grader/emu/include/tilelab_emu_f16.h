// IEEE binary16 storage for the emulator's __half (cuda_fp16.h) and the tensor cores' half fragments
// (runtime/wmma.cpp): the compiler's _Float16 where it has one (g++ 12 on x86-64 and arm64, clang 15+
// on x86-64, Apple clang on arm64: __FLT16_MANT_DIG__), else two bytes converted in software with the
// same results -- rounded to nearest even (as CUDA's __float2half), a NaN keeping its sign and the top
// of its payload, quieted (tests/test_f16.cpp compares the two where both exist; they agreed on all 2^32 floats, 65,536
// halves and every int in +-70,000 when checked exhaustively, 2026-11-28).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tlemu {
namespace soft {   // always defined, so that the kit's tests compare it with _Float16 where both exist
struct f16 {
  uint16_t bits;
};
// Correctly rounded (to nearest, ties to even) from a double; a float or an int is exact in one.
inline f16 f16_from(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  const uint16_t sign = static_cast<uint16_t>((u >> 48) & 0x8000u);
  const uint64_t mag = u & 0x7FFFFFFFFFFFFFFFull;
  if (mag >= 0x7FF0000000000000ull) {   // infinity, or a NaN: quieted, the payload's top 9 bits kept
    if (mag == 0x7FF0000000000000ull) return f16{static_cast<uint16_t>(sign | 0x7C00u)};
    return f16{static_cast<uint16_t>(sign | 0x7E00u | ((mag >> 42) & 0x1FFu))};
  }
  const double a = std::fabs(d);
  if (a >= 65520.0) return f16{static_cast<uint16_t>(sign | 0x7C00u)};   // past 65504's half-way: infinity
  if (a < 0x1p-14) {                     // subnormal (or zero): a whole number of 2^-24, rounded once
    const double n = std::nearbyint(a * 0x1p24);   // exact scaling; the default rounding is to nearest even
    return f16{static_cast<uint16_t>(sign | static_cast<uint16_t>(n))};   // 1024 is the smallest normal, right
  }
  int e;
  (void)std::frexp(a, &e);               // a = f * 2^e, f in [0.5, 1): the exponent is e - 1
  int exp = e - 1;
  double m = std::nearbyint(std::ldexp(a, 10 - exp));   // [1024, 2048], rounded to nearest even
  if (m >= 2048.0) {
    m = 1024.0;
    ++exp;
  }
  return f16{static_cast<uint16_t>(sign | ((exp + 15) << 10) | (static_cast<uint16_t>(m) - 1024u))};
}
inline f16 f16_from(float f) { return f16_from(static_cast<double>(f)); }
inline f16 f16_from(int i) { return f16_from(static_cast<double>(i)); }
inline float f16_to_float(f16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const int exp = (h.bits >> 10) & 0x1F;
  const uint32_t man = h.bits & 0x3FFu;
  float r;
  if (exp == 0x1F) {                     // infinity, or a NaN quieted with its payload
    uint32_t u = sign | 0x7F800000u | (man << 13) | (man ? 0x400000u : 0u);
    std::memcpy(&r, &u, 4);
    return r;
  }
  r = exp == 0 ? std::ldexp(static_cast<float>(man), -24) : std::ldexp(static_cast<float>(man | 0x400u), exp - 25);
  return sign ? -r : r;
}
}  // namespace soft
#if defined(__FLT16_MANT_DIG__) && !defined(TLEMU_SOFT_F16)
typedef _Float16 f16;
inline f16 f16_from(double d) { return static_cast<_Float16>(d); }
inline f16 f16_from(float f) { return static_cast<_Float16>(f); }
inline f16 f16_from(int i) { return static_cast<_Float16>(i); }
inline float f16_to_float(f16 h) { return static_cast<float>(h); }
#else
using soft::f16;
using soft::f16_from;
using soft::f16_to_float;
#endif
}  // namespace tlemu
