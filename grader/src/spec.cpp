#include "tilelab/spec.hpp"

#include <array>
#include <fstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "tilelab/contract.hpp"
#include "tilelab/random.hpp"

namespace tilelab {
namespace {

uint64_t hash_string(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

const DatasetSpec& StageSpec::dataset(const std::string& name) const {
  for (const auto& d : datasets)
    if (d.name == name) return d;
  throw BadInput("stage " + id + " has no dataset named '" + name + "'");
}

DatasetSpec StageSpec::hidden_dataset(uint64_t seed, int index) const {
  if (!hidden) throw BadInput("stage " + id + " has no [hidden] rule");
  const HiddenRule& h = *hidden;
  if (index < 0 || index >= h.count)
    throw BadInput("hidden index " + std::to_string(index) + " is outside 0.." +
                   std::to_string(h.count - 1));
  uint64_t state = mix(seed ^ hash_string(id)) ^ mix(uint64_t(index) + 1);
  // Sizes are m * q for q uniform in [ceil(min / m), floor(max / m)], redrawn while they hit
  // avoid_multiple_of (tilelab/specs/spec.py checked that some size in range qualifies).
  const int64_t m = h.multiple_of, lo = (h.min + m - 1) / m, hi = h.max / m;
  auto draw = [&]() {
    for (;;) {
      state = mix(state);
      const int64_t v = m * (lo + int64_t(state % uint64_t(hi - lo + 1)));
      if (h.avoid_multiple_of == 0 || v % h.avoid_multiple_of != 0) return v;
    }
  };
  DatasetSpec d;
  d.stage = id;
  d.name = "hidden" + std::to_string(index);
  if (api == "square") {
    const int64_t w = draw();
    d.shape = {w, w, w};
  } else {
    d.shape.J = draw();
    d.shape.K = draw();
    d.shape.L = draw();
  }
  d.distribution = h.distribution;
  d.seed = mix(state);
  d.tags = {"hidden"};
  return d;
}

StageSpec load_stage_spec(const std::filesystem::path& path) {
  // The file is tilelab.specs.codegen's output, validated by tilelab/specs/spec.py: every key is present and
  // within its bounds, so a missing or mistyped one means a wrong file, not a wrong stage.toml.
  const std::string w = path.string();
  nlohmann::json doc;
  try {
    std::ifstream in(path);
    if (!in) throw BadInput(w + ": cannot read the resolved stage spec");
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw BadInput(w + ": not a resolved stage spec (" + e.what() + "); --spec takes the JSON that "
                   "configuring writes to <build>/generated/stages/<stage>.json, not stage.toml");
  }
  if (!doc.is_object() || doc.value("schema", "") != kSpecSchema)
    throw BadInput(w + ": not a resolved stage spec (schema " + std::string(kSpecSchema) +
                   "); --spec takes <build>/generated/stages/<stage>.json, written at configure time");
  try {
    StageSpec s;
    s.id = doc.at("id").get<std::string>();
    s.api = doc.at("api").get<std::string>();
    s.host_function = doc.at("host_function").get<bool>();
    s.tile = doc.at("tile").get<int>();
    s.requires_shared_memory = doc.at("requires_shared_memory").get<bool>();
    s.precision = doc.at("precision").get<std::string>();
    s.threads = doc.at("threads").get<std::string>();
    if (s.threads != "element" && s.threads != "row-or-column")
      throw BadInput(w + ": threads is \"" + s.threads + "\"; it is \"element\" or \"row-or-column\"");
    try {
      s.rule = ToleranceRule::of(s.precision);
    } catch (const std::invalid_argument& e) {
      throw BadInput(w + ": " + e.what());
    }
    if (const auto& m = doc.at("max_global_loads_per_fma"); !m.is_null()) s.max_global_loads_per_fma = m.get<double>();
    for (const auto& e : doc.at("datasets")) {
      DatasetSpec d;
      d.stage = s.id;
      d.name = e.at("name").get<std::string>();
      const auto shape = e.at("shape").get<std::array<int64_t, 3>>();
      d.shape = {shape[0], shape[1], shape[2]};
      d.distribution = parse_distribution(e.at("distribution").get<std::string>());
      d.seed = e.at("seed").get<uint64_t>();
      d.tags = e.at("tags").get<std::vector<std::string>>();
      s.datasets.push_back(d);
    }
    if (const auto& h = doc.at("hidden"); !h.is_null()) {
      HiddenRule r;
      r.rule = h.at("rule").get<std::string>();
      r.count = h.at("count").get<int>();
      r.min = h.at("min").get<int64_t>();
      r.max = h.at("max").get<int64_t>();
      r.avoid_multiple_of = h.at("avoid_multiple_of").get<int64_t>();
      r.multiple_of = h.at("multiple_of").get<int64_t>();
      r.distribution = parse_distribution(h.at("distribution").get<std::string>());
      s.hidden = r;
    }
    const auto& p = doc.at("performance");
    s.perf.dataset = p.at("dataset").get<std::string>();
    s.perf.min_runs = p.at("min_runs").get<int>();
    s.perf.max_runs = p.at("max_runs").get<int>();
    s.perf.target_rel_stderr = p.at("target_rel_stderr").get<double>();
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(w + ": resolved stage spec is incomplete (" + e.what() + "); reconfigure to regenerate it");
  }
}

}  // namespace tilelab
