// The timed calls' inputs (docs/timing.md, "Still computing"; docs/integrity.md, "Timing the
// submission cannot touch"): before each timed call of the implementation under test the judge
// draws a seed, after the previous call returned, and the worker makes M and N from it on the
// device (no transfer of the matrices per call). Element e of a matrix is an integer hash of
// (seed, matrix, e) mapped exactly to a float, so the judge, which trusts nothing the worker says,
// makes the same bits on the host when it audits the call (audit.hpp).
//
// What it must guarantee: a submission cannot relate one call's inputs to an earlier call's more
// cheaply than by multiplying them. Every element is a fresh 64-bit hash of the judge's seed
// (splitmix64 finaliser of a counter), so no permutation, scaling or other structured map takes
// one call's M or N to another's; a P kept from an earlier call is simply another matrix.
//
// The values are k * 2^-23 for an integer k in [-2^23, 2^23): exact in float32 on any machine and
// any compiler (no libm, no rounding), zero-mean, in [-1, 1), and no product of two of them is
// subnormal (the smallest nonzero one is 2^-46), so a GPU's flush to zero changes nothing. They
// keep all 24 bits of a float32 mantissa where their magnitude allows: TF32 rounding (10 bits) of
// them is not exact, so a kernel that drops to TF32 only when timed still shows in the audit's
// Frobenius check on the stages that are float32.
//
// Shared, unchanged, by the judge (C++), the GPU worker (CUDA: TILELAB_HD is __host__ __device__
// there) and the emulator's worker; grader/tests/cpp/test_audit.cpp pins the bits.
#pragma once
#include <cstdint>

#include "tilelab/random.hpp"  // mix: the splitmix64 finaliser, host and device (TILELAB_HD)

namespace tilelab::timed_inputs {

enum Operand : uint64_t { kM = 0, kN = 1 };

TILELAB_HD inline uint64_t mix64(uint64_t x) { return mix(x); }

// The key of one operand's elements for one call (computed once per matrix, not per element).
TILELAB_HD inline uint64_t stream(uint64_t seed, Operand which) {
  return mix64(seed ^ (0xA0761D6478BD642Full * (uint64_t(which) + 1)));
}

// Element e (row-major) of the operand whose key is `key`: k * 2^-23, k = the hash's top 24 bits
// less 2^23.
TILELAB_HD inline float value(uint64_t key, uint64_t e) {
  const int32_t k = int32_t(mix64(key + e) >> 40) - (1 << 23);  // [-2^23, 2^23): exact as a float
  return float(k) * 0x1p-23f;                                    // times a power of two: exact
}

TILELAB_HD inline float element(uint64_t seed, Operand which, uint64_t e) { return value(stream(seed, which), e); }

}  // namespace tilelab::timed_inputs
