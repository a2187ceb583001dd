#include "tilelab/spec.hpp"

#include <toml++/toml.h>

#include "tilelab/random.hpp"

namespace tilelab {
namespace {

template <class T, class View>
T need(const View& v, const std::string& where) {
  if (auto x = v.template value<T>()) return *x;
  throw BadInput(where + ": missing or mistyped key");
}

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
  // avoid_multiple_of (load_stage_spec checked that some size qualifies).
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
  toml::table doc;
  try {
    doc = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    throw BadInput(path.string() + ": not valid TOML: " + std::string(e.description()));
  }
  const std::string w = path.string();
  StageSpec s;
  s.id = need<std::string>(doc["stage"]["id"], w + " [stage] id");
  s.api = need<std::string>(doc["stage"]["api"], w + " [stage] api");
  if (s.api != "square" && s.api != "rect") throw BadInput(w + ": [stage] api must be square or rect");
  s.host_function = doc["stage"]["host_function"].value_or(false);
  s.tile = int(doc["stage"]["tile"].value_or(int64_t(16)));
  s.requires_shared_memory = doc["stage"]["requires_shared_memory"].value_or(false);

  const toml::array* entries = doc["dataset"].as_array();
  if (!entries) throw BadInput(w + ": no [[dataset]] entries");
  for (const auto& node : *entries) {
    const toml::table* t = node.as_table();
    if (!t) throw BadInput(w + ": [[dataset]] must be tables");
    toml::node_view<const toml::node> e(*t);
    DatasetSpec d;
    d.stage = s.id;
    d.name = need<std::string>(e["name"], w + " [[dataset]] name");
    const std::string where = w + " dataset '" + d.name + "'";
    if (s.api == "square") {
      const auto width = need<int64_t>(e["width"], where + " width");
      d.shape = {width, width, width};
    } else {
      const toml::array* shape = e["shape"].as_array();
      if (!shape || shape->size() != 3) throw BadInput(where + ": shape must be [J, K, L]");
      d.shape = {need<int64_t>(e["shape"][0], where), need<int64_t>(e["shape"][1], where),
                 need<int64_t>(e["shape"][2], where)};
    }
    if (d.shape.J < 1 || d.shape.K < 1 || d.shape.L < 1) throw BadInput(where + ": sizes must be >= 1");
    d.distribution = parse_distribution(need<std::string>(e["distribution"], where + " distribution"));
    d.seed = uint64_t(need<int64_t>(e["seed"], where + " seed"));
    if (const toml::array* tags = e["tags"].as_array())
      for (const auto& tag : *tags)
        if (auto v = tag.value<std::string>()) d.tags.push_back(*v);
    s.datasets.push_back(d);
  }

  if (doc["hidden"]) {
    HiddenRule h;
    h.rule = doc["hidden"]["rule"].value_or(std::string());
    h.count = int(need<int64_t>(doc["hidden"]["count"], w + " [hidden] count"));
    h.min = need<int64_t>(doc["hidden"]["min"], w + " [hidden] min");
    h.max = need<int64_t>(doc["hidden"]["max"], w + " [hidden] max");
    h.avoid_multiple_of = doc["hidden"]["avoid_multiple_of"].value_or(int64_t(0));
    h.distribution = parse_distribution(doc["hidden"]["distribution"].value_or(std::string("normal")));
    h.multiple_of = doc["hidden"]["multiple_of"].value_or(int64_t(1));
    if (h.min < 1 || h.max < h.min) throw BadInput(w + ": [hidden] needs 1 <= min <= max");
    if (h.multiple_of < 1 || (h.min + h.multiple_of - 1) / h.multiple_of > h.max / h.multiple_of)
      throw BadInput(w + ": [hidden] no multiple of multiple_of lies in [min, max]");
    if (h.avoid_multiple_of > 0 && h.avoid_multiple_of <= h.multiple_of && h.multiple_of % h.avoid_multiple_of == 0)
      throw BadInput(w + ": [hidden] every multiple of multiple_of is also a multiple of avoid_multiple_of");
    s.hidden = h;
  }

  s.perf.dataset = need<std::string>(doc["performance"]["dataset"], w + " [performance] dataset");
  s.dataset(s.perf.dataset);  // must exist
  s.perf.min_runs = int(doc["performance"]["min_runs"].value_or(int64_t(30)));
  s.perf.max_runs = int(doc["performance"]["max_runs"].value_or(int64_t(200)));
  s.perf.target_rel_stderr = doc["performance"]["target_rel_stderr"].value_or(0.01);
  return s;
}

}  // namespace tilelab
