// The runner: one executable per stage x implementation x backend (built by grader/CMakeLists.txt).
// It loads a dataset, runs the implementation with P poisoned by NaN, checks the result against
// the float64 reference with the rule of docs/grading.md, optionally times it, and writes one
// JSON result object. Its exit code is one of grader/exit_codes.toml.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include "backend.hpp"
#include "tilelab/dataset.hpp"
#include "tilelab/diagnose.hpp"
#include "tilelab/exit_codes.hpp"
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

// ---- last-resort reporting: a crash or a hang still leaves a result file behind ----
std::string g_result_path;
std::string g_crash_json, g_timeout_json;

void write_raw(const std::string& text) {  // async-signal-safe: open, write, rename, _exit only
  if (g_result_path.empty()) return;
  const std::string tmp = g_result_path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  ssize_t ignored = ::write(fd, text.data(), text.size());
  (void)ignored;
  ::close(fd);
  ::rename(tmp.c_str(), g_result_path.c_str());
}

extern "C" void on_fatal_signal(int sig) {
  write_raw(g_crash_json);
  const char msg[] = "tilelab: the program crashed (fatal signal); see the result file\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  ::_exit(kError);
  (void)sig;
}

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
  if (!g_result_path.empty()) write_result(g_result_path, r);
  std::cout << r.value("stage", "") << " " << r.value("dataset", "") << " " << r.value("check", "")
            << ": " << verdict_name(code) << " -- " << message << "\n";
  if (r.contains("hint") && !r["hint"].get<std::string>().empty())
    std::cout << "hint: " << r["hint"].get<std::string>() << "\n";
  if (g_result_path.empty()) std::cout << r.dump(2) << "\n";
  return code;
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
  c.diagnosis = diagnose(d.M, d.N, out.P, d.P, c.report, d.spec.shape);
  if (!c.inputs_unchanged) {
    c.report.pass = false;
    c.diagnosis = {"inputs-modified",
                   "M or N changed during the run: the kernel must only read its inputs and write P."};
  }
  return c;
}

nlohmann::json stats_json(const TimingStats& t, const Shape& s, double peak_gflops) {
  const double gflops = t.median_ms > 0 ? s.flops() / (t.median_ms * 1e6) : 0;
  return {{"name", t.name}, {"runs", t.runs},         {"median_ms", t.median_ms},
          {"mean_ms", t.mean_ms}, {"stderr_ms", t.stderr_ms}, {"min_ms", t.min_ms},
          {"gflops", gflops}, {"pct_of_peak", peak_gflops > 0 ? 100.0 * gflops / peak_gflops : 0.0}};
}

// The emulator's findings (Backend::findings): kept under "emulator"; true when there is one, which
// fails the check with the hint about the first to fix.
bool record_findings(nlohmann::json& r, const nlohmann::json& emu) {
  if (emu.is_null()) return false;
  r["emulator"] = emu;
  if (emu["findings"].empty()) return false;
  for (const auto& f : emu["findings"])
    std::cout << f["file"].get<std::string>() << ":" << f["line"].get<int>() << ": " << f["kind"].get<std::string>()
              << ": " << f["message"].get<std::string>() << "\n";
  r["hint_code"] = emu["hint_code"];
  r["hint"] = emu["hint"];
  return true;
}

