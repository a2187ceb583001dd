// The runner's JSON result object (schema "tilelab.result/1", documented in docs/grading.md).
// The Python grader reads only this; it never parses the runner's human-readable output.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tilelab/exit_codes.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {

inline constexpr const char* kResultSchema = "tilelab.result/1";

const char* verdict_name(ExitCode code);
nlohmann::json to_json(const CheckReport& r);

// Written to a temporary file and renamed, so a reader never sees half a result.
void write_result(const std::filesystem::path& path, const nlohmann::json& result);

}  // namespace tilelab
