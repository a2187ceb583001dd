// Inputs of its own for every timed call (docs/timing.md, "Every timed call computes"): the rows
// of M and the columns of N permuted, so that P's rows and columns permute the same way and the
// judge knows each call's product without computing it again. Drawn from a seed the judge keeps to
// itself until the call; the worker applies it (shuffled()), the judge permutes its reference the
// same way (permutation()) for the calls it audits. A result cached from an earlier call, or work
// left undone, is then wrong on the calls that are checked.
#pragma once
#include <cstdint>
#include <numeric>
#include <vector>

#include "tilelab/matrix.hpp"

namespace tilelab::shuffle {

// A permutation of 0..n-1 (Fisher-Yates over splitmix64).
inline std::vector<int64_t> permutation(uint64_t seed, int64_t n) {
  std::vector<int64_t> p(size_t(n > 0 ? n : 0));
  std::iota(p.begin(), p.end(), int64_t(0));
  uint64_t x = seed;
  auto next = [&x] {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[size_t(i)], p[size_t(next() % uint64_t(i + 1))]);
  return p;
}
inline std::vector<int64_t> rows(uint64_t seed, int64_t n) { return permutation(seed, n); }
inline std::vector<int64_t> cols(uint64_t seed, int64_t n) { return permutation(seed ^ 0xC01D5EEDull, n); }

// M with its rows permuted (rows(seed)), N with its columns permuted (cols(seed)).
inline void shuffled(const Matrix& M, const Matrix& N, uint64_t seed, Matrix& M2, Matrix& N2) {
  const auto pr = rows(seed, M.rows), pc = cols(seed, N.cols);
  M2 = Matrix(M.rows, M.cols);
  N2 = Matrix(N.rows, N.cols);
  for (int64_t i = 0; i < M.rows; ++i)
    for (int64_t k = 0; k < M.cols; ++k) M2.at(i, k) = M.at(pr[size_t(i)], k);
  for (int64_t k = 0; k < N.rows; ++k)
    for (int64_t j = 0; j < N.cols; ++j) N2.at(k, j) = N.at(k, pc[size_t(j)]);
}

// P as the unshuffled inputs' product holds it: P2 came from the inputs shuffled with `seed`.
inline Matrix unshuffled(const Matrix& P2, uint64_t seed) {
  const auto pr = rows(seed, P2.rows), pc = cols(seed, P2.cols);
  Matrix P(P2.rows, P2.cols);
  for (int64_t i = 0; i < P2.rows; ++i)
    for (int64_t j = 0; j < P2.cols; ++j) P.at(pr[size_t(i)], pc[size_t(j)]) = P2.at(i, j);
  return P;
}

}  // namespace tilelab::shuffle
