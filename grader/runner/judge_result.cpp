#include "judge_result.hpp"

#include <iostream>

namespace tilelab::judge {

Laps g_laps;
std::string g_result_path;
bool g_host_function = false;

void base_result(ResultWriter& r, const std::string& stage, const std::string& dataset, const std::string& check) {
  r.clear();
  r.set(rf::schema, kResultSchema).set(rf::stage, stage).set(rf::impl, "?").set(rf::backend, "?");
  r.set(rf::dataset, dataset).set(rf::check, check);
}

int finish(ResultWriter& r, ExitCode code, const std::string& message) {
  r.set(rf::verdict, verdict_name(code));
  r.set(rf::exit_code, int(code));
  r.set(rf::message, message);  // written by main(), once every worker is gone
  std::cout << r.json().value("stage", "") << " " << r.json().value("dataset", "") << " " << r.json().value("check", "")
            << ": " << verdict_name(code) << " -- " << message << "\n";
  if (r.has(rf::hint) && !r.get(rf::hint).get<std::string>().empty())
    std::cout << "hint: " << r.get(rf::hint).get<std::string>() << "\n";
  if (g_result_path.empty()) std::cout << r.json().dump(2) << "\n";
  std::cout.flush();
  return code;
}

void set_hint(ResultWriter& r, const Hint& h) {
  r.set(rf::hint_code, h.code);
  r.set(rf::hint, h.text);
}

}  // namespace tilelab::judge
