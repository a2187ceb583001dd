// The runner: one executable per stage x implementation x backend (built by grader/CMakeLists.txt).
// It loads a dataset, runs the implementation with P poisoned by NaN, checks the result against
// the float64 reference with the rule of docs/grading.md, optionally times it, and writes one
// JSON result object. Its exit code is one of grader/contract.toml.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>  // strsignal
#include <iostream>

#include "backend.hpp"
#include "isolation.hpp"
#include "tilelab/dataset.hpp"
#include "tilelab/diagnose.hpp"
#include "tilelab/contract.hpp"
#include "tilelab/result.hpp"
#include "tilelab/spec.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {
extern const Implementation tilelab_impl_under_test;
#ifdef TILELAB_HAS_REFERENCE
extern const Implementation tilelab_impl_reference;
#endif
#ifdef TILELAB_HAS_PREVIOUS
extern const Implementation tilelab_impl_previous;
#endif
}  // namespace tilelab

namespace tilelab {
namespace {

std::string g_result_path;  // written by the parent only (isolation.hpp)

nlohmann::json base_result(const std::string& stage, const std::string& dataset, const std::string& check,
                           const char* backend) {
  return {{"schema", kResultSchema},
          {"stage", stage},
          {"impl", tilelab_impl_under_test.name},
          {"backend", backend},
          {"dataset", dataset},
          {"check", check}};
}

int finish(nlohmann::json& r, ExitCode code, const std::string& message) {
  r["verdict"] = verdict_name(code);
  r["exit_code"] = int(code);
  r["message"] = message;
  if (isolation::in_child()) {
    const std::string text = r.dump();
    isolation::send(isolation::kResult, text.data(), text.size());
  } else if (!g_result_path.empty()) {
    write_result(g_result_path, r);
  }
  std::cout << r.value("stage", "") << " " << r.value("dataset", "") << " " << r.value("check", "")
            << ": " << verdict_name(code) << " -- " << message << "\n";
  if (r.contains("hint") && !r["hint"].get<std::string>().empty())
    std::cout << "hint: " << r["hint"].get<std::string>() << "\n";
  if (g_result_path.empty() && !isolation::in_child()) std::cout << r.dump(2) << "\n";
  std::cout.flush();
  return code;
}

// A hint whose text is fixed (grader/contract.toml).
void set_hint(nlohmann::json& r, const Hint& h) {
  r["hint_code"] = h.code;
  r["hint"] = h.text;
}

void print_wrong(const CheckReport& rep, const char* what) {
  std::cout << what << ": " << rep.wrong << " of " << rep.checked << " elements wrong ("
            << rep.not_finite << " NaN/Inf), relative Frobenius error " << rep.rel_fro_error << "\n";
  for (const auto& w : rep.first_wrong)
    std::printf("  P[%lld][%lld] expected %.9g, got %.9g (allowed error %.3g)\n", (long long)w.row,
                (long long)w.col, w.expected, w.actual, w.allowed);
}

struct Checked {
  CheckReport report;
  Diagnosis diagnosis;
  bool inputs_unchanged;
};

Checked check_outcome(const RunOutcome& out, const Dataset& d, const std::vector<double>& absMN,
                      const StageSpec& spec) {
  Checked c{check_product(out.P, d.P, absMN, d.spec.shape, ToleranceRule{}, spec.tile), {}, out.inputs_unchanged};
  c.diagnosis = diagnose(d.M, d.N, out.P, d.P, absMN, c.report, d.spec.shape);
  if (!c.inputs_unchanged) {
    c.report.pass = false;
    c.diagnosis = {hints::kInputsModified.code, hints::kInputsModified.text};
  }
  return c;
}

// One implementation's timing; without times (the emulator) only its calls and launches.
nlohmann::json stats_json(const TimingStats& t, const Shape& s, double peak_gflops) {
  nlohmann::json j = {{"name", t.name}, {"runs", t.runs}};
  if (t.launches >= 0) j["launches"] = t.launches;
  if (!t.model.is_null()) j["model"] = t.model;
  if (t.median_ms <= 0) return j;
  const double gflops = s.flops() / (t.median_ms * 1e6);
  j.update({{"median_ms", t.median_ms}, {"mean_ms", t.mean_ms}, {"stderr_ms", t.stderr_ms}, {"min_ms", t.min_ms},
            {"gflops", gflops}, {"pct_of_peak", peak_gflops > 0 ? 100.0 * gflops / peak_gflops : 0.0}});
  return j;
}

// A timing the hardware cannot produce earns nothing: timed calls that launched fewer kernels than
// there were calls (some did none of the product: e.g. code that launches only the first time it
// sees a set of pointers), or a speed above the device's FP32 peak. Both are read from this process
// alone -- its own launch probe and the device's peak -- so grades sharing the GPU cannot trip or
// hide them. `probe_sees_launches`: the untimed run recorded the kernel (a launch path the probe
// does not wrap, such as cudaLaunchKernelEx, would count 0 on every call and is not judged on it).
// Returns the verdict's message, or "" when the timing is plausible.
std::string implausible_timing(nlohmann::json& r, const nlohmann::json& mine, bool probe_sees_launches,
                               double peak_gflops) {
  const int64_t runs = mine.value("runs", int64_t(0)), launches = mine.value("launches", int64_t(-1));
  if (probe_sees_launches && launches >= 0 && runs > 0 && launches < runs) {
    set_hint(r, hints::kWorkSkipped);
    return "the timed calls did not all compute the product: " + std::to_string(launches) +
           " kernel launch" + (launches == 1 ? "" : "es") + " in " + std::to_string(runs) +
           " timed calls of launch_matmul; no performance credit";
  }
  const double pct = mine.value("pct_of_peak", 0.0);
  if (peak_gflops > 0 && pct > 100.0) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "timed at %.0f GFLOP/s, %.0f%% of this GPU's FP32 peak (%.0f GFLOP/s)",
                  mine.value("gflops", 0.0), pct, peak_gflops);
    set_hint(r, hints::kFasterThanPeak);
    return std::string(buf) + ": faster than the hardware can do the product; no performance credit";
  }
  return "";
}

