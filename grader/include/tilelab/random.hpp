// splitmix64: a counter-based generator. Element e of a dataset is a pure function of
// (seed, matrix, e), so data are reproducible on every machine and in any generation order.
// Device code calls it too (the timed calls' inputs, timed_inputs.hpp), hence TILELAB_HD.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TILELAB_HD __host__ __device__
#else
#define TILELAB_HD
#endif

namespace tilelab {

TILELAB_HD inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace tilelab
