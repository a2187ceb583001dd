#include "judge_checks.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <optional>

#include "judge_host_traffic.hpp"
#include "judge_result.hpp"
#include "judge_timing_audit.hpp"
#include "tilelab/diagnose.hpp"
#include "tilelab/result.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab::judge {

namespace {

void print_wrong(const CheckReport& rep, const char* what) {
  std::cout << what << ": " << rep.wrong << " of " << rep.checked << " elements wrong ("
            << rep.not_finite << " NaN/Inf)";
  if (rep.values_withheld) {  // a hidden dataset's, or values drawn for the grade: where, not what
    std::cout << "; values of a hidden dataset or drawn for this grade are not shown\n";
    for (const auto& w : rep.first_wrong) std::printf("  P[%lld][%lld] wrong\n", (long long)w.row, (long long)w.col);
    return;
  }
  std::cout << ", relative Frobenius error " << rep.rel_fro_error << "\n";
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
  Checked c{check_product(out.P, d.P, absMN, d.spec.shape, spec.rule, spec.tile), {}, out.inputs_unchanged};
  // A hidden dataset's values are never echoed back (CheckReport::values_withheld).
  c.report.values_withheld = std::find(d.spec.tags.begin(), d.spec.tags.end(), "hidden") != d.spec.tags.end();
  c.diagnosis = diagnose(d.M, d.N, out.P, d.P, absMN, c.report, d.spec.shape);
  if (!c.inputs_unchanged) {
    c.report.pass = false;
    c.diagnosis = hints::kInputsModified;
  }
  return c;
}

// A diagnosis made specific with what the launch report knows. grid-too-small: the launched grid
// and block against P (grid_coverage). nothing-written although a kernel ran: run it again with P
// at 0 (right_with_zero_P) -- right then means it reads P before writing it (reads_p).
template <class RightWithZeroP>
Diagnosis refine(const Diagnosis& d, const nlohmann::json& launch, const Shape& s, const StageSpec& spec,
                 RightWithZeroP right_with_zero_P) {
  const int64_t launches = launch.value("launches", int64_t(0));
  if (d.code == "grid-too-small" && launch.contains("grid") && launch.contains("block")) {
    // Said from the launch only where its threads do not reach P's edge; a grid that does (a
    // coarsened kernel has fewer threads than elements) keeps what P showed. A stage whose threads
    // each compute a row or a column (08) is judged in those: its 1-D launch is not the bug.
    const auto grid = launch["grid"].get<std::array<int64_t, 3>>(), block = launch["block"].get<std::array<int64_t, 3>>();
    if (spec.threads == "row-or-column") {
      if (Diagnosis line = line_coverage(s, grid, block); !line.code.empty()) return line;
    } else if (grid[0] * block[0] < s.L || grid[1] * block[1] < s.J) {
      return grid_coverage(s, grid, block);
    }
  }
  // nan-computed too: a GPU stores the canonical NaN of NaN + x, not the grader's fill pattern.
  if ((d.code == "nothing-written" || d.code == "nan-computed") && launches > 0 && right_with_zero_P())
    return reads_p(launches);
  return d;
}

}  // namespace

bool record_findings(ResultWriter& r, const nlohmann::json& found) {
  if (found.is_null()) return false;
  r.set(found.value("build", "") == "gpu" ? rf::guard : rf::emulator, found);
  for (const auto& f : found.value("warnings", nlohmann::json::array()))  // reported; they fail nothing
    std::cout << f.value("file", "") << ":" << f.value("line", 0) << ": warning: " << f.value("kind", "")
              << ": " << f.value("message", "") << "\n";
  if (found["findings"].empty()) return false;
  for (const auto& f : found["findings"]) {
    const std::string file = f.value("file", "");
    if (!file.empty()) std::cout << file << ":" << f.value("line", 0) << ": ";
    std::cout << f["kind"].get<std::string>() << ": " << f["message"].get<std::string>() << "\n";
  }
  r.set(rf::hint_code, found["hint_code"]);
  r.set(rf::hint, found["hint"]);
  return true;
}

