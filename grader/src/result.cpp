#include "tilelab/result.hpp"

#include "tilelab/result_schema.hpp"

#include <cmath>
#include <fstream>

namespace tilelab {
namespace {

nlohmann::json ranges(const std::vector<std::pair<int64_t, int64_t>>& rs) {
  auto out = nlohmann::json::array();
  for (const auto& [a, b] : rs) out.push_back({a, b});
  return out;
}

}  // namespace

// A hidden dataset's report holds positions and counts only (CheckReport::values_withheld).
nlohmann::json to_json(const CheckReport& r) {
  namespace c = schema::comparison;
  namespace w = schema::wrong_element;
  nlohmann::json out;
  schema::Writer<schema::Comparison> j(out);
  j.empty_list(c::first_wrong);
  for (const auto& e : r.first_wrong) {
    auto f = j.append(c::first_wrong);
    f.set(w::row, e.row).set(w::col, e.col);
    if (!r.values_withheld) f.set(w::expected, e.expected).set(w::actual, e.actual).set(w::allowed, e.allowed);
  }
  j.set(c::pass, r.pass)
      .set(c::checked, r.checked)
      .set(c::wrong, r.wrong)
      .set(c::not_finite, r.not_finite)
      .set(c::wrong_rows, ranges(r.wrong_rows))
      .set(c::wrong_cols, ranges(r.wrong_cols))
      .set(c::wrong_tiles, ranges(r.wrong_tiles))
      .set(c::wrong_tile_count, r.wrong_tile_count)
      .set(c::tile, r.tile);
  if (r.values_withheld)
    j.set(c::values_withheld, true);
  else
    j.set(c::max_abs_error, r.max_abs_error).set(c::max_error_ratio, r.max_error_ratio).set(c::rel_fro_error, r.rel_fro_error);
  if (!r.wrong_map.cells.empty())
    j.at(c::wrong_map)
        .set(schema::wrong_map::cell_rows, r.wrong_map.cell_rows)
        .set(schema::wrong_map::cell_cols, r.wrong_map.cell_cols)
        .set(schema::wrong_map::rows, nlohmann::json(r.wrong_map.cells));
  return out;
}

void write_result(const std::filesystem::path& path, const nlohmann::json& result) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const auto tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << result.dump(2) << "\n";
    if (!out) throw std::runtime_error(tmp + ": cannot write result");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace tilelab
