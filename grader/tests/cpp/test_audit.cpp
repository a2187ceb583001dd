// The timed calls' inputs (timed_inputs.hpp) and their audit (audit.hpp): the bits every worker and
// the judge must agree on, correct float32 (and TF32) products passing with a wide margin, and every
// way a timed call can hand back a product that is not its own failing, each by the check meant to
// catch it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "tilelab/audit.hpp"
#include "tilelab/timed_inputs.hpp"

using namespace tilelab;

namespace {

enum class Order { Fma, NoFma, Reversed, Pairwise, SplitK32 };

// P = M N in float32, summed as a kernel of that kind sums (the orders of test_tolerance.cpp's sweep).
Matrix product(const Matrix& M, const Matrix& N, Order order) {
  const int64_t J = M.rows, K = M.cols, L = N.cols;
  Matrix P(J, L);
  std::vector<float> t(static_cast<size_t>(K));
  for (int64_t i = 0; i < J; ++i)
    for (int64_t j = 0; j < L; ++j) {
      for (int64_t k = 0; k < K; ++k) t[size_t(k)] = M.data[size_t(i * K + k)] * N.data[size_t(k * L + j)];
      float acc = 0;
      switch (order) {
        case Order::Fma:
          for (int64_t k = 0; k < K; ++k) acc = std::fma(M.data[size_t(i * K + k)], N.data[size_t(k * L + j)], acc);
          break;
        case Order::NoFma:
          for (int64_t k = 0; k < K; ++k) acc += t[size_t(k)];
          break;
        case Order::Reversed:
          for (int64_t k = K; k-- > 0;) acc += t[size_t(k)];
          break;
        case Order::Pairwise: {
          std::vector<float> v = t;
          for (size_t w = 1; w < v.size(); w *= 2)
            for (size_t a = 0; a + w < v.size(); a += 2 * w) v[a] += v[a + w];
          acc = v.empty() ? 0.0f : v[0];
          break;
        }
        case Order::SplitK32: {
          float part[32] = {};
          for (int64_t k = 0; k < K; ++k) part[k % 32] += t[size_t(k)];
          for (float p : part) acc += p;
          break;
        }
      }
      P.data[size_t(i * L + j)] = acc;
    }
  return P;
}

float tf32(float v) {  // rounded to nearest TF32 (10 mantissa bits)
  uint32_t b;
  std::memcpy(&b, &v, 4);
  b = (b + 0x1000u) & ~0x1FFFu;
  std::memcpy(&v, &b, 4);
  return v;
}

Matrix timed_product(uint64_t seed, const Shape& s, Order order = Order::Fma, bool to_tf32 = false) {
  Matrix M, N;
  timed_operands(seed, s, M, N);
  if (to_tf32) {
    for (float& v : M.data) v = tf32(v);
    for (float& v : N.data) v = tf32(v);
  }
  return product(M, N, order);
}

const ToleranceRule kFloat32 = ToleranceRule::of("float32"), kTf32 = ToleranceRule::of("tf32");

}  // namespace

TEST_CASE("timed inputs: the bits every worker makes, exact floats k times 2^-23 from -1 to 1") {
  // Pinned: the judge and both backends' workers must make these exact bits from these seeds (a
  // change here changes what every worker makes: change them together).
  CHECK(timed_inputs::element(1, timed_inputs::kM, 0) == -8353241 * 0x1p-23f);
  CHECK(timed_inputs::element(1, timed_inputs::kN, 0) == -6707373 * 0x1p-23f);
  CHECK(timed_inputs::element(0xDEADBEEF, timed_inputs::kM, 4095) == -2634168 * 0x1p-23f);
  double sum = 0, sum2 = 0;
  std::set<float> distinct;
  for (uint64_t e = 0; e < 100000; ++e) {
    const float v = timed_inputs::element(42, timed_inputs::kN, e);
    const double k = double(v) * 0x1p23;
    REQUIRE(k == std::floor(k));  // an integer times 2^-23: exact, no rounding anywhere
    REQUIRE(v >= -1.0f);
    REQUIRE(v < 1.0f);
    sum += v, sum2 += double(v) * v;
    distinct.insert(v);
  }
  CHECK(std::fabs(sum / 1e5) < 0.01);           // zero-mean
  CHECK(sum2 / 1e5 == doctest::Approx(1.0 / 3).epsilon(0.02));  // uniform on [-1, 1)
  CHECK(distinct.size() > 99000);
  // Another seed, or the other operand, shares nothing: no element of one is found in the other.
  CHECK(timed_inputs::element(42, timed_inputs::kM, 7) != timed_inputs::element(42, timed_inputs::kN, 7));
  CHECK(timed_inputs::element(43, timed_inputs::kN, 7) != timed_inputs::element(42, timed_inputs::kN, 7));
}