// A backend's findings (Backend::findings): the emulator's kept under "emulator", the GPU guard
// zones' under "guard"; true when there is one, which fails the check with the hint about the
// first to fix.
bool record_findings(nlohmann::json& r, const nlohmann::json& found) {
  if (found.is_null()) return false;
  r[found.value("build", "") == "gpu" ? "guard" : "emulator"] = found;
  if (found["findings"].empty()) return false;
  for (const auto& f : found["findings"]) {
    const std::string file = f.value("file", "");
    if (!file.empty()) std::cout << file << ":" << f.value("line", 0) << ": ";
    std::cout << f["kind"].get<std::string>() << ": " << f["message"].get<std::string>() << "\n";
  }
  r["hint_code"] = found["hint_code"];
  r["hint"] = found["hint"];
  return true;
}

// A diagnosis made specific with what the launch report knows. grid-too-small: the launched grid
// and block against P (grid_coverage). nothing-written although a kernel ran: run it again with P
// at 0 (right_with_zero_P) -- right then means it reads P before writing it (reads_p).
template <class RightWithZeroP>
Diagnosis refine(const Diagnosis& d, const nlohmann::json& launch, const Shape& s, RightWithZeroP right_with_zero_P) {
  const int64_t launches = launch.value("launches", int64_t(0));
  if (d.code == "grid-too-small" && launch.contains("grid") && launch.contains("block"))
    return grid_coverage(s, launch["grid"].get<std::array<int64_t, 3>>(), launch["block"].get<std::array<int64_t, 3>>());
  if (d.code == "nothing-written" && launches > 0 && right_with_zero_P()) return reads_p(launches);
  return d;
}

void send_matrix(char type, const Matrix& m) {
  isolation::send(type, m.data.data(), m.data.size() * sizeof(float));
}

// Backend::unavailable(), asked in a child of its own: the parent must not initialise CUDA before
// it forks the child that runs the code under test. Empty when the backend can run here.
std::string unavailable_here(Backend& backend, double timeout) {
  const isolation::ChildReport rep = isolation::run_isolated(
      [&] {
        const std::string why = nlohmann::json{{"unavailable", backend.unavailable()}}.dump();
        isolation::send(isolation::kResult, why.data(), why.size());
        return 0;
      },
      timeout);
  return rep.has_result ? rep.result.value("unavailable", "") : "";
}

