// The audit of a timed call (docs/timing.md, "Still computing"): the P a timed call left, for the
// inputs the judge's seed made (timed_inputs.hpp), checked without a float64 product of its own.
//
// Two checks, both on choices the judge makes after the call returned (`challenge`):
//
// 1. Freivalds, every row. With x a vector of random signs, row i passes when
//      |(P x)_i - (M (N x))_i|  <=  lambda * (alpha * ||M_i||_2 * ||N||_F + phi * sqrt(L))  +  (the judge's own rounding)
//    where alpha * (|M||N|)_ij + phi is the element-wise allowance of the stage's rule
//    (ToleranceRule::allowed: alpha = c sqrt(K) u, phi = K 2^-126). Why it holds for every P the
//    rule passes: with E = P - MN fixed before x is drawn and |E_ij| <= alpha (|M||N|)_ij + phi,
//    Hoeffding gives P(|(E x)_i| >= lambda * ||E_i||_2) <= 2 exp(-lambda^2 / 2); by Minkowski
//    ||E_i||_2 <= alpha * ||(|M||N|)_i||_2 + phi sqrt(L), and by Cauchy-Schwarz
//    (|M||N|)_ij <= ||M_i||_2 ||N_:j||_2, so ||(|M||N|)_i||_2 <= ||M_i||_2 ||N||_F. With lambda = 9
//    a correct P fails a row with probability below 2 e^-40.5 = 5e-18, a 5000-row P below 3e-14.
//    A P that is not this call's product (kept from an earlier call, or of other inputs) misses row
//    i by a normal variable of about sqrt(2 K L) sigma^2 (a sum of K L random terms; sigma^2 = 1/3
//    for these inputs) against lambda c u K sqrt(K L) sigma^2: a typical row by sqrt(2) / (lambda c
//    u K), 64x at K = 4096 for float32 and 10^4 at K = 17, so all but about 1% of its rows fail at
//    K = 4096 (a normal variable within 1/64 of its spread of 0), and one failed row fails the call.
//    The judge's float64 arithmetic is allowed its own worst case (gamma_n of 2^-53, Higham
//    3.1), negligible beside it. On the TF32 stage (u = 2^-11) the rule's element-wise allowance is
//    wider than a wrong product at large K, so there check 2 decides.
// 2. A few rows exactly: `sampled` rows drawn at random, their float64 product computed, checked
//    with the stage's whole rule (check_product: element-wise and Frobenius), as the correctness
//    check does (a block of S rows is a product of shape S x K x L, a shape the rule is validated
//    on). The Frobenius part is what catches uniformly reduced precision (TF32 on a float32 stage)
//    and, on the TF32 stage, a wrong product.
//
// The cost is linear in the inputs, O(J K + K L + J L + S K L), against J K L for the product.
#pragma once
#include <cstdint>
#include <vector>

#include "tilelab/matrix.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {

struct TimedAudit {
  bool pass = false;
  bool finite = true;            // no NaN or Inf in P
  int64_t freivalds_failed = 0;  // rows outside the Freivalds bound
  double freivalds_ratio = 0;    // max over rows of |(P x - M N x)_i| / bound_i (> 1 fails)
  std::vector<int64_t> sampled;  // the rows checked element by element
  CheckReport rows;              // their report (the stage's rule), shape S x K x L
};

// The timed inputs' M and N for `seed` (timed_inputs.hpp), as the worker makes them.
void timed_operands(uint64_t seed, const Shape& s, Matrix& M, Matrix& N);

// Audits P (J x L) as the product of the inputs made from `seed`; `challenge` is the judge's
// randomness, drawn after the call returned (the signs of x, the sampled rows).
TimedAudit audit_timed_call(const Matrix& P, uint64_t seed, const Shape& s, const ToleranceRule& rule, int tile,
                            uint64_t challenge, int sampled_rows = 4, double lambda = 9.0);

}  // namespace tilelab
