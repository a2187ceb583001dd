// The correctness rule (derivation and measured margins: docs/grading.md).
//
// Element (i,j) passes when |P - Pref| <= c * sqrt(K) * u * (|M||N|)_ij + K * 2^-126,
// the whole product passes when, in addition,
//   ||P - Pref||_F / max(||Pref||_F, || |M||N| ||_F / sqrt(K)) <= max_rel_fro * (1 + small_p / sqrt(J L)).
// NaN and Inf never pass. Pref and |M||N| are float64 products computed through CBLAS.
// u is the unit roundoff of the arithmetic the stage asks for: float32 (2^-24, max_rel_fro 1e-5,
// small_p 0) everywhere but 07-tensor-cores, whose TF32 inputs keep 10 mantissa bits (2^-11,
// 1.5e-3, 16): the stage's `precision` in stage.toml picks the rule (ToleranceRule::of).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilelab/matrix.hpp"

namespace tilelab {

struct ToleranceRule {
  double c = 10.0;              // probabilistic-bound constant (Higham & Mary 2019, lambda)
  double u = 0x1p-24;           // unit roundoff: float32's, or TF32's 2^-11
  double max_rel_fro = 1e-5;    // catches uniformly reduced precision (TF32 under float32, BF16 under TF32)
  double small_p = 0;           // the Frobenius limit's allowance for a P of few elements (TF32)
  static constexpr double flush = 0x1p-126;      // a product flushed from the subnormal range
  double allowed(double abs_mn, int64_t K) const;
  double fro_limit(int64_t elements) const;
  // The rule of a stage's `precision`: "float32" or "tf32"; std::invalid_argument otherwise.
  static ToleranceRule of(const std::string& precision);
};

struct WrongElement {
  int64_t row = 0, col = 0;
  double expected = 0, actual = 0, allowed = 0;
};

// Where P was wrong, downsampled to at most kMaxCells x kMaxCells cells (docs/grading.md,
// `wrong_map`): cell (i, j) covers rows [i*cell_rows, (i+1)*cell_rows) and the columns likewise,
// and is '0' (every element right), '1' (some wrong) or '2' (some not finite: never written).
struct WrongMap {
  static constexpr int64_t kMaxCells = 64;
  int64_t cell_rows = 1, cell_cols = 1;
  std::vector<std::string> cells;  // one string per cell row
};

struct CheckReport {
  bool pass = false;
  int64_t checked = 0;
  int64_t wrong = 0;        // elements outside the bound (NaN/Inf included)
  int64_t not_finite = 0;   // NaN or Inf: NaN is what P held before the launch
  double max_abs_error = 0;
  double max_error_ratio = 0;  // max |P - Pref| / allowed over finite elements
  double rel_fro_error = 0;
  std::vector<WrongElement> first_wrong;        // the first few, in row-major order
  std::vector<std::pair<int64_t, int64_t>> wrong_rows;  // ranges [a, b] of rows with errors
  std::vector<std::pair<int64_t, int64_t>> wrong_cols;
  std::vector<std::pair<int64_t, int64_t>> wrong_tiles;  // (tile row, tile col), first few
  int64_t wrong_tile_count = 0;
  int tile = 16;
  ToleranceRule rule;  // the rule the check applied (diagnoses test alternatives with it)
  WrongMap wrong_map;  // empty (no cells) when nothing was wrong
  // A hidden dataset's comparison: what the student reads of it (the result, the hint, the runner's
  // output) gives where P is wrong and how, never a value -- neither P's, nor the reference's, nor
  // the inputs' or an error's size -- so the kernel cannot carry the hidden data (or anything else it
  // read) out through its own wrong results (docs/integrity.md). Set by the judge.
  bool values_withheld = false;
};

// Compares P (J x L, float32) with Pref against the bound scaled by absMN = |M||N|.
CheckReport check_product(const Matrix& P, const std::vector<double>& Pref,
                          const std::vector<double>& absMN, const Shape& shape,
                          const ToleranceRule& rule = {}, int tile = 16);

// Collapses sorted indices into inclusive ranges: {1,2,3,7} -> {[1,3],[7,7]}.
std::vector<std::pair<int64_t, int64_t>> to_ranges(const std::vector<int64_t>& sorted);

}  // namespace tilelab