// The checks themselves; in the child process (isolation.hpp), which runs the code under test.
// Each P it sees goes to the parent too, which judges them again.
int run_checks(Backend& backend, nlohmann::json& r, const StageSpec& spec, const Dataset& d,
               const std::vector<double>& absMN, const Dataset& fresh,
               const std::vector<double>& fresh_absMN, const std::string& check) {
  const Shape& s = d.spec.shape;
  backend.on_fatal_findings = [&r](const nlohmann::json& emu) {
    record_findings(r, emu);
    finish(r, kError, emu.value("message", "the emulator stopped the run"));
  };
  try {
    const std::string reason = backend.unavailable();
    if (!reason.empty()) return finish(r, kSkipped, reason);
    r["device"] = backend.device();
    const Implementation& impl = tilelab_impl_under_test;
    RunOutcome out = backend.run(impl, d.M, d.N, s);
    send_matrix(isolation::kKernelP, out.P);
    r["launch"] = out.launch;
    Checked k = check_outcome(out, d, absMN, spec);
    r["kernel"] = to_json(k.report);
    r["inputs_unchanged"] = k.inputs_unchanged;
    bool pass = k.report.pass;
    Diagnosis diag = refine(k.diagnosis, out.launch, s,
                            [&] { return check_outcome(backend.run(impl, d.M, d.N, s, true), d, absMN, spec).report.pass; });
    if (!pass) print_wrong(k.report, "launch_matmul");

    if (spec.host_function && impl.host && check == "correct") {
      RunOutcome hout = backend.run_host(impl, d.M, d.N, s);
      send_matrix(isolation::kHostP, hout.P);
      Checked h = check_outcome(hout, d, absMN, spec);
      r["host"] = to_json(h.report);
      if (!hout.host_timing.is_null()) r["host"]["timing"] = hout.host_timing;
      if (!h.report.pass) {
        print_wrong(h.report, "matmul_host");
        if (pass) diag = {"host-" + h.diagnosis.code, "matmul_host: " + h.diagnosis.hint +
                          " (launch_matmul alone passed: check the copies, sizes in bytes, and the "
                          "copy of P back to P_h.)"};
        pass = false;
      }
    }
    r["hint_code"] = diag.code;
    r["hint"] = diag.hint;
    const nlohmann::json found = backend.findings();
    if (record_findings(r, found)) return finish(r, kError, found.value("message", "the backend found an error"));
    if (!pass) return finish(r, kWrong, "wrong result on " + d.spec.name + " (" + s.str() + ")");
    // Read from the compiled kernel's attributes (static + dynamic), never from the source text.
    if (spec.requires_shared_memory && out.launch.contains("kernel")) {
      const auto shared = out.launch["kernel"].value("static_shared_bytes", int64_t(0)) +
                          out.launch.value("dynamic_shared_bytes", int64_t(0));
      if (shared == 0) {
        set_hint(r, hints::kNoSharedMemory);
        return finish(r, kWrong, "kernel uses no shared memory");
      }
    }
    if (check == "correct") return finish(r, kPass, "correct on " + d.spec.name + " (" + s.str() + ")");

    // ---- perf: the library reference must itself pass the rule, then everything is timed ----
    RunOutcome lib = backend.run_library(d.M, d.N, s);
    if (!lib.P.data.empty()) r["library_check"] = to_json(check_product(lib.P, d.P, absMN, s, {}, spec.tile));
    std::vector<Implementation> timed = {impl};
#ifdef TILELAB_HAS_REFERENCE
    timed.push_back(tilelab_impl_reference);
#endif
#ifdef TILELAB_HAS_PREVIOUS
    timed.push_back(tilelab_impl_previous);
#endif
    const std::vector<TimingStats> stats = backend.time(timed, d.M, d.N, s, spec.perf);
    const double peak = r["device"].value("fp32_peak_gflops", 0.0);
    nlohmann::json timing = {{"meaningful", backend.timings_meaningful()}, {"flops", s.flops()}};
    for (const auto& t : stats) {
      timing["impls"][t.name] = stats_json(t, s, peak);
      if (!t.model.is_null()) timing["basis"] = "model";  // modelled times (the emulator's count build)
    }
    auto median = [&](const char* name) {
      return timing["impls"].contains(name) ? timing["impls"][name].value("median_ms", 0.0) : 0.0;
    };
    const double mine = median(impl.name);
    if (mine > 0) {
      if (median("reference") > 0) timing["ratio_to_reference"] = median("reference") / mine;
      if (median("previous") > 0) timing["ratio_to_previous"] = median("previous") / mine;
      if (median("cublas") > 0) timing["ratio_to_cublas"] = median("cublas") / mine;
    }
    r["timing"] = timing;

    // ---- the timed code must still compute: fresh inputs of the same shape, checked again ----
    RunOutcome again = backend.run(impl, fresh.M, fresh.N, s);
    send_matrix(isolation::kFreshP, again.P);
    Checked f = check_outcome(again, fresh, fresh_absMN, spec);
    r["fresh_inputs"] = to_json(f.report);
    if (!f.report.pass) {
      set_hint(r, hints::kStaleResult);
      print_wrong(f.report, "fresh inputs");
      return finish(r, kWrong, "wrong on fresh inputs after timing");
    }
    const std::string implausible =
        timing["impls"].contains(impl.name)
            ? implausible_timing(r, timing["impls"][impl.name], out.launch.value("launches", 0) > 0, peak)
            : "";
    if (!implausible.empty()) return finish(r, kWrong, implausible);
    std::printf("%-12s %10s %10s %9s\n", "impl", "median ms", "GFLOP/s", "% peak");
    for (const auto& [name, t] : timing["impls"].items())
      std::printf("%-12s %10.4f %10.1f %8.1f%%\n", name.c_str(), t.value("median_ms", 0.0),
                  t.value("gflops", 0.0), t.value("pct_of_peak", 0.0));
    return finish(r, kPass, "correct; timed " + std::to_string(stats.empty() ? 0 : stats[0].runs) + " runs");
  } catch (const DeviceError& e) {
    const Diagnosis d = diagnose_cuda_error(e.what());
    r["hint_code"] = d.code;
    r["hint"] = d.hint;
    record_findings(r, backend.findings());
    return finish(r, kError, e.what());
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  } catch (const std::exception& e) {
    return finish(r, kError, std::string("runner error: ") + e.what());
  }
}

