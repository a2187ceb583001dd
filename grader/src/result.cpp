#include "tilelab/result.hpp"

#include <cmath>
#include <fstream>

namespace tilelab {
namespace {

nlohmann::json number(double v) {  // JSON has no NaN/Inf: write them as strings
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

nlohmann::json ranges(const std::vector<std::pair<int64_t, int64_t>>& rs) {
  auto out = nlohmann::json::array();
  for (const auto& [a, b] : rs) out.push_back({a, b});
  return out;
}

}  // namespace

nlohmann::json to_json(const CheckReport& r) {
  auto first = nlohmann::json::array();
  for (const auto& w : r.first_wrong)
    first.push_back(r.values_withheld ? nlohmann::json{{"row", w.row}, {"col", w.col}}
                                      : nlohmann::json{{"row", w.row}, {"col", w.col}, {"expected", number(w.expected)},
                                                       {"actual", number(w.actual)}, {"allowed", number(w.allowed)}});
  nlohmann::json out = {{"pass", r.pass},
          {"checked", r.checked},
          {"wrong", r.wrong},
          {"not_finite", r.not_finite},
          {"max_abs_error", number(r.max_abs_error)},
          {"max_error_ratio", number(r.max_error_ratio)},
          {"rel_fro_error", number(r.rel_fro_error)},
          {"first_wrong", first},
          {"wrong_rows", ranges(r.wrong_rows)},
          {"wrong_cols", ranges(r.wrong_cols)},
          {"wrong_tiles", ranges(r.wrong_tiles)},
          {"wrong_tile_count", r.wrong_tile_count},
          {"tile", r.tile}};
  if (r.values_withheld) {  // positions and counts only (CheckReport::values_withheld)
    for (const char* k : {"max_abs_error", "max_error_ratio", "rel_fro_error"}) out.erase(k);
    out["values_withheld"] = true;
  }
  if (!r.wrong_map.cells.empty())
    out["wrong_map"] = {{"cell_rows", r.wrong_map.cell_rows},
                        {"cell_cols", r.wrong_map.cell_cols},
                        {"rows", r.wrong_map.cells}};
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