int run_checks(Session& w, ResultWriter& r, const StageSpec& spec, const Dataset& d, const std::vector<double>& absMN,
               const Dataset& fresh, const std::vector<double>& fresh_absMN, const std::string& check) {
  const Shape& s = d.spec.shape;
  try {
    RunOutcome out = w.run(d);
    g_laps(r, "first_run");
    r.set(rf::launch, out.launch);
    Checked k = check_outcome(out, d, absMN, spec);
    r.set(rf::kernel, to_json(k.report));
    r.set(rf::inputs_unchanged, k.inputs_unchanged);
    bool pass = k.report.pass;
    Diagnosis diag = refine(k.diagnosis, out.launch, s, spec, [&] { return check_outcome(w.run(d, true), d, absMN, spec).report.pass; });
    if (!pass) print_wrong(k.report, "launch_matmul");

    nlohmann::json host_launch;  // matmul_host's launches and traffic
    if (spec.host_function && check == "correct") {
      RunOutcome hout = w.run_host(d);
      host_launch = hout.launch;
      Checked h = check_outcome(hout, d, absMN, spec);
      r.set(rf::host, to_json(h.report));
      if (!hout.host_timing.is_null()) r.at(rf::host).set(schema::comparison::timing, hout.host_timing);
      if (!h.report.pass) {
        print_wrong(h.report, "matmul_host");
        if (pass) diag = Diagnosis::of_host(h.diagnosis, "matmul_host: " + h.diagnosis.hint +
                                            " (launch_matmul alone passed: check the copies, sizes in bytes, "
                                            "and the copy of P back to P_h.)");
        pass = false;
      }
    }
    // A correct check given values drawn for the grade (judge.cpp: a sealed grade's public
    // dataset) runs the code on them too, so that its findings are read with the first run's.
    std::optional<Checked> graded;
    nlohmann::json graded_launch;
    if (check == "correct" && !fresh.M.data.empty() && pass) {
      const RunOutcome gout = w.run(fresh);
      graded_launch = gout.launch;
      graded = check_outcome(gout, fresh, fresh_absMN, spec);
      // A class's grading seed is shared by every grade: the values stay unshown, as a hidden
      // dataset's, so that no grade's feedback spells out another's P.
      graded->report.values_withheld = true;
      g_laps(r, "graded_values");
      r.set(rf::fresh_inputs, to_json(graded->report));
    }
    r.set(rf::hint_code, diag.code);
    r.set(rf::hint, diag.hint);
    const nlohmann::json found = w.findings();
    if (record_findings(r, found)) return finish(r, kError, found.value("message", "the backend found an error"));
    // Host code that stores through a device pointer crashes on a GPU; the emulator, whose device
    // memory is host memory, finds the stores between device operations and gives the same verdict.
    if (out.launch.value("host_stores_into_device", int64_t(0)) > 0) {
      if (r.has(rf::host)) r.at(rf::host).set(schema::comparison::pass, false);
      set_hint(r, hints::kHostStoredDevice);
      return finish(r, kError, "host code stored through a device pointer during launch_matmul (a GPU crashes there)");
    }
    if (!pass) return finish(r, kWrong, "wrong result on " + d.spec.name + " (" + s.str() + ")");
    if (graded && !graded->report.pass) {
      set_hint(r, hints::kPublishedValuesOnly);
      print_wrong(graded->report, "values drawn for this grade");
      return finish(r, kWrong, "correct on the published values of " + d.spec.name + " but not on fresh values of "
                               "the same shape (" + s.str() + ") drawn for this grade: the product must be computed "
                               "from M and N");
    }
    // The product is the kernels' work: a right P from a call that launched nothing was computed on
    // the host (on the emulator, host code can reach P; on a GPU it copies P back and forth).
    // matmul_host's round trip around a product no kernel computed earns nothing either. So on the
    // values drawn for the grade: a file that copies a published P could compute the others anyhow.
    std::vector<const nlohmann::json*> launches{&out.launch};
    if (graded) launches.push_back(&graded_launch);
    for (const nlohmann::json* launch : launches) {
      const bool no_kernel = launch->value("launches", int64_t(0)) <= 0,
                 host_wrote = launch->value("host_copies_into_P", int64_t(0)) > 0;
      if ((no_kernel || host_wrote) && r.has(rf::host)) r.at(rf::host).set(schema::comparison::pass, false);
      if (no_kernel) {
        set_hint(r, hints::kNoKernel);
        return finish(r, kWrong, "launch_matmul launched no kernel");
      }
      if (host_wrote) {
        set_hint(r, hints::kHostWroteP);
        return finish(r, kWrong, "P was written by a copy from the host during launch_matmul, not by a kernel");
      }
      if (const std::string moved = host_traffic_problem(*launch, s); !moved.empty()) {
        if (r.has(rf::host)) r.at(rf::host).set(schema::comparison::pass, false);
        set_hint(r, hints::kHostTraffic);
        return finish(r, kWrong, moved);
      }
    }
    if (r.has(rf::host)) {
      const auto [hint, problem] = host_function_problem(host_launch, s);
      if (!problem.empty()) {
        r.at(rf::host).set(schema::comparison::pass, false);
        set_hint(r, hint);
        return finish(r, kWrong, problem);
      }
    }
    // Read from the compiled kernel's attributes (static + dynamic), never from the source text.
    if (spec.requires_shared_memory && out.launch.contains("kernel")) {
      const auto shared = out.launch["kernel"].value("static_shared_bytes", int64_t(0)) +
                          out.launch.value("dynamic_shared_bytes", int64_t(0));
      if (shared == 0) {
        set_hint(r, hints::kNoSharedMemory);
        return finish(r, kWrong, "kernel uses no shared memory (a __shared__ variable it never reads takes none: "
                                 "nvcc removes it)");
      }
    }
    if (check == "correct") return finish(r, kPass, "correct on " + d.spec.name + " (" + s.str() + ")");

    // ---- perf: the library reference must itself pass the rule, then everything is timed ----
    g_laps(r, "checks");
    const Matrix lib = w.library(d);
    g_laps(r, "library");
    if (!lib.data.empty()) r.set(rf::library_check, to_json(check_product(lib, d.P, absMN, s, spec.rule, spec.tile)));
    Audit audit;
    // The emulator's count build counts every call it checks (counted_calls), the fresh inputs' too:
    // that call is made before the counts are read, at the end of time(), and checked below.
    std::optional<RunOutcome> fresh_first;
    if (!w.meaningful()) fresh_first = w.run(fresh);
    const std::vector<TimingStats> stats = w.time(d, spec, audit, [&](const char* step) { g_laps(r, step); });
    const bool tf32 = spec.precision == "tf32";
    const double peak = r.get(rf::device).value(tf32 ? "tf32_peak_gflops" : "fp32_peak_gflops", 0.0);
    namespace tf = schema::timing;
    nlohmann::json timing;
    schema::Writer<schema::Timing> tw(timing);
    tw.set(tf::meaningful, w.meaningful()).set(tf::flops, s.flops());
    for (const auto& t : stats) {
      tw.set_entry(tf::impls, t.name, stats_json(t, s, peak));
      if (!t.model.is_null()) {
        tw.set(tf::basis, "model");  // modelled times (the emulator's count build)
        tw.entry(tf::impls, t.name).set(schema::impl_timing::global_loads_per_fma, loads_per_fma(t.model, s));
      }
    }
    auto median = [&](const std::string& name) {
      return timing["impls"].contains(name) ? timing["impls"][name].value("median_ms", 0.0) : 0.0;
    };
    const double mine = median(w.impl());
    if (mine > 0) {
      if (median("reference") > 0) tw.set(tf::ratio_to_reference, median("reference") / mine);
      if (median("previous") > 0) tw.set(tf::ratio_to_previous, median("previous") / mine);
      if (median("cublas") > 0) tw.set(tf::ratio_to_cublas, median("cublas") / mine);
    }
    r.set(rf::timing, timing);

    // ---- the timed code must still compute: fresh inputs of the same shape, checked again ----
    RunOutcome again = fresh_first ? std::move(*fresh_first) : w.run(fresh);
    Checked f = check_outcome(again, fresh, fresh_absMN, spec);
    g_laps(r, "fresh_inputs");
    r.set(rf::fresh_inputs, to_json(f.report));
    if (!f.report.pass) {
      set_hint(r, hints::kStaleResult);
      print_wrong(f.report, "fresh inputs");
      return finish(r, kWrong, fresh_first ? "wrong on fresh inputs of the same shape" : "wrong on fresh inputs after timing");
    }
    if (const std::string moved = host_traffic_problem(again.launch, s); !moved.empty()) {
      set_hint(r, hints::kHostTraffic);
      return finish(r, kWrong, moved);
    }
    r.at(rf::timing).set(schema::timing::audited_calls, audit.checked);
    if (audit.checked > 0) {  // the judge's own time per audited call, and how close a call came to the bound
      r.at(rf::timing).set(schema::timing::audit_ms, std::round(1e4 * audit.seconds / audit.checked) / 10);
      r.at(rf::timing).set(schema::timing::audit_max_ratio, audit.max_ratio);
    }
    const std::string implausible =
        stats.empty() ? "" : implausible_timing(r, timing["impls"][w.impl()], stats.front(), audit, s, peak,
                                                          tf32 ? "TF32 tensor-core" : "FP32");
    if (!implausible.empty()) return finish(r, kWrong, implausible);
    if (spec.max_global_loads_per_fma > 0 && timing.value("basis", "") == "model")
      r.at(rf::timing).set(schema::timing::max_global_loads_per_fma, spec.max_global_loads_per_fma);
    const std::string untiled = stats.empty() ? "" : untiled_loads(r, stats.front(), spec, s);
    if (!untiled.empty()) return finish(r, kWrong, untiled);
    std::printf("%-12s %10s %10s %9s\n", "impl", "median ms", "GFLOP/s", "% peak");
    for (const auto& [name, t] : timing["impls"].items())
      std::printf("%-12s %10.4f %10.1f %8.1f%%\n", name.c_str(), t.value("median_ms", 0.0),
                  t.value("gflops", 0.0), t.value("pct_of_peak", 0.0));
    return finish(r, kPass, "correct; timed " + std::to_string(stats.empty() ? 0 : stats[0].runs) + " runs");
  } catch (const FatalFindings& e) {
    record_findings(r, e.findings);
    return finish(r, kError, e.findings.value("message", "the emulator stopped the run"));
  } catch (const DeviceError& e) {
    const Diagnosis dg = diagnose_cuda_error(e.what());
    r.set(rf::hint_code, dg.code);
    r.set(rf::hint, dg.hint);
    try {
      record_findings(r, w.findings());
    } catch (const std::exception&) {
    }
    return finish(r, kError, e.what());
  }
}

}  // namespace tilelab::judge
