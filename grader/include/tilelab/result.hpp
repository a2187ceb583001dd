// The runner's JSON result object (schema kResultSchema of grader/contract.toml, documented in
// docs/grading.md).
// The Python grader reads only this; it never parses the runner's human-readable output.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tilelab/contract.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {

nlohmann::json to_json(const CheckReport& r);

// Written to a temporary file and renamed, so a reader never sees half a result.
void write_result(const std::filesystem::path& path, const nlohmann::json& result);

}  // namespace tilelab
