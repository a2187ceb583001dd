// Row-major float32 matrices and the J x K x L shape of one product P = M N.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilelab {

// Bad input or usage (malformed dataset, bad option): the runner exits with kBadInput.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Shape {
  int64_t J = 0, K = 0, L = 0;  // M is J x K, N is K x L, P is J x L
  double flops() const { return 2.0 * double(J) * double(K) * double(L); }
  bool square() const { return J == K && K == L; }
  std::string str() const;
};

struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> data;  // row-major

  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), data(size_t(r * c)) {}
  size_t size() const { return data.size(); }
  float& at(int64_t i, int64_t j) { return data[size_t(i * cols + j)]; }
  float at(int64_t i, int64_t j) const { return data[size_t(i * cols + j)]; }
};

}  // namespace tilelab
