#include "tilelab/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace tilelab {

double ToleranceRule::allowed(double abs_mn, int64_t K) const {
  return c * std::sqrt(double(K)) * u * abs_mn + double(K) * flush;
}

double ToleranceRule::fro_limit(int64_t elements) const {
  return max_rel_fro * (1 + (elements > 0 ? small_p / std::sqrt(double(elements)) : 0.0));
}

ToleranceRule ToleranceRule::of(const std::string& precision) {
  if (precision == "float32") return {};
  if (precision == "tf32") {
    ToleranceRule r;
    r.u = 0x1p-11;
    r.max_rel_fro = 1.5e-3;
    r.small_p = 16;
    return r;
  }
  throw std::invalid_argument("unknown precision '" + precision + "' (expected float32 or tf32)");
}

std::vector<std::pair<int64_t, int64_t>> to_ranges(const std::vector<int64_t>& sorted) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t v : sorted) {
    if (!out.empty() && out.back().second + 1 == v)
      out.back().second = v;
    else
      out.emplace_back(v, v);
  }
  return out;
}

CheckReport check_product(const Matrix& P, const std::vector<double>& Pref,
                          const std::vector<double>& absMN, const Shape& shape,
                          const ToleranceRule& rule, int tile) {
  CheckReport r;
  r.tile = tile;
  r.rule = rule;
  const int64_t J = shape.J, L = shape.L;
  if (P.rows != J || P.cols != L || Pref.size() != size_t(J * L) || absMN.size() != Pref.size())
    throw std::logic_error("check_product: shapes disagree");
  constexpr size_t kFirst = 10, kTiles = 16;
  std::vector<char> row_bad(size_t(J), 0), col_bad(size_t(L), 0);
  std::set<std::pair<int64_t, int64_t>> tiles;
  WrongMap& map = r.wrong_map;
  map.cell_rows = std::max<int64_t>(1, (J + WrongMap::kMaxCells - 1) / WrongMap::kMaxCells);
  map.cell_cols = std::max<int64_t>(1, (L + WrongMap::kMaxCells - 1) / WrongMap::kMaxCells);
  std::vector<std::string> cells(size_t((J + map.cell_rows - 1) / map.cell_rows),
                                 std::string(size_t((L + map.cell_cols - 1) / map.cell_cols), '0'));
  double diff2 = 0, ref2 = 0, scale2 = 0;
  for (int64_t i = 0; i < J; ++i) {
    std::string& cell_row = cells[size_t(i / map.cell_rows)];
    for (int64_t j = 0; j < L; ++j) {
      const size_t e = size_t(i * L + j);
      const double actual = P.data[e], expected = Pref[e];
      const double allowed = rule.allowed(absMN[e], shape.K);
      const double err = std::fabs(actual - expected);
      ref2 += expected * expected;
      scale2 += absMN[e] * absMN[e];
      bool ok;
      if (!std::isfinite(actual)) {
        ++r.not_finite;
        cell_row[size_t(j / map.cell_cols)] = '2';  // never written outranks wrong in a cell
        ok = false;
      } else {
        diff2 += err * err;
        r.max_abs_error = std::max(r.max_abs_error, err);
        r.max_error_ratio = std::max(r.max_error_ratio, err / allowed);
        ok = err <= allowed;
      }
      if (ok) continue;
      if (char& cell = cell_row[size_t(j / map.cell_cols)]; cell == '0') cell = '1';
      ++r.wrong;
      row_bad[size_t(i)] = col_bad[size_t(j)] = 1;
      tiles.emplace(i / tile, j / tile);
      if (r.first_wrong.size() < kFirst) r.first_wrong.push_back({i, j, expected, actual, allowed});
    }
  }
  r.checked = J * L;
  // Relative to ||Pref||_F, but never to less than ||(|M||N|)||_F / sqrt(K): a product of one or
  // a few elements can cancel to almost 0, and a correct kernel's rounding error must not count
  // as large relative to that cancellation (docs/grading.md).
  const double denom2 = std::max(ref2, shape.K > 0 ? scale2 / double(shape.K) : 0.0);
  r.rel_fro_error = denom2 > 0 ? std::sqrt(diff2 / denom2) : std::sqrt(diff2);
  if (r.not_finite) r.rel_fro_error = INFINITY;
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < J; ++i)
    if (row_bad[size_t(i)]) rows.push_back(i);
  for (int64_t j = 0; j < L; ++j)
    if (col_bad[size_t(j)]) cols.push_back(j);
  r.wrong_rows = to_ranges(rows);
  r.wrong_cols = to_ranges(cols);
  r.wrong_tile_count = int64_t(tiles.size());
  for (const auto& t : tiles) {
    if (r.wrong_tiles.size() >= kTiles) break;
    r.wrong_tiles.push_back(t);
  }
  if (r.wrong > 0) map.cells = std::move(cells);
  r.pass = r.wrong == 0 && r.rel_fro_error <= rule.fro_limit(r.checked);
  return r;
}

}  // namespace tilelab