ExitCode code_of(const std::string& verdict) {
  for (ExitCode c : kExitCodes)
    if (verdict == verdict_name(c)) return c;
  return kError;
}

// The parent's verdict from what the child reported. The child's own account is kept, except
// that it is never trusted on correctness: every P behind a "pass" is checked again here.
int judge(const isolation::ChildReport& rep, nlohmann::json& r, const StageSpec& spec, const Dataset& d,
          const std::vector<double>& absMN, const Dataset& fresh, const std::vector<double>& fresh_absMN,
          double timeout) {
  if (rep.timed_out) {
    set_hint(r, hints::kTimeout);
    return finish(r, kTimeout, "the run did not finish within " + std::to_string(int(timeout)) + " s");
  }
  if (!rep.has_result) {
    if (rep.signal) {
      set_hint(r, hints::kCrash);
      return finish(r, kError, std::string("the program crashed (") + strsignal(rep.signal) + ") during the run");
    }
    set_hint(r, hints::kExitedEarly);
    return finish(r, kError, "the program exited (code " + std::to_string(rep.exit_code) +
                                 ") before it reported a result");
  }
  const nlohmann::json child = rep.result;
  const Shape& s = d.spec.shape;
  auto recheck = [&](char type, const Dataset& data, const std::vector<double>& scale) {
    const auto it = rep.matrices.find(type);
    if (it == rep.matrices.end() || it->second.size() != size_t(s.J * s.L)) return false;
    Matrix P(s.J, s.L);
    P.data = it->second;
    return check_product(P, data.P, scale, s, {}, spec.tile).pass;
  };
  if (child.value("verdict", "") == "pass") {
    bool ok = recheck(isolation::kKernelP, d, absMN);
    if (child.contains("host")) ok = ok && recheck(isolation::kHostP, d, absMN);
    if (child.contains("fresh_inputs")) ok = ok && recheck(isolation::kFreshP, fresh, fresh_absMN);
    if (!ok) {
      set_hint(r, hints::kForgedResult);
      return finish(r, kWrong, "the result reported from inside the run does not match the P it produced");
    }
  }
  r = child;
  if (!g_result_path.empty()) write_result(g_result_path, r);
  return code_of(r.value("verdict", ""));
}

