#include "tilelab/audit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "tilelab/timed_inputs.hpp"

namespace tilelab {
namespace {

using timed_inputs::kM;
using timed_inputs::kN;
using timed_inputs::mix64;
using timed_inputs::stream;
using timed_inputs::value;

// Higham's gamma_n for float64 (unit roundoff 2^-53): the worst case of an n-term sum.
double gamma64(int64_t n) {
  const double nu = double(n) * 0x1p-53;
  return nu / (1 - nu);
}

// Runs part(p) for p in [0, parts) on that many threads, the caller's included.
template <class F>
void in_parallel(size_t parts, F part) {
  std::vector<std::thread> others;
  for (size_t p = 1; p < parts; ++p) others.emplace_back(part, p);
  part(0);
  for (auto& t : others) t.join();
}

size_t parts_for(int64_t work) {
  return std::clamp<size_t>(size_t(std::max<int64_t>(work, 0) >> 18), 1,
                            std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

void timed_operands(uint64_t seed, const Shape& s, Matrix& M, Matrix& N) {
  M = Matrix(s.J, s.K);
  N = Matrix(s.K, s.L);
  const uint64_t km = stream(seed, kM), kn = stream(seed, kN);
  for (size_t e = 0; e < M.data.size(); ++e) M.data[e] = value(km, e);
  for (size_t e = 0; e < N.data.size(); ++e) N.data[e] = value(kn, e);
}

TimedAudit audit_timed_call(const Matrix& P, uint64_t seed, const Shape& s, const ToleranceRule& rule, int tile,
                            uint64_t challenge, int sampled_rows, double lambda) {
  const int64_t J = s.J, K = s.K, L = s.L;
  if (P.rows != J || P.cols != L) throw std::logic_error("audit_timed_call: P has the wrong shape");
  TimedAudit a;
  const uint64_t km = stream(seed, kM), kn = stream(seed, kN);

  // The judge's choices, from `challenge` alone: x's signs and the rows checked exactly.
  std::vector<double> x(static_cast<size_t>(L));
  for (int64_t j = 0; j < L; ++j) x[size_t(j)] = (mix64(challenge ^ mix64(2 * uint64_t(j))) >> 63) ? 1.0 : -1.0;
  const int64_t S = std::min<int64_t>(J, std::max(sampled_rows, 0));
  {
    std::vector<int64_t> all(static_cast<size_t>(J));
    for (int64_t i = 0; i < J; ++i) all[size_t(i)] = i;
    for (int64_t t = 0; t < S; ++t)  // a partial Fisher-Yates: S distinct rows
      std::swap(all[size_t(t)], all[size_t(t + int64_t(mix64(challenge ^ mix64(2 * uint64_t(t) + 1)) % uint64_t(J - t)))]);
    a.sampled.assign(all.begin(), all.begin() + S);
    std::sort(a.sampled.begin(), a.sampled.end());
  }
  std::vector<float> Ms(static_cast<size_t>(S * K));  // the sampled rows of M
  for (int64_t t = 0; t < S; ++t)
    for (int64_t k = 0; k < K; ++k) Ms[size_t(t * K + k)] = value(km, uint64_t(a.sampled[size_t(t)] * K + k));

  // N's pass, by column ranges: N x and |N| 1 (per row of N), ||N||_F^2, and the sampled rows'
  // float64 product and |M||N| (per column). Each column range adds its own partial sums of the
  // per-row quantities, added up after.
  const size_t nparts = parts_for(K * L * (1 + S));
  std::vector<std::vector<double>> y_part(nparts, std::vector<double>(size_t(K))), nu_part = y_part;
  std::vector<double> nf2_part(nparts, 0.0);
  std::vector<double> Pref(size_t(S * L), 0.0), absMN(size_t(S * L), 0.0);
  in_parallel(nparts, [&](size_t p) {
    const int64_t j0 = L * int64_t(p) / int64_t(nparts), j1 = L * int64_t(p + 1) / int64_t(nparts);
    std::vector<double>& y = y_part[p];
    std::vector<double>& nu = nu_part[p];
    double nf2 = 0;
    for (int64_t k = 0; k < K; ++k) {
      double yk = 0, nuk = 0;
      for (int64_t j = j0; j < j1; ++j) {
        const double n = value(kn, uint64_t(k * L + j));
        yk += n * x[size_t(j)];
        nuk += std::fabs(n);
        nf2 += n * n;
        for (int64_t t = 0; t < S; ++t) {
          const double m = Ms[size_t(t * K + k)];
          Pref[size_t(t * L + j)] += m * n;
          absMN[size_t(t * L + j)] += std::fabs(m) * std::fabs(n);
        }
      }
      y[size_t(k)] = yk;
      nu[size_t(k)] = nuk;
    }
    nf2_part[p] = nf2;
  });
  std::vector<double> y(static_cast<size_t>(K), 0.0), nu = y;
  double nf2 = 0;
  for (size_t p = 0; p < nparts; ++p) {
    for (int64_t k = 0; k < K; ++k) y[size_t(k)] += y_part[p][size_t(k)], nu[size_t(k)] += nu_part[p][size_t(k)];
    nf2 += nf2_part[p];
  }
  const double normN = std::sqrt(nf2);

  // M's and P's pass, by row ranges: row i's test.
  // The rule's element-wise allowance alpha * (|M||N|)_ij + phi (ToleranceRule::allowed).
  const double alpha = rule.c * std::sqrt(double(K)) * rule.u, phi = double(K) * ToleranceRule::flush;
  // The judge's own rounding: fl(N x) and fl(|N| 1) are off by gamma64(L) of |N| 1, the sums over k
  // by gamma64(K) of their terms' magnitudes, P x by gamma64(L) of |P| 1; the bound itself (norms,
  // square roots, products) is computed to within far less than the factor 1 + 1e-9 given to it.
  const double g_nx = 2 * (gamma64(L) + gamma64(K)) * (1 + gamma64(L + K)), g_px = gamma64(L) * (1 + gamma64(L));
  const size_t mparts = parts_for(J * (K + L));
  std::vector<int64_t> failed(mparts, 0);
  std::vector<double> worst(mparts, 0.0);
  std::vector<char> finite(mparts, 1);
  in_parallel(mparts, [&](size_t p) {
    const int64_t i0 = J * int64_t(p) / int64_t(mparts), i1 = J * int64_t(p + 1) / int64_t(mparts);
    for (int64_t i = i0; i < i1; ++i) {
      double z = 0, m2 = 0, beta = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double m = value(km, uint64_t(i * K + k));
        z += m * y[size_t(k)];
        m2 += m * m;
        beta += std::fabs(m) * nu[size_t(k)];
      }
      double px = 0, pabs = 0;
      bool ok = true;
      for (int64_t j = 0; j < L; ++j) {
        const double v = P.data[size_t(i * L + j)];
        ok = ok && std::isfinite(v);
        px += v * x[size_t(j)];
        pabs += std::fabs(v);
      }
      if (!ok) {
        finite[p] = 0;
        ++failed[p];
        continue;
      }
      const double bound = (lambda * (alpha * std::sqrt(m2) * normN + phi * std::sqrt(double(L))) +
                            g_nx * beta + g_px * pabs) * (1 + 1e-9);
      const double err = std::fabs(px - z);
      if (!(err <= bound)) ++failed[p];
      worst[p] = std::max(worst[p], bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0));
    }
  });
  for (size_t p = 0; p < mparts; ++p) {
    a.freivalds_failed += failed[p];
    a.freivalds_ratio = std::max(a.freivalds_ratio, worst[p]);
    a.finite = a.finite && finite[p];
  }

  // The sampled rows, with the stage's whole rule.
  Matrix Psub(S, L);
  for (int64_t t = 0; t < S; ++t)
    for (int64_t j = 0; j < L; ++j) Psub.data[size_t(t * L + j)] = P.data[size_t(a.sampled[size_t(t)] * L + j)];
  a.rows = check_product(Psub, Pref, absMN, Shape{S, K, L}, rule, tile);
  a.pass = a.finite && a.freivalds_failed == 0 && a.rows.pass;
  return a;
}

}  // namespace tilelab
