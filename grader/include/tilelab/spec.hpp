// The C++ view of a stage's spec (schema: docs/stage-spec.md). stage.toml has one reader and
// validator, grader/tilelab/specs/spec.py; at configure time tilelab.specs.codegen writes each stage resolved
// (every default filled in) to <build>/generated/stages/<stage>.json, which is what this reads.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tilelab/dataset.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {

struct HiddenRule {
  std::string rule;
  int count = 0;
  int64_t min = 1, max = 1;
  int64_t avoid_multiple_of = 0;  // 0: no restriction
  int64_t multiple_of = 1;        // every drawn size is a multiple of this (02-tiled: 32)
  Distribution distribution = Distribution::Normal;
};

struct PerfSpec {
  std::string dataset;
  int min_runs = 30;
  int max_runs = 200;
  double target_rel_stderr = 0.01;
};

struct StageSpec {
  std::string id;
  std::string api;  // "square" or "rect"
  bool host_function = false;
  int tile = 16;
  bool requires_shared_memory = false;  // the compiled kernel must use __shared__ memory
  std::string precision = "float32";     // "float32" or "tf32": the arithmetic the stage asks for
  ToleranceRule rule;                    // its correctness rule, ToleranceRule::of(precision), resolved at load
  // What one thread computes: "element" (one element of P) or "row-or-column" (08: a row of P
  // when J >= L, else a column), which the launch is judged against (grid-too-small).
  std::string threads = "element";
  // The most global loads of M and N (4-byte floats requested) per multiply-add of the product,
  // judged where the emulator's count build counts them (the perf-model check); 0: no limit.
  double max_global_loads_per_fma = 0;
  std::vector<DatasetSpec> datasets;
  std::optional<HiddenRule> hidden;
  PerfSpec perf;

  const DatasetSpec& dataset(const std::string& name) const;
  // The index-th hidden dataset for a grading seed: sizes drawn by the rule, data in memory only.
  DatasetSpec hidden_dataset(uint64_t seed, int index) const;
};

// Reads <build>/generated/stages/<stage>.json; BadInput for anything else (a stage.toml included).
StageSpec load_stage_spec(const std::filesystem::path& resolved_json);

}  // namespace tilelab
