// tilelab_emu_f16.h: the software binary16 (used where the compiler has no _Float16, as clang 14 on
// x86-64) against known values, and against _Float16 where the compiler has it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "tilelab_emu_f16.h"

namespace {
uint16_t soft_bits(float f) { return tlemu::soft::f16_from(f).bits; }
float soft_float(uint16_t b) { return tlemu::soft::f16_to_float(tlemu::soft::f16{b}); }
}  // namespace

TEST_CASE("f16: software binary16 rounds to nearest even, saturates to infinity, keeps NaN and signed zero") {
  CHECK(soft_bits(1.0f) == 0x3C00);
  CHECK(soft_bits(-2.0f) == 0xC000);
  CHECK(soft_bits(65504.0f) == 0x7BFF);
  CHECK(soft_bits(65519.0f) == 0x7BFF);
  CHECK(soft_bits(65520.0f) == 0x7C00);             // half-way past the largest half: infinity
  CHECK(soft_bits(std::ldexp(1.0f, -24)) == 0x0001);  // the smallest subnormal
  CHECK(soft_bits(std::ldexp(1.0f, -25)) == 0x0000);  // half-way to it: to even, zero
  CHECK(soft_bits(std::ldexp(3.0f, -26)) == 0x0001);  // past half-way: up
  CHECK(soft_bits(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // tie between 1 and 1+2^-10: even (1)
  CHECK(soft_bits(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // tie: even (1+2^-9)
  CHECK(soft_bits(-0.0f) == 0x8000);
  CHECK((soft_bits(NAN) & 0x7E00) == 0x7E00);
  CHECK(std::isinf(soft_float(0xFC00)));
  // every half that is a number comes back from float unchanged
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7C00) == 0x7C00 && (b & 0x3FF)) continue;
    REQUIRE(soft_bits(soft_float(static_cast<uint16_t>(b))) == b);
  }
}

#if defined(__FLT16_MANT_DIG__)
TEST_CASE("f16: software binary16 gives _Float16's results (every half; floats at a stride)") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    _Float16 n;
    std::memcpy(&n, &h, 2);
    const float a = static_cast<float>(n), s = soft_float(h);
    REQUIRE(std::memcmp(&a, &s, 4) == 0);
  }
  for (uint64_t i = 0; i < (1ull << 32); i += 4099) {   // 1M floats, all exponents and both signs
    const uint32_t u = static_cast<uint32_t>(i);
    float f;
    std::memcpy(&f, &u, 4);
    const _Float16 n = static_cast<_Float16>(f);
    uint16_t nb;
    std::memcpy(&nb, &n, 2);
    REQUIRE(nb == soft_bits(f));
  }
}
#endif