int run(int argc, char** argv) {
  CLI::App app{"tilelab runner: checks (and times) one implementation of one stage on one dataset"};
  std::string spec_path, dataset_dir, check = "correct", json_path;
  int hidden_index = -1;
  uint64_t seed = 0;
  double timeout = 0;
  app.add_option("--spec", spec_path, "the stage's resolved spec, <build>/generated/stages/<stage>.json")->required();
  auto* ds_opt = app.add_option("--dataset", dataset_dir, "dataset folder (M.npy N.npy P.npy meta.json)");
  auto* hid_opt = app.add_option("--hidden", hidden_index, "index of a hidden dataset, made in memory");
  std::vector<int64_t> shape;
  auto* shape_opt = app.add_option("--shape", shape, "J K L: a normal dataset of this shape, made in memory (bench)")
                        ->expected(3);
  shape_opt->excludes(ds_opt)->excludes(hid_opt);
  app.add_option("--seed", seed, "grading seed for --hidden (data seed for --shape)");
  ds_opt->excludes(hid_opt);
  app.add_option("--check", check, "correct or perf")->check(CLI::IsMember({"correct", "perf"}));
  app.add_option("--json", json_path, "where to write the JSON result");
  app.add_option("--timeout", timeout, "seconds before the run is ended as a timeout (0: none)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kBadInput;
  }
  if (dataset_dir.empty() && hidden_index < 0 && shape.empty()) {
    std::cerr << "tilelab-run: give --dataset DIR, --hidden INDEX --seed S, or --shape J K L\n";
    return kBadInput;
  }
  g_result_path = json_path;
  auto backend = make_backend();

  std::string stage_id = "?";
  std::string dataset_name = hidden_index >= 0 ? "hidden" + std::to_string(hidden_index)
                             : !shape.empty()  ? "shape"
                                               : std::filesystem::path(dataset_dir).filename().string();
  nlohmann::json r = base_result(stage_id, dataset_name, check, backend->name());
  StageSpec spec;
  Dataset d;
  try {
    spec = load_stage_spec(spec_path);
    r["stage"] = stage_id = spec.id;
    if (hidden_index >= 0) {
      d = make_dataset(spec.hidden_dataset(seed, hidden_index));
    } else if (!shape.empty()) {
      DatasetSpec ds;
      ds.stage = spec.id;
      ds.shape = {shape[0], shape[1], shape[2]};
      ds.name = ds.shape.str();
      ds.seed = seed ? seed : 1;
      if (ds.shape.J < 1 || ds.shape.K < 1 || ds.shape.L < 1) throw BadInput("--shape: sizes must be >= 1");
      d = make_dataset(ds);
    } else {
      d = read_dataset(dataset_dir);
    }
    r["dataset"] = d.spec.name;
    if (spec.api == "square" && !d.spec.shape.square())
      throw BadInput("stage " + spec.id + " takes square matrices; dataset is " + d.spec.shape.str());
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  }
  const Shape& s = d.spec.shape;
  r["shape"] = {{"J", s.J}, {"K", s.K}, {"L", s.L}};
  // A backend that cannot run here (no GPU) says so before the references are computed: at 4096^3
  // they take the CPU about a minute, which a skip does not need.
  const std::string unavailable = unavailable_here(*backend, timeout);
  if (!unavailable.empty()) return finish(r, kSkipped, unavailable);

  // Everything the verdict is judged against is made here, in the parent, before the fork.
  const std::vector<double> absMN = product_f64(d.M, d.N, true);
  Dataset fresh;
  std::vector<double> fresh_absMN;
  if (check == "perf") {  // the timed code must still compute: fresh inputs of the same shape
    DatasetSpec fresh_spec = d.spec;
    fresh_spec.seed ^= 0x5EEDF2E5ull;
    fresh_spec.name += "-fresh";
    fresh = make_dataset(fresh_spec);
    fresh_absMN = product_f64(fresh.M, fresh.N, true);
  }

  const isolation::ChildReport rep = isolation::run_isolated(
      [&] { return run_checks(*backend, r, spec, d, absMN, fresh, fresh_absMN, check); }, timeout);
  return judge(rep, r, spec, d, absMN, fresh, fresh_absMN, timeout);
}


}  // namespace
}  // namespace tilelab

int main(int argc, char** argv) { return tilelab::run(argc, argv); }
