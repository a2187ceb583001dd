// The grid at the timed shape in the performance model (grid_parallelism.hpp).
#include "grid_parallelism.hpp"

#include <algorithm>
#include <array>

namespace tilelab {

double sms_busy(double blocks, const ModelGpu& g) { return std::max(0.0, std::min(g.sms, blocks)); }

void charge_timed_grid(nlohmann::json& model, const nlohmann::json& launch, const Shape& timed, const ModelGpu& g) {
  const bool seen = launch.is_object() && launch.value("observed", false) && launch.contains("grid") &&
                    launch["grid"].is_array() && launch["grid"].size() == 3;
  double blocks = 1;
  nlohmann::json grid = nullptr, block = nullptr;
  if (seen) {
    grid = launch["grid"], block = launch.value("block", nlohmann::json());
    blocks = 1;
    for (const auto& d : grid) blocks *= std::max(1.0, d.is_number() ? d.get<double>() : 1.0);
  }
  const double busy = std::max(1.0, sms_busy(blocks, g));
  const double factor = g.sms / busy;
  model["timed_grid"] = {{"shape", {{"J", timed.J}, {"K", timed.K}, {"L", timed.L}}},
                         {"observed", seen},
                         {"grid", grid},
                         {"block", block},
                         {"blocks", blocks},
                         {"sms_busy", busy},
                         {"factor", factor}};
  if (factor == 1) return;  // every SM busy: perf_model()'s figures stand as they are
  nlohmann::json& m = model["model"];
  nlohmann::json& times = m["ms_by_resource"];
  std::string bound = m.value("bound", "");
  double ms = 0;
  for (auto& [name, t] : times.items()) {
    if (name != "dram") t = t.get<double>() * factor;  // the chip's DRAM is not an SM's
    if (t.get<double>() > ms) ms = t.get<double>(), bound = name;
  }
  const double before = m.value("ms", 0.0);
  if (ms > 0 && before > 0) m["gflops"] = m.value("gflops", 0.0) * before / ms;
  m["ms"] = ms;
  m["bound"] = bound;
}

}  // namespace tilelab
