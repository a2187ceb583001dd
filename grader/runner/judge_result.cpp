#include "judge_result.hpp"

#include <iostream>

namespace tilelab::judge {

Laps g_laps;
std::string g_result_path;
bool g_host_function = false;

nlohmann::json base_result(const std::string& stage, const std::string& dataset, const std::string& check) {
  return {{"schema", kResultSchema}, {"stage", stage}, {"impl", "?"}, {"backend", "?"},
          {"dataset", dataset},       {"check", check}};
}

int finish(nlohmann::json& r, ExitCode code, const std::string& message) {
  r["verdict"] = verdict_name(code);
  r["exit_code"] = int(code);
  r["message"] = message;  // written by main(), once every worker is gone
  std::cout << r.value("stage", "") << " " << r.value("dataset", "") << " " << r.value("check", "")
            << ": " << verdict_name(code) << " -- " << message << "\n";
  if (r.contains("hint") && !r["hint"].get<std::string>().empty())
    std::cout << "hint: " << r["hint"].get<std::string>() << "\n";
  if (g_result_path.empty()) std::cout << r.dump(2) << "\n";
  std::cout.flush();
  return code;
}

void set_hint(nlohmann::json& r, const Hint& h) {
  r["hint_code"] = h.code;
  r["hint"] = h.text;
}

}  // namespace tilelab::judge
