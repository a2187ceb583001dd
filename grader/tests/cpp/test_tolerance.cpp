// The correctness rule separates every correct float32 summation order from reduced-precision
// arithmetic and from a product missing one tile phase (docs/grading.md). Each product here is
// computed on the CPU in float32 with the order a real kernel uses.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "tilelab/dataset.hpp"
#include "tilelab/diagnose.hpp"
#include "tilelab/tolerance.hpp"

using namespace tilelab;

namespace {

float round_mantissa(float x, int keep_bits) {  // round to nearest even, keep_bits explicit bits
  uint32_t b;
  std::memcpy(&b, &x, 4);
  const int drop = 23 - keep_bits;
  const uint32_t half = 1u << (drop - 1), lsb = (b >> drop) & 1u;
  b = (b + half - 1 + lsb) & ~((1u << drop) - 1);
  std::memcpy(&x, &b, 4);
  return x;
}

using Order = std::function<float(const Matrix&, const Matrix&, int64_t, int64_t)>;

Matrix multiply(const Matrix& M, const Matrix& N, const Order& dot) {
  Matrix P(M.rows, N.cols);
  for (int64_t i = 0; i < M.rows; ++i)
    for (int64_t j = 0; j < N.cols; ++j) P.at(i, j) = dot(M, N, i, j);
  return P;
}

Order sequential(bool fma, int skip_phase = -1, int tile = 16, int keep_bits = 23) {
  return [=](const Matrix& M, const Matrix& N, int64_t i, int64_t j) {
    float acc = 0;
    for (int64_t k = 0; k < M.cols; ++k) {
      if (skip_phase >= 0 && k / tile == skip_phase) continue;
      float a = M.at(i, k), b = N.at(k, j);
      if (keep_bits < 23) a = round_mantissa(a, keep_bits), b = round_mantissa(b, keep_bits);
      acc = fma ? std::fma(a, b, acc) : acc + a * b;
    }
    return acc;
  };
}

Order k_split(int parts) {  // split-K: independent partial sums added at the end
  return [=](const Matrix& M, const Matrix& N, int64_t i, int64_t j) {
    std::vector<float> part(size_t(parts), 0.0f);
    for (int64_t k = 0; k < M.cols; ++k) part[size_t(k % parts)] = std::fma(M.at(i, k), N.at(k, j), part[size_t(k % parts)]);
    float acc = 0;
    for (float p : part) acc += p;
    return acc;
  };
}

Order reversed() {
  return [](const Matrix& M, const Matrix& N, int64_t i, int64_t j) {
    float acc = 0;
    for (int64_t k = M.cols - 1; k >= 0; --k) acc = std::fma(M.at(i, k), N.at(k, j), acc);
    return acc;
  };
}

struct Case {
  Dataset d;
  std::vector<double> absMN;
};

Case make(int64_t J, int64_t K, int64_t L, uint64_t seed, Distribution dist = Distribution::Normal) {
  DatasetSpec s;
  s.name = "t";
  s.shape = {J, K, L};
  s.seed = seed;
  s.distribution = dist;
  Case c{make_dataset(s), {}};
  c.absMN = product_f64(c.d.M, c.d.N, true);
  return c;
}

bool passes(const Case& c, const Order& o) {
  return check_product(multiply(c.d.M, c.d.N, o), c.d.P, c.absMN, c.d.spec.shape).pass;
}

const int64_t kSizes[][3] = {{1, 1, 1}, {1, 300, 1}, {16, 16, 16}, {17, 17, 17}, {33, 1, 40},
                             {64, 64, 64}, {100, 257, 31}, {129, 129, 129}, {48, 1024, 40}};

}  // namespace

TEST_CASE("every correct float32 summation order passes") {
  uint64_t seed = 1;
  for (const auto& sz : kSizes) {
    for (Distribution dist : {Distribution::Normal, Distribution::Uniform, Distribution::Integer}) {
      const Case c = make(sz[0], sz[1], sz[2], seed++, dist);
      CAPTURE(c.d.spec.shape.str());
      CHECK(passes(c, sequential(true)));
      CHECK(passes(c, sequential(false)));
      CHECK(passes(c, k_split(4)));
      CHECK(passes(c, k_split(32)));
      CHECK(passes(c, reversed()));
    }
  }
}

TEST_CASE("TF32 and BF16 inputs fail at every size") {
  uint64_t seed = 100;
  for (const auto& sz : kSizes) {
    const Case c = make(sz[0], sz[1], sz[2], seed++);
    CAPTURE(c.d.spec.shape.str());
    CHECK_FALSE(passes(c, sequential(true, -1, 16, 10)));  // TF32: 10 explicit mantissa bits
    CHECK_FALSE(passes(c, sequential(true, -1, 16, 7)));   // BF16: 7
  }
}

TEST_CASE("a product missing one tile phase fails") {
  uint64_t seed = 200;
  for (const auto& sz : kSizes) {
    const Case c = make(sz[0], sz[1], sz[2], seed++);
    CAPTURE(c.d.spec.shape.str());
    for (int tile : {8, 16, 32}) {
      const int phases = int((sz[1] + tile - 1) / tile);
      CHECK_FALSE(passes(c, sequential(true, 0, tile)));           // the first phase
      CHECK_FALSE(passes(c, sequential(true, phases - 1, tile)));  // the last, possibly partial
    }
  }
}

