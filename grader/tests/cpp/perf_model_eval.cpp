// The judge's performance model (grader/runner/perf_model.cpp) on stored counts, for
// grader/model-validation/model_fit.py check (CTest kit.model-fit.check): reads a document of
// {kernel: {"shape": [J, K, L], "model": {"counts": {...}}}} (data/counts-emu.json) and writes
// {kernel: {"ms", "bound", "blocks_per_sm"}} for every kernel that has counts, so that the Python
// mirror is compared with the C++ model itself, not with times stored when the data was written.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "perf_model.hpp"
#include "traffic_json.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: perf_model_eval COUNTS.json\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  const nlohmann::json doc = nlohmann::json::parse(in);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, e] : doc.items()) {
    if (!e.contains("model") || !e["model"].is_object() || !e["model"].contains("counts")) continue;
    // Fields the stored counts lack (written by an older kit) stay at TrafficCounts' defaults.
    nlohmann::json fields = tlemu::TrafficCounts{};
    const nlohmann::json& stored = e["model"]["counts"];
    for (auto& [k, v] : fields.items())
      if (stored.contains(k)) v = stored[k];
    const auto c = fields.get<tlemu::TrafficCounts>();
    const auto& s = e["shape"];
    const tilelab::Shape shape{s[0].get<int64_t>(), s[1].get<int64_t>(), s[2].get<int64_t>()};
    const nlohmann::json m = tilelab::perf_model(c, shape);
    out[name] = {{"ms", m["model"]["ms"]}, {"bound", m["model"]["bound"]}, {"blocks_per_sm", m["derived"]["blocks_per_sm"]}};
  }
  std::cout << out.dump() << "\n";
  return 0;
}