int run(int argc, char** argv) {
  CLI::App app{"tilelab runner: checks (and times) one implementation of one stage on one dataset"};
  std::string spec_path, dataset_dir, check = "correct", json_path;
  int hidden_index = -1;
  uint64_t seed = 0;
  double timeout = 0;
  app.add_option("--spec", spec_path, "assignments/<stage>/stage.toml")->required();
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
  {
    nlohmann::json crash = r, hang = r;
    crash.update({{"verdict", "error"}, {"exit_code", int(kError)},
                  {"message", "the program crashed (segmentation fault, abort or similar) during the run"},
                  {"hint", "Look for an out-of-bounds access on the host side, e.g. in matmul_host, or a "
                           "null or host pointer passed to the kernel."}});
    hang.update({{"verdict", "timeout"}, {"exit_code", int(kTimeout)},
                 {"message", "the run did not finish within " + std::to_string(int(timeout)) + " s"},
                 {"hint", "A kernel or loop that never ends: check loop bounds and that every thread "
                          "reaches each __syncthreads()."}});
    g_crash_json = crash.dump(2) + "\n";
    g_timeout_json = hang.dump(2) + "\n";
  }
  backend->on_fatal_findings = [&r](const nlohmann::json& emu) {
    record_findings(r, emu);
    finish(r, kError, emu.value("message", "the emulator stopped the run"));
    std::cout.flush();  // the process ends without unwinding
  };
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_fatal_signal);
  if (timeout > 0)
    std::thread([timeout] {
      std::this_thread::sleep_for(std::chrono::duration<double>(timeout));
      write_raw(g_timeout_json);
      std::fprintf(stderr, "tilelab: timeout after %.0f s\n", timeout);
      std::_Exit(kTimeout);
    }).detach();

  StageSpec spec;
  Dataset d;
  try {
    spec = load_stage_spec(spec_path);
    r["stage"] = stage_id = spec.id;
    const std::string reason = backend->unavailable();
    if (!reason.empty()) return finish(r, kSkipped, reason);
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
  r["device"] = backend->device();

  try {
    const std::vector<double> absMN = product_f64(d.M, d.N, true);
    const Implementation& impl = tilelab_impl_under_test;
    RunOutcome out = backend->run(impl, d.M, d.N, s);
    r["launch"] = out.launch;
    Checked k = check_outcome(out, d, absMN, spec);
    r["kernel"] = to_json(k.report);
    r["inputs_unchanged"] = k.inputs_unchanged;
    bool pass = k.report.pass;
    Diagnosis diag = k.diagnosis;
    if (!pass) print_wrong(k.report, "launch_matmul");

    if (spec.host_function && impl.host && check == "correct") {
      RunOutcome hout = backend->run_host(impl, d.M, d.N, s);
      Checked h = check_outcome(hout, d, absMN, spec);
      r["host"] = to_json(h.report);
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
    if (record_findings(r, backend->findings())) return finish(r, kError, r["emulator"]["message"]);
    if (!pass) return finish(r, kWrong, "wrong result on " + d.spec.name + " (" + s.str() + ")");
    // Read from the compiled kernel's attributes (static + dynamic), never from the source text.
    if (spec.requires_shared_memory && out.launch.contains("kernel")) {
      const auto shared = out.launch["kernel"].value("static_shared_bytes", int64_t(0)) +
                          out.launch.value("dynamic_shared_bytes", int64_t(0));
      if (shared == 0) {
        r["hint_code"] = "no-shared-memory";
        r["hint"] = "The result is right, but the kernel uses no shared memory: this stage is about "
                    "loading tiles of M and N into __shared__ arrays (Mds, Nds) and reusing them.";
        return finish(r, kWrong, "kernel uses no shared memory");
      }
    }
    if (check == "correct") return finish(r, kPass, "correct on " + d.spec.name + " (" + s.str() + ")");

    // ---- perf: the library reference must itself pass the rule, then everything is timed ----
    RunOutcome lib = backend->run_library(d.M, d.N, s);
    if (!lib.P.data.empty()) r["library_check"] = to_json(check_product(lib.P, d.P, absMN, s, {}, spec.tile));
    std::vector<Implementation> timed = {impl};
#ifdef TILELAB_HAS_REFERENCE
    timed.push_back(tilelab_impl_reference);
#endif
#ifdef TILELAB_HAS_PREVIOUS
    timed.push_back(tilelab_impl_previous);
#endif
    const std::vector<TimingStats> stats = backend->time(timed, d.M, d.N, s, spec.perf);
    const double peak = r["device"].value("fp32_peak_gflops", 0.0);
    nlohmann::json timing = {{"meaningful", backend->timings_meaningful()}, {"flops", s.flops()}};
    for (const auto& t : stats) timing["impls"][t.name] = stats_json(t, s, peak);
    auto median = [&](const char* name) {
      return timing["impls"].contains(name) ? timing["impls"][name]["median_ms"].get<double>() : 0.0;
    };
    const double mine = median(impl.name);
    if (mine > 0) {
      if (median("reference") > 0) timing["ratio_to_reference"] = median("reference") / mine;
      if (median("previous") > 0) timing["ratio_to_previous"] = median("previous") / mine;
      if (median("cublas") > 0) timing["ratio_to_cublas"] = median("cublas") / mine;
    }
    r["timing"] = timing;

    // ---- the timed code must still compute: fresh inputs of the same shape, checked again ----
    DatasetSpec fresh_spec = d.spec;
    fresh_spec.seed ^= 0x5EEDF2E5ull;
    fresh_spec.name += "-fresh";
    const Dataset fresh = make_dataset(fresh_spec);
    RunOutcome again = backend->run(impl, fresh.M, fresh.N, s);
    Checked f = check_outcome(again, fresh, product_f64(fresh.M, fresh.N, true), spec);
    r["fresh_inputs"] = to_json(f.report);
    if (!f.report.pass) {
      r["hint_code"] = "stale-result";
      r["hint"] = "Correct on the dataset but wrong on fresh inputs of the same shape: the result "
                  "must be computed from M and N on every call, never reused from an earlier one.";
      print_wrong(f.report, "fresh inputs");
      return finish(r, kWrong, "wrong on fresh inputs after timing");
    }
    std::printf("%-12s %10s %10s %9s\n", "impl", "median ms", "GFLOP/s", "% peak");
    for (const auto& [name, t] : timing["impls"].items())
      std::printf("%-12s %10.4f %10.1f %8.1f%%\n", name.c_str(), t["median_ms"].get<double>(),
                  t["gflops"].get<double>(), t["pct_of_peak"].get<double>());
    return finish(r, kPass, "correct; timed " + std::to_string(stats.empty() ? 0 : stats[0].runs) + " runs");
  } catch (const DeviceError& e) {
    r["hint_code"] = "cuda-error";
    r["hint"] = "A CUDA call or the kernel failed. An illegal address usually means an index past "
                "the end of M, N or P: check the bounds tests.";
    record_findings(r, backend->findings());
    return finish(r, kError, e.what());
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  } catch (const std::exception& e) {
    return finish(r, kError, std::string("runner error: ") + e.what());
  }
}

}  // namespace
}  // namespace tilelab

int main(int argc, char** argv) { return tilelab::run(argc, argv); }
