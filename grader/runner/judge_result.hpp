// The judge's result document while a check runs (grader/runner/judge.cpp): where its steps' time
// goes, how the hint is set, and finish(), which writes the verdict, prints it and ends the check.
#pragma once
#include <chrono>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "tilelab/contract.hpp"
#include "tilelab/result_schema.hpp"

namespace tilelab::judge {

// The result, writable only through the fields of grader/result_schema.toml.
using ResultWriter = schema::Writer<schema::Result>;
namespace rf = schema::result;

// Where a check's time goes, written as the result's "seconds" (wall time of each step, in order):
// what an instructor reads to see why a check is slow (docs/performance.md, grading times).
struct Laps {
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  nlohmann::json seconds = nlohmann::json::object();
  void operator()(ResultWriter& r, const char* step) {
    const auto now = std::chrono::steady_clock::now();
    seconds[step] = std::round(std::chrono::duration<double>(now - last).count() * 1000) / 1000;
    r.set(rf::seconds, seconds);
    last = now;
  }
};
extern Laps g_laps;

// Where --json says the result goes ("": printed to stdout).
extern std::string g_result_path;
extern bool g_host_function;  // the stage grades matmul_host: a crash's hint may point there

// The result started again, with what is known before anything ran.
void base_result(ResultWriter& r, const std::string& stage, const std::string& dataset, const std::string& check);
// The verdict, its exit code and message; printed. Returns the code, the judge's exit status.
int finish(ResultWriter& r, ExitCode code, const std::string& message);
// A hint whose text is fixed (grader/contract.toml).
void set_hint(ResultWriter& r, const Hint& h);

}  // namespace tilelab::judge