TEST_CASE("audit: correct float32 products pass, in every summation order, with a wide margin") {
  for (const Shape s : {Shape{1, 1, 1}, Shape{17, 17, 17}, Shape{64, 300, 48}, Shape{3, 1000, 5}, Shape{129, 1, 257},
                        Shape{2, 2049, 3}}) {
    for (Order o : {Order::Fma, Order::NoFma, Order::Reversed, Order::Pairwise, Order::SplitK32}) {
      CAPTURE(s.str());
      CAPTURE(int(o));
      const Matrix P = timed_product(7 + uint64_t(s.K), s, o);
      for (uint64_t challenge : {1ull, 99ull, 0xFEEDull}) {
        const TimedAudit a = audit_timed_call(P, 7 + uint64_t(s.K), s, kFloat32, 16, challenge);
        CHECK(a.pass);
        CHECK(a.freivalds_ratio < 0.05);  // a correct product uses a few percent of the bound at most (K = 1)
        CHECK(a.rows.max_error_ratio < 0.5);
        CHECK(a.sampled.size() == size_t(std::min<int64_t>(s.J, 4)));
      }
    }
  }
}

TEST_CASE("audit: a product of other inputs fails every row, by a factor that grows as K shrinks") {
  // What a cached, stale or derived P is: the product of other inputs (another seed), or this
  // product's rows and columns reordered, or scaled.
  struct Case {
    Shape s;
    double min_ratio;  // sqrt(2) / (lambda c u K), halved for the spread of a few rows
  };
  for (const Case& c : {Case{{17, 17, 17}, 5000}, Case{{64, 300, 48}, 300}, Case{{16, 2048, 16}, 40}}) {
    CAPTURE(c.s.str());
    const Matrix other = timed_product(1, c.s);
    const TimedAudit stale = audit_timed_call(other, 2, c.s, kFloat32, 16, 5);
    CHECK_FALSE(stale.pass);
    CHECK(stale.freivalds_failed == c.s.J);  // every row
    CHECK(stale.freivalds_ratio > c.min_ratio);
    CHECK_FALSE(stale.rows.pass);

    Matrix own = timed_product(2, c.s), swapped = own, scaled = own;
    for (int64_t j = 0; j < c.s.L; ++j) std::swap(swapped.data[size_t(j)], swapped.data[size_t(c.s.L + j)]);
    for (float& v : scaled.data) v *= 1.5f;
    CHECK(audit_timed_call(own, 2, c.s, kFloat32, 16, 5).pass);
    const TimedAudit sw = audit_timed_call(swapped, 2, c.s, kFloat32, 16, 5);
    CHECK_FALSE(sw.pass);
    CHECK(sw.freivalds_failed == 2);  // rows 0 and 1, whichever rows were sampled
    CHECK_FALSE(audit_timed_call(scaled, 2, c.s, kFloat32, 16, 5).pass);
  }
}

TEST_CASE("audit: one wrong element fails the Freivalds test of its row, and NaN fails") {
  const Shape s{64, 300, 48};
  Matrix P = timed_product(3, s);
  const TimedAudit ok = audit_timed_call(P, 3, s, kFloat32, 16, 11);
  REQUIRE(ok.pass);
  // A row the sampled rows do not hold, off by a typical element's size (sqrt(K) / 3).
  int64_t row = 0;
  while (std::count(ok.sampled.begin(), ok.sampled.end(), row)) ++row;
  P.data[size_t(row * s.L + 5)] += 5.0f;
  const TimedAudit bad = audit_timed_call(P, 3, s, kFloat32, 16, 11);
  CHECK_FALSE(bad.pass);
  CHECK(bad.freivalds_failed == 1);
  CHECK(bad.rows.pass);  // the sampled rows alone would have missed it
  P.data[size_t(row * s.L + 5)] = NAN;
  const TimedAudit nan = audit_timed_call(P, 3, s, kFloat32, 16, 11);
  CHECK_FALSE(nan.pass);
  CHECK_FALSE(nan.finite);
}

TEST_CASE("audit: TF32 on a float32 stage fails the Frobenius check of the sampled rows, the TF32 rule passes it") {
  const Shape s{64, 512, 64};
  const Matrix low = timed_product(4, s, Order::Fma, true);
  const TimedAudit a = audit_timed_call(low, 4, s, kFloat32, 16, 3);
  CHECK_FALSE(a.pass);
  CHECK(a.freivalds_failed == 0);  // inside the element-wise allowance, as on the correctness check
  CHECK(a.rows.rel_fro_error > 3 * kFloat32.fro_limit(a.rows.checked));
  const TimedAudit t = audit_timed_call(low, 4, s, kTf32, 16, 3);
  CHECK(t.pass);
  // On the TF32 stage a product of other inputs is caught by the sampled rows (the element-wise
  // allowance of u = 2^-11 is wider than a wrong product at this K).
  const TimedAudit stale = audit_timed_call(timed_product(5, s, Order::Fma, true), 4, s, kTf32, 16, 3);
  CHECK_FALSE(stale.pass);
  CHECK_FALSE(stale.rows.pass);
  CHECK(stale.rows.rel_fro_error > 100 * kTf32.fro_limit(stale.rows.checked));
}

TEST_CASE("audit: the choices of the judge come from the challenge alone, and the sampled rows are distinct") {
  const Shape s{100, 8, 9};
  const Matrix P = timed_product(6, s);
  std::set<std::vector<int64_t>> seen;
  for (uint64_t c = 0; c < 20; ++c) {
    const TimedAudit a = audit_timed_call(P, 6, s, kFloat32, 16, c);
    CHECK(a.sampled == audit_timed_call(P, 6, s, kFloat32, 16, c).sampled);
    CHECK(std::set<int64_t>(a.sampled.begin(), a.sampled.end()).size() == 4);
    seen.insert(a.sampled);
  }
  CHECK(seen.size() > 15);
}