TEST_CASE("NaN and Inf never pass, even where the bound is loose") {
  const Case c = make(8, 8, 8, 7);
  Matrix P = multiply(c.d.M, c.d.N, sequential(true));
  REQUIRE(check_product(P, c.d.P, c.absMN, c.d.spec.shape).pass);
  P.at(3, 4) = std::numeric_limits<float>::quiet_NaN();
  auto r = check_product(P, c.d.P, c.absMN, c.d.spec.shape);
  CHECK_FALSE(r.pass);
  CHECK(r.not_finite == 1);
  REQUIRE(r.first_wrong.size() == 1);
  CHECK(r.first_wrong[0].row == 3);
  CHECK(r.first_wrong[0].col == 4);
  P.at(3, 4) = std::numeric_limits<float>::infinity();
  CHECK_FALSE(check_product(P, c.d.P, c.absMN, c.d.spec.shape).pass);
}

TEST_CASE("integer datasets are exact: one ulp off fails") {
  const Case c = make(32, 32, 32, 9, Distribution::Integer);
  Matrix P = multiply(c.d.M, c.d.N, sequential(true));
  REQUIRE(check_product(P, c.d.P, c.absMN, c.d.spec.shape).pass);
  P.at(5, 5) += 1.0f;  // an integer-valued error is far above c*sqrt(K)*u*|M||N|
  CHECK_FALSE(check_product(P, c.d.P, c.absMN, c.d.spec.shape).pass);
}

TEST_CASE("the report locates wrong rows, columns and tiles") {
  const Case c = make(40, 40, 40, 11);
  Matrix P = multiply(c.d.M, c.d.N, sequential(true));
  for (int64_t i = 32; i < 40; ++i)
    for (int64_t j = 0; j < 40; ++j) P.at(i, j) = std::numeric_limits<float>::quiet_NaN();
  const auto r = check_product(P, c.d.P, c.absMN, c.d.spec.shape, {}, 16);
  CHECK(r.wrong == 8 * 40);
  REQUIRE(r.wrong_rows.size() == 1);
  CHECK(r.wrong_rows[0] == std::pair<int64_t, int64_t>{32, 39});
  CHECK(r.wrong_tile_count == 3);  // tile row 2, tile columns 0..2
}

TEST_CASE("to_ranges collapses runs") {
  CHECK(to_ranges({1, 2, 3, 7, 9, 10}) == std::vector<std::pair<int64_t, int64_t>>{{1, 3}, {7, 7}, {9, 10}});
  CHECK(to_ranges({}).empty());
}

TEST_CASE("diagnosis names the likely bug") {
  const Case c = make(40, 40, 40, 13);
  const Shape& s = c.d.spec.shape;
  auto diag = [&](const Matrix& P) {
    return diagnose(c.d.M, c.d.N, P, c.d.P, check_product(P, c.d.P, c.absMN, s), s).code;
  };
  const Matrix good = multiply(c.d.M, c.d.N, sequential(true));
  CHECK(diag(good) == "");

  Matrix nothing = good;
  std::fill(nothing.data.begin(), nothing.data.end(), std::numeric_limits<float>::quiet_NaN());
  CHECK(diag(nothing) == "nothing-written");

  Matrix edge = good;  // a grid of 2 x 2 blocks of 16: rows and columns 32..39 never written
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 40; ++j)
      if (i >= 32 || j >= 32) edge.at(i, j) = std::numeric_limits<float>::quiet_NaN();
  CHECK(diag(edge) == "grid-too-small");

  Matrix t(40, 40);
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 40; ++j) t.at(i, j) = good.at(j, i);
  CHECK(diag(t) == "transposed");

  CHECK(diag(multiply(c.d.M, c.d.N, sequential(true, -1, 16, 10))) == "low-precision");
  CHECK(diag(multiply(c.d.M, c.d.N, sequential(true, 1, 16))) == "wrong-sum");

  Matrix zeros = good;
  std::fill(zeros.data.begin(), zeros.data.end(), 0.0f);
  CHECK(diag(zeros) == "all-zero");

  Matrix spill = good;  // 40 = 2.5 tiles: columns 40..47 of each row land on 0..7 of the next
  for (int64_t i = 1; i < 40; ++i)
    for (int64_t j = 0; j < 8; ++j) spill.at(i, j) = 0.0f;
  CHECK(diag(spill) == "unguarded-store");

  Matrix edge_tiles = good;  // only the last row of tiles wrong, the interior right
  for (int64_t i = 32; i < 40; ++i)
    for (int64_t j = 0; j < 40; ++j) edge_tiles.at(i, j) += 1.0f;
  CHECK(diag(edge_tiles) == "boundary");

  Matrix race = good;  // two interior tiles with stale values
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 16; j < 32; ++j) race.at(i, j) *= 0.5f;
  CHECK(diag(race) == "race");
}
