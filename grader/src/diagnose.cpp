#include "tilelab/diagnose.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

#include "tilelab/dataset.hpp"

namespace tilelab {
namespace {

// Fraction of elements of P within the tolerance of an alternative product (float64).
double match_fraction(const Matrix& P, const std::vector<double>& alt, const std::vector<double>& scale,
                      int64_t K, const ToleranceRule& rule) {
  int64_t ok = 0;
  for (size_t e = 0; e < alt.size(); ++e)
    if (std::isfinite(P.data[e]) && std::fabs(P.data[e] - alt[e]) <= rule.allowed(scale[e], K)) ++ok;
  return alt.empty() ? 0.0 : double(ok) / double(alt.size());
}

std::string count(int64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// The first k0 columns of M and rows of N: the product a phase loop that stops at k0 computes.
std::pair<Matrix, Matrix> first_terms(const Matrix& M, const Matrix& N, int64_t k0) {
  Matrix Mk(M.rows, k0), Nk(k0, N.cols);
  for (int64_t i = 0; i < M.rows; ++i)
    for (int64_t k = 0; k < k0; ++k) Mk.at(i, k) = M.at(i, k);
  std::copy(N.data.begin(), N.data.begin() + k0 * N.cols, Nk.data.begin());
  return {Mk, Nk};
}

// The NaN the grader fills P with before a run: 0xFF bytes on the device (DeviceBuffer::poison),
// the default quiet NaN in host buffers. Any other NaN or Inf in P was stored by the code under
// test -- computed from a value read outside M and N (the emulator's guard zones hold a
// signalling NaN, which arithmetic quiets but keeps the payload of) or from a tile element that
// was never loaded.
bool unwritten(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b == 0xFFFFFFFFu || b == 0x7FC00000u;
}

// {r0, c0} when pred holds exactly on {i >= r0 or j >= c0} and that set is neither empty nor all
// of P: the last rows and columns, the elements a grid that stops short of P's edge never computes.
template <class Pred>
std::optional<std::pair<int64_t, int64_t>> trailing_edge(int64_t J, int64_t L, Pred pred) {
  int64_t r0 = J, c0 = L;
  for (int64_t i = J - 1; i >= 0; --i) {
    bool all = true;
    for (int64_t j = 0; j < L && all; ++j) all = pred(i, j);
    if (!all) break;
    r0 = i;
  }
  for (int64_t j = L - 1; j >= 0; --j) {
    bool all = true;
    for (int64_t i = 0; i < J && all; ++i) all = pred(i, j);
    if (!all) break;
    c0 = j;
  }
  if ((r0 == J && c0 == L) || r0 == 0 || c0 == 0) return std::nullopt;
  for (int64_t i = 0; i < J; ++i)
    for (int64_t j = 0; j < L; ++j)
      if (pred(i, j) != (i >= r0 || j >= c0)) return std::nullopt;
  return std::pair<int64_t, int64_t>{r0, c0};
}

std::string edge_text(int64_t J, int64_t L, int64_t r0, int64_t c0) {
  return "The last " + (r0 < J ? std::to_string(J - r0) + " rows" : std::string()) + (r0 < J && c0 < L ? " and " : "") +
         (c0 < L ? std::to_string(L - c0) + " columns" : std::string()) + " of P";
}

// What a kernel that converts its inputs to __half leaves in P: an input of magnitude 65520 or more
// rounds to Inf (65504 is half's largest value; between the two it rounds down to it), and each
// element of P whose row of M or column of N holds such an input becomes Inf or NaN; every other
// element stays finite. True when P's stored non-finite elements are exactly those (an input
// between 65504 and 65520 may go either way): other bugs that compute NaN on the same data (a
// fragment read from the wrong place) leave another pattern.
bool half_range_signature(const Matrix& M, const Matrix& N, const Matrix& P) {
  // Per row of M (per column of N): an input there rounds to Inf in half, or may.
  std::vector<char> row_inf(M.rows, 0), row_maybe(M.rows, 0), col_inf(N.cols, 0), col_maybe(N.cols, 0);
  const auto overflow = [](const Matrix& A, bool by_row, std::vector<char>& inf, std::vector<char>& maybe) {
    for (int64_t i = 0; i < A.rows; ++i)
      for (int64_t j = 0; j < A.cols; ++j) {
        const float a = std::fabs(A.at(i, j));
        const int64_t x = by_row ? i : j;
        inf[x] |= a >= 65520.0f;
        maybe[x] |= a > 65504.0f;
      }
  };
  overflow(M, true, row_inf, row_maybe);
  overflow(N, false, col_inf, col_maybe);
  bool any = false;
  for (int64_t i = 0; i < P.rows; ++i)
    for (int64_t j = 0; j < P.cols; ++j) {
      const float v = P.at(i, j);
      if (unwritten(v)) continue;
      const bool bad = !std::isfinite(v);
      if ((row_inf[i] || col_inf[j]) && !bad) return false;
      if (bad && !(row_maybe[i] || col_maybe[j])) return false;
      any |= bad;
    }
  return any;
}

Matrix transposed(const Matrix& A) {
  Matrix T(A.cols, A.rows);
  for (int64_t i = 0; i < A.rows; ++i)
    for (int64_t j = 0; j < A.cols; ++j) T.at(j, i) = A.at(i, j);
  return T;
}

}  // namespace

Diagnosis diagnose(const Matrix& M, const Matrix& N, const Matrix& P, const std::vector<double>& Pref,
                   const std::vector<double>& absMN, const CheckReport& r, const Shape& s) {
  if (r.pass) return {};
  const int64_t J = s.J, L = s.L;
  const bool tf32_rule = r.rule.u > ToleranceRule{}.u;  // a reduced-precision stage (07: TF32)
  int64_t stored_nan = 0;  // NaN or Inf that the code under test stored (not the grader's fill)
  for (float v : P.data) stored_nan += !std::isfinite(v) && !unwritten(v);
  if (r.not_finite == r.checked && stored_nan == 0)
    return {hints::kNothingWritten,
            "P was never written: it still holds the NaN the grader put there. Is the kernel "
            "launched, with a non-empty grid and at most 1024 threads per block? Check "
            "cudaGetLastError() after the launch."};

  if (r.not_finite > 0) {
    // The unwritten set is exactly {i >= r0 or j >= c0}: the grid stops short of P's edge.
    if (const auto edge = trailing_edge(J, L, [&](int64_t i, int64_t j) { return unwritten(P.at(i, j)); }))
      return {hints::kGridTooSmall,
              edge_text(J, L, edge->first, edge->second) + " were never written: the grid does not cover P. Compute the number of "
                  "blocks with a ceiling division, (size + BLOCK - 1) / BLOCK, in x for the "
                  "columns and in y for the rows."};
    if (stored_nan > 0 && tf32_rule && half_range_signature(M, N, P)) {
      float biggest = 0;
      for (const Matrix* A : {&M, &N})
        for (float v : A->data) biggest = std::max(biggest, std::fabs(v));
      return {hints::kHalfRange,
              count(stored_nan, "element") + " of P " + (stored_nan == 1 ? "is" : "are") +
                  " Inf or NaN although every input is finite: the inputs reach " +
                  (r.values_withheld ? std::string("values") : std::to_string(biggest) + ",") +
                  " past 65504, the largest half-precision value, so a kernel that converts them to __half "
                  "turns them into Inf. TF32 keeps float32's exponent: use wmma::precision::tf32 fragments "
                  "loaded from float (this stage's 'wide' datasets hold magnitudes from 2^-20 to 2^20)."};
    }
    if (stored_nan > 0)
      return {hints::kNanComputed,
              "P was written, but " + count(stored_nan, "element") + " of it " +
                  (stored_nan == 1 ? "is" : "are") +
                  " NaN or Inf that the kernel computed: its sums read values from outside M or N (past "
                  "the end of a row or of the matrix, where there is no data) or a __shared__ tile element "
                  "that was never loaded. Guard each tile load with its own row and column against the "
                  "size of M or N, and load 0 where it falls outside."};
    return {hints::kPartlyUnwritten,
            "Some elements of P were never written (they still hold NaN): threads returned early, "
            "or the store of P is guarded by the wrong condition."};
  }

  // All finite. Cheap alternatives first: transposed result, then swapped operands (small only).
  if (s.square() && J <= 1024) {
    const Matrix Mt = transposed(M), Nt = transposed(N);
    std::vector<double> PrefT(Pref.size());
    for (int64_t i = 0; i < J; ++i)
      for (int64_t j = 0; j < L; ++j) PrefT[size_t(j * L + i)] = Pref[size_t(i * L + j)];
    if (match_fraction(P, PrefT, absMN, s.K, r.rule) > 0.99)
      return {hints::kTransposed,
              "P holds the transpose of the product: row and column are swapped. Row comes from "
              "the y dimension (blockIdx.y * blockDim.y + threadIdx.y), Col from x."};
    if (match_fraction(P, product_f64(M, Nt), product_f64(M, Nt, true), s.K, r.rule) > 0.99)
      return {hints::kSwappedIndexN,
              "P = M times N-transposed: N is read as N[Col*Width + k]; the k-th element of "
              "column Col is N[k*Width + Col]."};
    if (match_fraction(P, product_f64(Mt, N), product_f64(Mt, N, true), s.K, r.rule) > 0.99)
      return {hints::kSwappedIndexM,
              "P = M-transposed times N: M is read as M[k*Width + Row]; the k-th element of "
              "row Row is M[Row*Width + k]."};
    if (match_fraction(P, product_f64(N, M), product_f64(N, M, true), s.K, r.rule) > 0.99)
      return {hints::kSwappedOperands,
              "P = N times M: the operands are swapped (in the kernel's loads, or in the order the "
              "launch passes them). P[Row][Col] is row Row of M times column Col of N: M's element "
              "k of the row is M[Row*K + k], N's element k of the column is N[k*L + Col]."};
  }

  bool all_zero = true;
  for (float v : P.data) all_zero = all_zero && v == 0.0f;
  if (all_zero)
    return {hints::kAllZero,
            "Every element of P is 0: the kernel stores its sum, but no term was ever added. Does "
            "the phase (or k) loop run at all? Check its bound, e.g. a rounded-down "
            "Width / TILE_WIDTH that is 0 for small sizes."};

  // The same edge, where P was set before the launch (cudaMemset(P, 0, ...) is common): the wrong
  // elements are exactly the last rows and columns, and all hold one value -- what was there
  // before, not a sum. A kernel wrong at the edge tiles computes sums that differ.
  const ToleranceRule& rule = r.rule;
  const auto wrong_at = [&](int64_t i, int64_t j) {
    const size_t e = size_t(i * L + j);
    return !(std::fabs(P.data[e] - Pref[e]) <= rule.allowed(absMN[e], s.K));
  };
  if (const auto edge = trailing_edge(J, L, wrong_at)) {
    const float first = P.at(J - 1, L - 1);
    bool one_value = true;
    for (int64_t i = 0; i < J && one_value; ++i)
      for (int64_t j = (i >= edge->first ? 0 : edge->second); j < L && one_value; ++j)
        one_value = std::memcmp(&P.data[size_t(i * L + j)], &first, sizeof first) == 0;
    if (one_value)
      return {hints::kGridTooSmall,
              edge_text(J, L, edge->first, edge->second) + " are wrong and all hold " +
                  (r.values_withheld ? std::string("one value") : std::to_string(first)) + ", as if no thread stored a sum there (P was set before the launch). Does the grid cover P -- "
                  "a ceiling division, (size + BLOCK - 1) / BLOCK, in x for the columns and in y for the rows -- "
                  "and do the threads of the last rows and columns store their sums?"};
  }

  // Out-of-range threads that store anyway write their sum (0, from zero-padded tiles) past the
  // end of their row, i.e. over the first columns of the next row.
  bool zeros_at_row_starts = r.wrong > 0;
  for (int64_t i = 0; i < J && zeros_at_row_starts; ++i)
    for (int64_t j = 0; j < L; ++j) {
      const size_t e = size_t(i * L + j);
      const bool bad = std::fabs(P.data[e] - Pref[e]) > rule.allowed(absMN[e], s.K);
      if (bad && (P.data[e] != 0.0f || j >= r.tile)) {
        zeros_at_row_starts = false;
        break;
      }
    }
  if (zeros_at_row_starts && L % r.tile != 0)
    return {hints::kUnguardedStore,
            "Elements at the start of some rows hold 0: threads whose Col lies outside P still "
            "stored their result, past the end of their row and into the next one. Guard the "
            "store: if (Row < rows && Col < columns)."};

  const double wrong_fraction = double(r.wrong) / double(r.checked);
  // Under the TF32 rule every element may pass its (looser) bound while the whole product is off by
  // more than TF32's inputs explain: a precision below TF32's 10 mantissa bits (bfloat16 has 7).
  if (tf32_rule && r.wrong == 0 && r.rel_fro_error < 1e-1)
    return {hints::kLowPrecision,
            "Every element is within the element-wise bound, but the relative error of the whole product" +
                (r.values_withheld ? std::string() : ", " + std::to_string(r.rel_fro_error) + ",") + " is above what TF32's 10-bit inputs give (limit " +
                std::to_string(r.rule.fro_limit(r.checked)) + "): the inputs are rounded to fewer bits than TF32 "
                "(bfloat16 keeps 7). Use wmma::precision::tf32 fragments loaded from float, or "
                "wmma::__float_to_tf32."};
  if (wrong_fraction > 0.5 && r.rel_fro_error < 1e-2)
    return {hints::kLowPrecision,
            "Almost every element is slightly off" +
                (r.values_withheld ? std::string() : " (relative error " + std::to_string(r.rel_fro_error) + ")") +
                ": the arithmetic is in reduced precision (TF32, half or bfloat16?). Accumulate in "
                "float and use only float32 inputs."};

  // The phase loop rounded down (K / TILE_WIDTH): P is the product of the first whole tiles' terms.
  // Tried for the stage's tile and the usual widths, on sizes where one more product is cheap.
  if (double(J) * double(s.K) * double(L) <= double(1 << 30)) {
    std::set<int64_t> tried;  // the stage's tile first: it names the tile when several give the same k0
    for (int64_t t : {int64_t(r.tile), int64_t(8), int64_t(16), int64_t(32)}) {
      const int64_t k0 = t > 0 ? s.K / t * t : 0;
      if (k0 == 0 || k0 == s.K || !tried.insert(k0).second) continue;
      const auto [Mk, Nk] = first_terms(M, N, k0);
      if (match_fraction(P, product_f64(Mk, Nk), absMN, s.K, r.rule) > 0.99)
        return {hints::kLastPhaseMissing,
                "P is the product without its last " + count(s.K - k0, "term") + ": the phase loop stops "
                "after " + count(k0 / t, "whole tile") + " of " + std::to_string(t) +
                " and skips the partial last one. Round the number of phases up, (K + TILE_WIDTH - 1) / "
                "TILE_WIDTH, and load 0 for the tile elements that fall outside M and N."};
    }
  }

  const int64_t tile = r.tile;
  const bool ragged = (J % tile) || (L % tile) || (s.K % tile);
  bool edge_only = ragged;
  const int64_t last_tile_row = (J - 1) / tile, last_tile_col = (L - 1) / tile;
  for (const auto& [ti, tj] : r.wrong_tiles)
    if (ti != last_tile_row && tj != last_tile_col) edge_only = false;
  // Only meaningful when P has tiles off the edge that came out right.
  const bool has_interior = last_tile_row > 0 && last_tile_col > 0;
  if (edge_only && ragged && has_interior && r.wrong_tile_count <= last_tile_row + last_tile_col + 1)
    return {hints::kBoundary,
            "Only the last row or column of tiles is wrong: an edge load or the store is not "
            "bounds-checked, or the out-of-range tile elements are not set to 0."};

  if (wrong_fraction > 0.9)
    return {hints::kWrongSum,
            "Every element is wrong: check the dot-product loop. Does it run over all K terms "
            "(every tile phase), index M by row and N by column, and start from 0?" +
                std::string(s.K % tile ? " K is not a multiple of the tile here: are the tile elements "
                                         "past the end of M and N loaded as 0 (the else branches)?"
                                       : "")};
  return {hints::kRace,
          "Some tiles of P are wrong and others right: a __syncthreads() is missing (before the "
          "tiles are used, or before they are overwritten), or threads skip a barrier." +
              std::string(tf32_rule ? " With fragments, check also each load_matrix_sync's ldm (the distance "
                                      "between rows in memory, padding included) and its layout (row_major "
                                      "for a tile stored row by row)."
                                    : "")};
}

Diagnosis grid_coverage(const Shape& s, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block) {
  const int64_t J = s.J, L = s.L, gx = grid[0], gy = grid[1], bx = block[0], by = block[1];
  const int64_t cols = gx * bx, rows = gy * by;
  const auto n = [](int64_t a, int64_t b) { return std::to_string(a) + " x " + std::to_string(b); };
  std::string hint = "The launch was a grid of " + n(gx, gy) + " blocks of " + n(bx, by) +
                     " threads: it covers " + count(rows, "row") + " (y) and " + count(cols, "column") +
                     " (x), and P has " + count(J, "row") + " and " + count(L, "column") + ". ";
  if (gy == 1 && by == 1 && J > 1)
    hint += "With a 1-D grid of 1-D blocks every thread has threadIdx.y = blockIdx.y = 0, so Row is 0 for all of "
            "them: launch 2-D blocks on a 2-D grid (dim3), Row from y and Col from x. ";
  else if (cols >= J && rows >= L && (cols < L || rows < J))
    hint += "It would cover P with x and y swapped: the x dimension counts columns (Col = blockIdx.x * "
            "blockDim.x + threadIdx.x) and y counts rows, so size the grid's x from the columns and y from the "
            "rows. ";
  else if ((cols < L && gx == L / bx) || (rows < J && gy == J / by))
    hint += "The number of blocks is rounded down: divide with a ceiling division, (n + BLOCK - 1) / BLOCK. ";
  hint += "With " + n(bx, by) + " blocks, covering P needs at least " +
          count((L + bx - 1) / std::max<int64_t>(bx, 1), "block") + " in x and " +
          std::to_string((J + by - 1) / std::max<int64_t>(by, 1)) + " in y.";
  return {hints::kGridTooSmall, hint};
}

Diagnosis line_coverage(const Shape& s, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block) {
  const bool rows = s.J >= s.L;  // launch_matmul's choice: a thread per row (and the matrix-vector kernel), else per column
  const int64_t items = rows ? s.J : s.L;
  const std::string item = rows ? "row" : "column";
  const int64_t per_block = block[0] * block[1] * block[2], threads = grid[0] * grid[1] * grid[2] * per_block;
  if (threads >= items) return {};
  std::string hint = "The launch was " + count(grid[0] * grid[1] * grid[2], "block") + " of " +
                     std::to_string(per_block) + " threads: " + count(threads, "thread") + ", one per " + item +
                     ", and P has " + count(items, item) + ". ";
  if (per_block > 0 && threads == (items / per_block) * per_block)
    hint += "The number of blocks is rounded down: divide with a ceiling division, (n + BLOCK - 1) / BLOCK. ";
  hint += "Covering them needs at least " + count((items + std::max<int64_t>(per_block, 1) - 1) / std::max<int64_t>(per_block, 1), "block") +
          " of " + std::to_string(per_block) + " threads.";
  return {hints::kGridTooSmall, hint};
}

Diagnosis reads_p(int64_t launches) {
  return {hints::kReadsP,
          "Every element of P is NaN although the kernel ran (" + std::to_string(launches) +
              (launches == 1 ? " launch" : " launches") + "), and with P set to 0 first the same kernel is right: it reads P before writing it (P[i] += "
              "..., or beta * P). P is not zero-initialised -- cudaMalloc leaves memory as it was, and the "
              "grader fills P with NaN to show it. Sum into a local variable and store P once: "
              "P[Row * Width + Col] = Pvalue;"};
}

Diagnosis diagnose_cuda_error(const std::string& message) {
  for (const Hint& h : kCudaErrorHints)
    if (message.find(h.code) != std::string::npos) return {hints::kCudaError, h.text};
  return hints::kCudaError;
}

}  // namespace tilelab
