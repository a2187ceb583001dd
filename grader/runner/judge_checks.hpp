// The checks of one dataset (docs/grading.md, "What one check does"): every P the worker hands
// back is checked here against the judge's own reference, then what the launch report says the
// host moved, then, for a timed check, the timing (judge_timing_audit.hpp).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge_result.hpp"  // ResultWriter
#include "judge_session.hpp"

namespace tilelab::judge {

// The checks of one dataset, against the worker: every P it hands back is checked here.
int run_checks(Session& w, ResultWriter& r, const StageSpec& spec, const Dataset& d, const std::vector<double>& absMN,
               const Dataset& fresh, const std::vector<double>& fresh_absMN, const std::string& check);

// A backend's findings (Backend::findings): the emulator's kept under "emulator", the GPU guard
// zones' under "guard"; true when there is one, which fails the check with the hint about the
// first to fix.
bool record_findings(ResultWriter& r, const nlohmann::json& found);

}  // namespace tilelab::judge
