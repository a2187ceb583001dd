// What nvcc's back end says of an implementation's file, read into the performance model's result
// (docs/performance.md, "What nvcc's back end says"): the facts document the build wrote with
// tilelab.run.sass_facts (ptxas's registers and spills, the hot loop's SASS instruction mix, for
// sm_90), and the blocks per SM those registers allow with the launch the emulator counted
// (occupancy.hpp). The model charges the registers and the spills (resources_of, perf_model.hpp);
// the rest is shown.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "perf_model.hpp"

namespace tilelab {

// The Backend object (grader/result_schema.toml) of one implementation: from the facts document at
// `path` ("" when the tree has none: the wheels were not found when it was configured) and the
// counts of its model (threads and shared memory per block). Never throws: a missing or unread
// document is a Backend with read = false and why.
nlohmann::json backend_of(const std::string& path, const nlohmann::json& counts, const ModelGpu& g = {});

// The registers and spills the model charges (perf_model.hpp) from the facts document at `path`
// (its main kernel's); unknown, with why, where there is none. Never throws.
KernelResources resources_of(const std::string& path);

// Names the model that graded (graded_by: "traffic", or "traffic+sass" where the back end was
// read) and adds the backend figures to a PerfModel object (counted_calls' result).
void attach_backend(nlohmann::json& model, const std::string& facts_path);

}  // namespace tilelab
