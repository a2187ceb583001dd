// The judge: one check of one implementation on one dataset (docs/grading.md), built once per kit.
// It loads the dataset, computes the references, starts the worker that runs the code under test
// (worker.cpp, a program of its own: worker_client.hpp) and hands it M and N; it checks every P the
// worker gives back against the float64 reference with the rule of docs/grading.md, times the
// implementation against the reference worker's, and alone writes the JSON result. Nothing the
// worker says is believed where it could earn a point: P is checked here, timings are checked
// against the judge's own clock and the launch counts (docs/integrity.md). Its exit code is one of
// grader/contract.toml.
#include <signal.h>
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <numeric>
#include <optional>
#include <random>

#include "backend.hpp"  // RunOutcome, DeviceError
#include "host_traffic.hpp"  // kLaunchArgAllowance
#include "perf_model.hpp"
#include "traffic_json.hpp"
#include "worker_client.hpp"
#include "tilelab/dataset.hpp"
#include "tilelab/random.hpp"  // mix: the drawn shape
#include "tilelab/diagnose.hpp"
#include "tilelab/audit.hpp"
#include "tilelab/contract.hpp"
#include "tilelab/result.hpp"
#include "tilelab/spec.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {
namespace {

// Where a check's time goes, written as the result's "seconds" (wall time of each step, in order):
// what an instructor reads to see why a check is slow (docs/performance.md, grading times).
struct Laps {
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  void operator()(nlohmann::json& r, const char* step) {
    const auto now = std::chrono::steady_clock::now();
    r["seconds"][step] = std::round(std::chrono::duration<double>(now - last).count() * 1000) / 1000;
    last = now;
  }
};
Laps g_laps;

std::string g_result_path;
bool g_host_function = false;  // the stage grades matmul_host: a crash's hint may point there

// Timed calls whose P the judge checked (audit.hpp), how many of them were wrong, the judge's own
// time on them, and the largest Freivalds ratio seen (a correct product's is far below 1).
struct Audit {
  int checked = 0, wrong = 0;
  double seconds = 0, max_ratio = 0;
};

struct TimingStats {
  std::string name;
  int runs = 0;
  double median_ms = 0, mean_ms = 0, stderr_ms = 0, min_ms = 0;
  // Kernel launches the implementation made during its `runs` timed calls (warm-up excluded), as
  // its worker's launch probe saw them; -1 when not counted (the library reference). Fewer launches
  // than calls means some timed calls did none of the product (the judge then gives no credit).
  int64_t launches = -1;
  // The judge's own clock around each timed call, request to reply (median): an upper bound on
  // the call's time that the worker cannot shrink.
  double wall_median_ms = 0;
  // The emulator's count build: the counts and the modelled time (perf_model.hpp) that stand for
  // median_ms; null elsewhere.
  nlohmann::json model;
};

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

// A hint whose text is fixed (grader/contract.toml).
void set_hint(nlohmann::json& r, const Hint& h) {
  r["hint_code"] = h.code;
  r["hint"] = h.text;
}

void print_wrong(const CheckReport& rep, const char* what) {
  std::cout << what << ": " << rep.wrong << " of " << rep.checked << " elements wrong ("
            << rep.not_finite << " NaN/Inf)";
  if (rep.values_withheld) {  // a hidden dataset's: where, not what
    std::cout << "; values of a hidden dataset are not shown\n";
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

// One implementation's timing; without times (the emulator) only its calls and launches.
nlohmann::json stats_json(const TimingStats& t, const Shape& s, double peak_gflops) {
  nlohmann::json j = {{"name", t.name}, {"runs", t.runs}};
  if (t.launches >= 0) j["launches"] = t.launches;
  if (t.wall_median_ms > 0) j["wall_median_ms"] = t.wall_median_ms;
  if (!t.model.is_null()) j["model"] = t.model;
  if (t.median_ms <= 0) return j;
  const double gflops = s.flops() / (t.median_ms * 1e6);
  j.update({{"median_ms", t.median_ms}, {"mean_ms", t.mean_ms}, {"stderr_ms", t.stderr_ms}, {"min_ms", t.min_ms},
            {"gflops", gflops}, {"pct_of_peak", peak_gflops > 0 ? 100.0 * gflops / peak_gflops : 0.0}});
  return j;
}

// The count build counts every call the judge checks (counted_calls): an honest kernel does the same
// work on each, so calls whose loads per multiply-add or modelled times differ by more than a quarter
// are a kernel that works less where it hopes not to be counted (a later call, as the first one is
// the one it expects counted). Within a call, every block's loads are summed exactly and the detailed
// counts come from a sample: a sample that loaded less than three quarters of the grid's mean is a
// kernel whose blocks differ by more than edge tiles do (corner blocks, always sampled, load at least
// half a block's share; they are 4 of about 20). Returns the verdict's message, or "".
std::string uneven_work(const nlohmann::json& model) {
  const nlohmann::json& calls = model.value("calls", nlohmann::json::array());
  if (calls.empty()) return "";
  size_t lo = 0, hi = 0, slow = 0, fast = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const auto loads = [&](size_t k) { return calls[k].value("global_loads_per_fma", 0.0); };
    const auto ms = [&](size_t k) { return calls[k].value("ms", 0.0); };
    if (loads(i) < loads(lo)) lo = i;
    if (loads(i) > loads(hi)) hi = i;
    if (ms(i) < ms(fast)) fast = i;
    if (ms(i) > ms(slow)) slow = i;
    const double sampled = calls[i].value("sampled_global_loads_per_fma", 0.0);
    if (sampled < 0.75 * loads(i)) {
      char buf[400];
      std::snprintf(buf, sizeof buf, "in call %zu of %zu the blocks sampled for the detailed counts loaded %.3g global "
                    "floats per multiply-add where the whole grid loaded %.3g: the kernel's blocks did not do the "
                    "same work; no performance credit", i + 1, calls.size(), sampled, loads(i));
      return buf;
    }
  }
  const double l_lo = calls[lo].value("global_loads_per_fma", 0.0), l_hi = calls[hi].value("global_loads_per_fma", 0.0);
  const double t_fast = calls[fast].value("ms", 0.0), t_slow = calls[slow].value("ms", 0.0);
  char buf[400];
  if (l_hi > 1.25 * l_lo) {
    std::snprintf(buf, sizeof buf, "the kernels did not do the same work on every call: call %zu of %zu loaded %.3g "
                  "global floats per multiply-add, call %zu %.3g; every call is counted and the slowest stands for "
                  "the kernel; no performance credit", lo + 1, calls.size(), l_lo, hi + 1, l_hi);
    return buf;
  }
  if (t_slow > 1.25 * t_fast) {
    std::snprintf(buf, sizeof buf, "the kernels did not do the same work on every call: call %zu of %zu models at "
                  "%.3g ms, call %zu at %.3g ms; every call is counted and the slowest stands for the kernel; no "
                  "performance credit", fast + 1, calls.size(), t_fast, slow + 1, t_slow);
    return buf;
  }
  return "";
}

// A timing that does not stand for the kernels' own work earns nothing. Each rule reads what the
// judge saw or computed itself, so the worker cannot talk its way past it, and grades sharing the
// GPU cannot trip or hide it:
//  - timed calls that launched fewer kernels than there were calls (some did none of the product:
//    e.g. code that launches only the first time it sees a set of pointers);
//  - a timed call whose P, checked after the fact, is wrong for the inputs of its own it was given
//    (a result cached from an earlier call, or work left for a later one);
//  - a speed above the device's peak for the stage's precision (FP32 cores, or TF32 tensor cores);
//  - a reported time far below what the judge's own clock saw each call take (a patched timer);
//  - on the emulator's count build, kernels that loaded less of M and N than any product needs
//    (the product was computed elsewhere; zero traffic would otherwise model as near-peak speed);
//  - on the count build, kernels that did not do the same work on every call it counted, or whose
//    sampled blocks loaded less than the grid as a whole (uneven_work).
// Returns the verdict's message, or "" when the timing is plausible.
std::string implausible_timing(nlohmann::json& r, const nlohmann::json& mine, const TimingStats& t, const Audit& audit,
                               const Shape& s, double peak_gflops, const char* peak_name) {
  if (t.launches >= 0 && t.runs > 0 && t.launches < t.runs) {
    set_hint(r, hints::kWorkSkipped);
    return "the timed calls did not all compute the product: " + std::to_string(t.launches) +
           " kernel launch" + (t.launches == 1 ? "" : "es") + " in " + std::to_string(t.runs) +
           " timed calls of launch_matmul; no performance credit";
  }
  if (audit.wrong > 0) {
    set_hint(r, hints::kStaleResult);
    return "wrong in " + std::to_string(audit.wrong) + " of the " + std::to_string(audit.checked) +
           " timed calls checked (each had inputs of its own): the timed calls did not compute the product; "
           "no performance credit";
  }
  char buf[300];
  const double pct = mine.value("pct_of_peak", 0.0);
  if (peak_gflops > 0 && pct > 100.0) {
    std::snprintf(buf, sizeof buf, "timed at %.0f GFLOP/s, %.0f%% of this GPU's %s peak (%.0f GFLOP/s)",
                  mine.value("gflops", 0.0), pct, peak_name, peak_gflops);
    set_hint(r, hints::kFasterThanPeak);
    return std::string(buf) + ": faster than the hardware can do the product; no performance credit";
  }
  // A legitimate call's reply comes within its kernel time plus the flush, the launch and one round
  // trip of the channel (tens of microseconds): a quarter of the wall time less half a millisecond is
  // far below any honest report.
  if (t.wall_median_ms > 0 && t.median_ms < 0.25 * t.wall_median_ms - 0.5) {
    std::snprintf(buf, sizeof buf, "the timed calls reported %.3f ms each, but each took %.3f ms by the grader's clock",
                  t.median_ms, t.wall_median_ms);
    set_hint(r, hints::kTimerMismatch);
    return std::string(buf) + "; no performance credit";
  }
  if (!t.model.is_null()) {
    const double loaded = t.model["counts"].value("global_load_bytes", 0.0);
    const double needed = 4.0 * double(s.J * s.K + s.K * s.L);
    if (loaded < 0.5 * needed) {
      std::snprintf(buf, sizeof buf, "the kernels loaded %.0f bytes of the %.0f in M and N", loaded, needed);
      set_hint(r, hints::kKernelDidNotLoad);
      return std::string(buf) + ": the product was not computed by the kernels; no performance credit";
    }
    const std::string uneven = uneven_work(t.model);
    if (!uneven.empty()) {
      set_hint(r, hints::kUnevenWork);
      return uneven;
    }
  }
  return "";
}

// Global loads of M and N per multiply-add of the product, from a model's counts: the 4-byte floats
// the lanes asked for (global_load_bytes / 4) over J*K*L. Untiled 2; tiles of width T, 2/T.
double loads_per_fma(const nlohmann::json& model, const Shape& s) {
  return model.at("counts").value("global_load_bytes", 0.0) / 4.0 / (double(s.J) * double(s.K) * double(s.L));
}

// What shared memory is for (docs/integrity.md): where the count build counted the kernels' loads,
// they must fall as the stage's tiles promise (stage.toml max_global_loads_per_fma). Returns the
// verdict's message, or "" when they do (or nothing was counted).
// Two ways to miss the limit, told apart (issue #40, item 6): the operands do not go through tiles
// (no shared memory read, or loads cut by less than half: a tile of width T makes 2/T, so at most 1
// means tiles at least 2 wide of both M and N) -- `no-shared-memory`; or they do, and the tiles are
// too narrow -- `tiles-too-small`, naming the width the limit needs: the book's tiled kernel loads
// 2/T per multiply-add, so T >= 2/limit, rounded up to a power of two (the widths a block of T x T
// threads and the stages' width_multiple allow; 16 for limit 1.5 x 2/16).
std::string untiled_loads(nlohmann::json& r, const TimingStats& t, const StageSpec& spec, const Shape& s) {
  if (spec.max_global_loads_per_fma <= 0 || t.model.is_null()) return "";
  const double got = loads_per_fma(t.model, s), limit = spec.max_global_loads_per_fma;
  if (got <= limit) return "";
  char buf[600];
  if (t.model.at("counts").value("shared_loads", 0.0) > 0 && got <= 1.0) {
    int need = 1;
    while (2.0 / need > limit) need *= 2;
    std::snprintf(buf, sizeof buf, " Here: %.3g global loads per multiply-add, as tiles about %.3g wide make (2/%.3g), "
                  "where this stage allows at most %.3g: TILE_WIDTH %d or more (2/%d = %.3g) meets it.",
                  got, 2.0 / got, 2.0 / got, limit, need, need, 2.0 / need);
    set_hint(r, hints::kTilesTooSmall);
    r["hint"] = r["hint"].get<std::string>() + buf;
    std::snprintf(buf, sizeof buf, "the kernels made %.3g global loads of M and N per multiply-add on %s where this "
                  "stage allows at most %.3g: the shared tiles are too small (TILE_WIDTH %d or more meets it); "
                  "no performance credit", got, s.str().c_str(), limit, need);
    return buf;
  }
  std::snprintf(buf, sizeof buf, " Here: %.3g global loads per multiply-add where tiles of %d need at most %.3g.",
                got, spec.tile, limit);
  set_hint(r, hints::kNoSharedMemory);
  r["hint"] = r["hint"].get<std::string>() + buf;
  std::snprintf(buf, sizeof buf, "the kernels made %.3g global loads of M and N per multiply-add on %s "
                "where tiles of %d need at most %.3g: the tiles in shared memory do not cut the global loads; "
                "no performance credit", got, s.str().c_str(), spec.tile, limit);
  return buf;
}

// A backend's findings (Backend::findings): the emulator's kept under "emulator", the GPU guard
// zones' under "guard"; true when there is one, which fails the check with the hint about the
// first to fix.
bool record_findings(nlohmann::json& r, const nlohmann::json& found) {
  if (found.is_null()) return false;
  r[found.value("build", "") == "gpu" ? "guard" : "emulator"] = found;
  for (const auto& f : found.value("warnings", nlohmann::json::array()))  // reported; they fail nothing
    std::cout << f.value("file", "") << ":" << f.value("line", 0) << ": warning: " << f.value("kind", "")
              << ": " << f.value("message", "") << "\n";
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

// docs/integrity.md, "The product is computed by a kernel": what one call moved between host and
// device memory (host_traffic.hpp, reported by either backend) may be a small table or a few values,
// never a product or the inputs to compute one on the host. The allowance is an eighth of P, at
// least 256 bytes (a __constant__ table of 64 floats, a few values copied back to print) and at most
// 4 KiB: below an eighth of P the host carries or computes at most an eighth of the product, which
// the kernels must then complete. Below 256 bytes of P (Width 8) the floor could carry it all, so
// copies back have a floor of one word instead (host_return_allowance): a host that cannot read M
// and N back cannot compute the product it would upload.
int64_t host_allowance(const Shape& s) { return std::clamp<int64_t>(s.J * s.L * 4 / 8, 256, 4096); }
int64_t host_return_allowance(const Shape& s) { return std::clamp<int64_t>(s.J * s.L * 4 / 8, 4, 4096); }
int64_t bytes_of(const nlohmann::json& t, const char* key) { return t.value(key, int64_t(0)); }

// launch_matmul: uploads (copies into device buffers and symbols; 8 bytes a memset, which sets a
// value of the host's choosing), and copies back, each within the allowance; pinned host memory
// held during the call counts in both directions, as a kernel reads and writes it directly.
// Empty when within; else the message.
std::string host_traffic_problem(const nlohmann::json& launch, const Shape& s) {
  if (!launch.contains("host_traffic")) return "";
  const nlohmann::json& t = launch["host_traffic"];
  const int64_t pinned = bytes_of(t, "pinned_bytes"), allowance = host_allowance(s),
                back = host_return_allowance(s), args = bytes_of(t, "kernel_argument_bytes");
  const int64_t in = bytes_of(t, "to_device_bytes") + 8 * bytes_of(t, "memsets") + pinned,
                out = bytes_of(t, "to_host_bytes") + pinned;
  if (in <= allowance && out <= back) return "";
  return "launch_matmul moved " + std::to_string(in) + " bytes from host memory into device memory" +
         (args ? " (" + std::to_string(args) + " in kernel arguments beyond " + std::to_string(kLaunchArgAllowance) +
                     " bytes a launch or " + std::to_string(kLaunchArgCallAllowance) + " a call)"
               : "") +
         " and " + std::to_string(out) + " bytes from device memory back to the host" +
         (pinned ? " (" + std::to_string(pinned) + " of each: pinned host memory, which kernels read and write directly)" : "") +
         "; a call may move at most " + std::to_string(allowance) + " bytes in and " + std::to_string(back) +
         " back: the product must be computed by kernels, not on the host";
}

// matmul_host: at least one launch; its uploads carry words of M_h and N_h (others within the
// allowance, 8 bytes a memset); every word of P_h came back from device memory by a copy.
std::pair<Hint, std::string> host_function_problem(const nlohmann::json& launch, const Shape& s) {
  if (launch.value("launches", int64_t(0)) <= 0) return {hints::kHostNoKernel, "matmul_host launched no kernel"};
  if (!launch.contains("host_traffic")) return {hints::kHostNoKernel, ""};
  const nlohmann::json& t = launch["host_traffic"];
  const int64_t foreign = bytes_of(t, "foreign_bytes_to_device") + 8 * bytes_of(t, "memsets");
  // The volume: M_h, N_h (and P_h as received) once each, plus the allowance. Words of M_h and N_h
  // in an order of the host's choosing would otherwise encode any product (a bit a word).
  const int64_t uploaded = bytes_of(t, "to_device_bytes") + 8 * bytes_of(t, "memsets"),
                inputs = (s.J * s.K + s.K * s.L + s.J * s.L) * 4;
  if (uploaded > inputs + host_allowance(s))
    return {hints::kHostComputedProduct,
            "matmul_host moved " + std::to_string(uploaded) + " bytes into device memory" +
                (bytes_of(t, "kernel_argument_bytes")
                     ? " (" + std::to_string(bytes_of(t, "kernel_argument_bytes")) + " in kernel arguments beyond " +
                           std::to_string(kLaunchArgAllowance) + " bytes a launch or " +
                           std::to_string(kLaunchArgCallAllowance) + " a call)"
                     : std::string()) +
                ", more than M_h, N_h and P_h once each and " +
                std::to_string(host_allowance(s)) + " bytes besides (" + std::to_string(inputs + host_allowance(s)) +
                ")"};
  if (foreign > host_allowance(s))
    return {hints::kHostComputedProduct, "matmul_host copied " + std::to_string(foreign) +
                                             " bytes to the device that are not M_h's or N_h's, more than the " +
                                             std::to_string(host_allowance(s)) + " a call may"};
  if (const int64_t missing = bytes_of(t, "result_words_not_from_device"); missing > 0)
    return {hints::kHostComputedProduct, std::to_string(missing) +
                                             " elements of matmul_host's P_h were not copied back from device memory"};
  return {hints::kHostNoKernel, ""};
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

// The workers of one check, as the judge talks to them: the one running the code under test and,
// for a timed check, the reference worker (the stage's reference solution, the previous stage's and
// the library). Each request carries M and N; each reply's P is the judge's to check.
// FNV-1a over a file's bytes: a fixed, portable digest (0 for a file that cannot be read).
uint64_t file_digest(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return 0;
  uint64_t h = 0xcbf29ce484222325ull;
  unsigned char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    for (size_t i = 0; i < n; ++i) h = (h ^ buf[i]) * 0x100000001b3ull;
  std::fclose(f);
  return h;
}

// The shape the emulator's performance check (the perf-model check, --draw-shape) runs, counts and
// models: drawn for each grade near the stage's [performance.model] shape `model`, from the grading
// seed and the digest of the worker's file (as the sampled blocks are), so a kernel cannot single it
// out -- it is never the model's own size in any dimension, and a file cannot know its own digest.
// Each size follows the stage's [hidden] rule, one size for a square stage: where sizes are any
// number (but never a multiple of avoid_multiple_of, so tiles cross the edges), from [7/8, 1) of the
// model's size -- below it, so that a tile as wide as the model's sizes allow (06's 128) still
// covers at least 7/8 of its edge tiles, and the reference, whose tiles fit the model's shape, is
// not made slower than a kernel of smaller tiles; where sizes are multiples of multiple_of (02: 32,
// whose tiles never cross an edge), from the multiples in [5/8, 9/8] of it (256: 160, 192, 224, 288). The model's figures stay
// comparable: every implementation (the reference too) is counted on the same drawn shape, the
// thresholds are ratios to the reference, and the figures are per multiply-add of that shape.
Shape drawn_shape(const StageSpec& spec, const Shape& model, uint64_t seed) {
  const int64_t m = spec.hidden ? std::max<int64_t>(1, spec.hidden->multiple_of) : 1;
  const int64_t avoid = spec.hidden ? spec.hidden->avoid_multiple_of : 0;
  uint64_t state = mix(seed);
  auto draw = [&](int64_t size) {
    const int64_t lo = m > 1 ? std::max<int64_t>(1, (size * 5 / 8 + m - 1) / m) : std::max<int64_t>(1, size * 7 / 8);
    const int64_t hi = m > 1 ? std::max(lo, size * 9 / 8 / m) : std::max(lo, size - 1);
    int64_t v = size;
    for (int tries = 0; tries < 1000; ++tries) {  // a range with no allowed size keeps the model's
      state = mix(state);
      const int64_t c = m * (lo + int64_t(state % uint64_t(hi - lo + 1)));
      if (c != size && (avoid == 0 || c % avoid != 0)) return c;
    }
    return v;
  };
  if (spec.api == "square") {
    const int64_t w = draw(model.J);
    return {w, w, w};
  }
  const int64_t J = draw(model.J), K = draw(model.K), L = draw(model.L);
  return {J, K, L};
}

class Session {
 public:
  Session(const std::string& worker, double timeout)
      : timeout_(timeout), worker_path_(worker), mine_(worker, deadline_after(timeout > 0 ? timeout : 1e9)) {}
  // A timed check's reference worker (runners/ref-<stage>-<backend>), started when first needed.
  void set_reference(const std::string& path) { reference_path_ = path; }
  void set_precision(const std::string& precision) { precision_ = precision; }

  // The worker's greeting: backend, implementation, device; its "unavailable" when it cannot run here.
  nlohmann::json hello() {
    hello_ = mine_.call({{"op", "hello"}}).head;
    const auto& impls = hello_["impls"];
    if (!impls.is_array() || impls.size() != 1 || !impls[0].is_string())
      throw WorkerGone(WorkerGone::kGarbled, "bad greeting");
    impl_ = impls[0].get<std::string>();
    return hello_;
  }
  const std::string& impl() const { return impl_; }
  nlohmann::json confinement() const { return mine_.confinement(); }
  // The kernel's word that both filters are on (the launch filter the judge entered before exec, the
  // worker's own after its backend started) and that the worker cannot gain privileges. A filter
  // a submission installed before main could stand in for the worker's; the launch filter and
  // Landlock, which it cannot lift, are the boundary (docs/integrity.md).
  // Of what confinement() read: one reading of /proc serves the result and this test.
  static bool confined(const nlohmann::json& c) {
    return c["no_new_privs"] == true && c["seccomp_mode"] == 2 && c["seccomp_filters"].get<long>() >= 2;
  }
  std::string backend() const { return hello_.value("backend", "?"); }
  bool meaningful() const { return hello_.value("meaningful", false); }
  // The check's time limit starts now (after the references, which are the judge's own work). The
  // count build's sampled blocks are drawn from a seed made of the worker's own bytes and the grading
  // seed (docs/integrity.md): the same submission graded with the same seed is counted in the same
  // blocks, so a regrade gives the same performance points, while its kernel cannot know the seed
  // (a file cannot contain its own digest, and the grading seed is the instructor's).
  void start_clock(uint64_t grading_seed, bool every_block = false) {
    if (timeout_ > 0) mine_.set_deadline(deadline_after(timeout_));
    const uint64_t seed = file_digest(worker_path_) ^ (grading_seed * 0x9E3779B97F4A7C15ull);
    mine_.call({{"op", "sample_seed"}, {"seed", seed}, {"every_block", every_block}});
  }

  RunOutcome run(const Dataset& d, bool zero_P = false) {
    return outcome(mine_, {{"op", "run"}, {"impl", impl_}, {"zero_P", zero_P}}, d);
  }
  RunOutcome run_host(const Dataset& d) { return outcome(mine_, {{"op", "host"}, {"impl", impl_}}, d); }
  nlohmann::json findings() {
    const nlohmann::json f = mine_.call({{"op", "findings"}}).head.value("findings", nlohmann::json());
    return f.is_object() && f.contains("findings") && f["findings"].is_array() ? f : nlohmann::json();
  }
  // The library reference's P (cuBLAS), from the reference worker; empty where there is none.
  Matrix library(const Dataset& d) {
    Worker* ref = reference();
    if (!ref || !ref_hello_.value("library", false)) return {};
    const Shape& s = d.spec.shape;
    wire::Message m = ref->call(request({{"op", "library"}}, s), {&d.M.data, &d.N.data}, size_t(s.J * s.L));
    Matrix P;
    if (m.mats.size() == 1) P = Matrix(s.J, s.L), P.data = std::move(m.mats[0]);
    return P;
  }
  std::vector<TimingStats> time(const Dataset& d, const StageSpec& spec, Audit& audit);

 private:
  static wire::Deadline deadline_after(double s) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
  }
  static nlohmann::json request(nlohmann::json h, const Shape& s) {
    h.update({{"J", s.J}, {"K", s.K}, {"L", s.L}});
    return h;
  }
  RunOutcome outcome(Worker& w, const nlohmann::json& head, const Dataset& d) {
    const Shape& s = d.spec.shape;
    wire::Message m = w.call(request(head, s), {&d.M.data, &d.N.data}, size_t(s.J * s.L));
    if (m.mats.size() != 1) throw WorkerGone(WorkerGone::kGarbled, "no P in the reply");
    RunOutcome o;
    o.P = Matrix(s.J, s.L);
    o.P.data = std::move(m.mats[0]);
    o.inputs_unchanged = m.head.value("inputs_unchanged", false);
    if (m.head.contains("launch") && m.head["launch"].is_object()) o.launch = m.head["launch"];
    if (m.head.contains("host_timing")) o.host_timing = m.head["host_timing"];
    return o;
  }
  // Started at the first timed request, where there is one to start: runners/ref-<stage>-<backend>.
  Worker* reference() {
    if (!ref_ && !reference_path_.empty() && std::filesystem::exists(reference_path_)) {
      ref_ = std::make_unique<Worker>(reference_path_, deadline_after(timeout_ > 0 ? timeout_ : 1e9));
      ref_hello_ = ref_->call({{"op", "hello"}}).head;
      if (!ref_hello_.value("unavailable", std::string("?")).empty()) ref_.reset();
      else if (ref_hello_.value("library", false))
        ref_->call({{"op", "library_precision"}, {"precision", precision_}});
    }
    return ref_.get();
  }

  double timeout_;
  std::string precision_ = "float32";  // the stage's: the library reference computes in it (cuBLAS TF32)
  std::string worker_path_;
  Worker mine_;
  std::string reference_path_;
  std::unique_ptr<Worker> ref_;
  nlohmann::json hello_, ref_hello_;
  std::string impl_;
};

TimingStats summarize(const std::string& name, std::vector<double> v) {
  TimingStats t;
  t.name = name;
  t.runs = int(v.size());
  if (v.empty()) return t;
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= std::max<double>(1, double(v.size()) - 1);
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  t.median_ms = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  t.mean_ms = mean;
  t.stderr_ms = std::sqrt(var / double(n));
  t.min_ms = v.front();
  return t;
}

// The count build's counts of every call of one implementation (the checked runs and the timed
// calls, in order) as one model: the call that models slowest stands for the kernel, and each call's
// time and loads per multiply-add are kept under "calls" (uneven_work() compares them), with the
// sampled blocks' estimate of its loads beside the exact figure.
nlohmann::json counted_calls(const nlohmann::json& calls, const Shape& s) {
  nlohmann::json worst, each = nlohmann::json::array();
  for (const auto& c : calls) {
    const tlemu::TrafficCounts tc = c.get<tlemu::TrafficCounts>();
    nlohmann::json m = perf_model(tc, s);
    const double fmas = double(s.J) * double(s.K) * double(s.L);
    each.push_back({{"ms", m["model"].value("ms", 0.0)}, {"global_loads_per_fma", tc.global_load_bytes / 4 / fmas},
                    {"sampled_global_loads_per_fma", tc.sampled_global_load_bytes / 4 / fmas}});
    if (worst.is_null() || m["model"].value("ms", 0.0) > worst["model"].value("ms", 0.0)) worst = std::move(m);
  }
  worst["calls"] = each;
  return worst;
}

// Times the implementation under test, the reference solution, the previous stage's and the
// library, interleaved call by call (docs/timing.md): each worker times its own calls (CUDA events,
// L2 flushed), the judge keeps the samples, its own clock around each call and the launch counts.
// On the emulator (times mean nothing) the implementation is called as often, its launches counted,
// and the count build's traffic stands for every implementation's time (perf_model.hpp).
std::vector<TimingStats> Session::time(const Dataset& d, const StageSpec& spec, Audit& audit) {
  const Shape& s = d.spec.shape;
  const PerfSpec& perf = spec.perf;
  // Every call of the implementation under test gets inputs of its own (timed_inputs.hpp), from a
  // seed drawn here after the previous call returned; the P of the last call and of up to six
  // others, chosen after the fact, is audited (audit.hpp) with choices drawn after the call too.
  std::random_device entropy;
  std::mt19937_64 rng((uint64_t(entropy()) << 32) ^ entropy());
  const double audit_share = meaningful() ? 5.0 / std::max(1, perf.min_runs) : 1.0;
  struct Entry {
    Worker* w;
    std::string impl;  // "" = the library
    std::string name;
    std::vector<double> ms, wall;
    int64_t launches = 0;
  };
  std::vector<Entry> entries = {{&mine_, impl_, impl_, {}, {}, 0}};
  mine_.call(request({{"op", "time_prepare"}}, s), {&d.M.data, &d.N.data});
  if (Worker* ref = reference()) {
    ref->call(request({{"op", "time_prepare"}}, s), {&d.M.data, &d.N.data});
    for (const auto& i : ref_hello_["impls"]) entries.push_back({ref, i.get<std::string>(), i.get<std::string>(), {}, {}, 0});
    if (ref_hello_.value("library", false) && meaningful()) entries.push_back({ref, "", "cublas", {}, {}, -1});
  }
  auto once = [&](Entry& e, bool counted, bool last = false) {
    const bool fresh = counted && &e == &entries[0];
    const uint64_t seed = rng();
    if (fresh) e.w->call({{"op", "time_inputs"}, {"seed", seed}});
    const auto t0 = std::chrono::steady_clock::now();
    const wire::Message m = e.w->call({{"op", "time_once"}, {"impl", e.impl}});
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (fresh && (last || (audit.checked < 6 && std::uniform_real_distribution<double>(0, 1)(rng) < audit_share))) {
      wire::Message res = e.w->call({{"op", "time_result"}}, {}, size_t(s.J * s.L));
      if (res.mats.size() != 1) throw WorkerGone(WorkerGone::kGarbled, "no P in the reply");
      Matrix P(s.J, s.L);
      P.data = std::move(res.mats[0]);
      const auto a0 = std::chrono::steady_clock::now();
      const TimedAudit a = audit_timed_call(P, seed, s, spec.rule, spec.tile, rng());
      audit.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
      ++audit.checked;
      audit.max_ratio = std::max(audit.max_ratio, a.freivalds_ratio);
      if (!a.pass) {
        ++audit.wrong;
        std::printf("timed call %d: not the product of its inputs: %lld of %lld rows outside Freivalds' bound "
                    "(the worst %.3g times it), %lld of %lld sampled elements wrong, relative Frobenius error %.3g\n",
                    int(e.ms.size()) + 1, (long long)a.freivalds_failed, (long long)s.J, a.freivalds_ratio,
                    (long long)a.rows.wrong, (long long)a.rows.checked, a.rows.rel_fro_error);
      }
    }
    if (!counted) return;
    e.ms.push_back(std::max(0.0, m.head.value("ms", 0.0)));
    e.wall.push_back(wall);
    if (e.launches >= 0) e.launches += std::max<int64_t>(0, m.head.value("launches", int64_t(0)));
  };
  std::vector<TimingStats> out;
  if (!meaningful()) {
    // The emulator: the implementation under test is called as a GPU's timing loop calls it (a
    // warm-up, then two timed calls on the same buffers, each with inputs of its own, both
    // audited); the others are only counted.
    for (int call = 0; call <= 2; ++call) once(entries[0], call > 0, true);
    for (Entry& e : entries) {
      TimingStats t;
      t.name = e.name;
      if (&e == &entries[0]) t.runs = int(e.ms.size()), t.launches = e.launches;
      const nlohmann::json c = e.w->call({{"op", "counts"}, {"impl", e.impl}}).head.value("counts", nlohmann::json());
      if (c.is_object() && c.contains("calls") && c["calls"].is_array() && !c["calls"].empty()) {
        t.model = counted_calls(c["calls"], s);
        t.median_ms = t.mean_ms = t.min_ms = t.model["model"].value("ms", 0.0);
      } else if (&e != &entries[0]) {
        continue;
      }
      out.push_back(t);
    }
    return out;
  }
  for (Entry& e : entries) once(e, false);  // warm-up: module load, cuBLAS heuristics
  const auto stop_at = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (int round = 1; round <= perf.max_runs; ++round) {
    bool settled = round >= perf.min_runs;
    for (const Entry& e : entries) {
      const TimingStats t = summarize(e.name, e.ms);
      settled = settled && t.stderr_ms <= perf.target_rel_stderr * t.mean_ms;
    }
    // The round after the estimates settled (or time ran out) is the last: its call is audited.
    const bool last = round == perf.max_runs || (round > perf.min_runs && (settled || std::chrono::steady_clock::now() > stop_at));
    for (Entry& e : entries) once(e, true, last);
    if (last) break;
  }
  for (const Entry& e : entries) {
    TimingStats t = summarize(e.name, e.ms);
    t.launches = e.launches;
    t.wall_median_ms = summarize(e.name, e.wall).median_ms;
    out.push_back(t);
  }
  return out;
}

// The checks of one dataset, against the worker: every P it hands back is checked here.
int run_checks(Session& w, nlohmann::json& r, const StageSpec& spec, const Dataset& d, const std::vector<double>& absMN,
               const Dataset& fresh, const std::vector<double>& fresh_absMN, const std::string& check) {
  const Shape& s = d.spec.shape;
  try {
    RunOutcome out = w.run(d);
    g_laps(r, "first_run");
    r["launch"] = out.launch;
    Checked k = check_outcome(out, d, absMN, spec);
    r["kernel"] = to_json(k.report);
    r["inputs_unchanged"] = k.inputs_unchanged;
    bool pass = k.report.pass;
    Diagnosis diag = refine(k.diagnosis, out.launch, s, spec, [&] { return check_outcome(w.run(d, true), d, absMN, spec).report.pass; });
    if (!pass) print_wrong(k.report, "launch_matmul");

    nlohmann::json host_launch;  // matmul_host's launches and traffic
    if (spec.host_function && check == "correct") {
      RunOutcome hout = w.run_host(d);
      host_launch = hout.launch;
      Checked h = check_outcome(hout, d, absMN, spec);
      r["host"] = to_json(h.report);
      if (!hout.host_timing.is_null()) r["host"]["timing"] = hout.host_timing;
      if (!h.report.pass) {
        print_wrong(h.report, "matmul_host");
        if (pass) diag = Diagnosis::of_host(h.diagnosis, "matmul_host: " + h.diagnosis.hint +
                                            " (launch_matmul alone passed: check the copies, sizes in bytes, "
                                            "and the copy of P back to P_h.)");
        pass = false;
      }
    }
    r["hint_code"] = diag.code;
    r["hint"] = diag.hint;
    const nlohmann::json found = w.findings();
    if (record_findings(r, found)) return finish(r, kError, found.value("message", "the backend found an error"));
    // Host code that stores through a device pointer crashes on a GPU; the emulator, whose device
    // memory is host memory, finds the stores between device operations and gives the same verdict.
    if (out.launch.value("host_stores_into_device", int64_t(0)) > 0) {
      if (r.contains("host")) r["host"]["pass"] = false;
      set_hint(r, hints::kHostStoredDevice);
      return finish(r, kError, "host code stored through a device pointer during launch_matmul (a GPU crashes there)");
    }
    if (!pass) return finish(r, kWrong, "wrong result on " + d.spec.name + " (" + s.str() + ")");
    // The product is the kernels' work: a right P from a call that launched nothing was computed on
    // the host (on the emulator, host code can reach P; on a GPU it copies P back and forth).
    // matmul_host's round trip around a product no kernel computed earns nothing either.
    const bool no_kernel = out.launch.value("launches", int64_t(0)) <= 0,
               host_wrote = out.launch.value("host_copies_into_P", int64_t(0)) > 0;
    if ((no_kernel || host_wrote) && r.contains("host")) r["host"]["pass"] = false;
    if (no_kernel) {
      set_hint(r, hints::kNoKernel);
      return finish(r, kWrong, "launch_matmul launched no kernel");
    }
    if (host_wrote) {
      set_hint(r, hints::kHostWroteP);
      return finish(r, kWrong, "P was written by a copy from the host during launch_matmul, not by a kernel");
    }
    if (const std::string moved = host_traffic_problem(out.launch, s); !moved.empty()) {
      if (r.contains("host")) r["host"]["pass"] = false;
      set_hint(r, hints::kHostTraffic);
      return finish(r, kWrong, moved);
    }
    if (r.contains("host")) {
      const auto [hint, problem] = host_function_problem(host_launch, s);
      if (!problem.empty()) {
        r["host"]["pass"] = false;
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
    if (!lib.data.empty()) r["library_check"] = to_json(check_product(lib, d.P, absMN, s, spec.rule, spec.tile));
    Audit audit;
    // The emulator's count build counts every call it checks (counted_calls), the fresh inputs' too:
    // that call is made before the counts are read, at the end of time(), and checked below.
    std::optional<RunOutcome> fresh_first;
    if (!w.meaningful()) fresh_first = w.run(fresh);
    const std::vector<TimingStats> stats = w.time(d, spec, audit);
    g_laps(r, "timing");
    const bool tf32 = spec.precision == "tf32";
    const double peak = r["device"].value(tf32 ? "tf32_peak_gflops" : "fp32_peak_gflops", 0.0);
    nlohmann::json timing = {{"meaningful", w.meaningful()}, {"flops", s.flops()}};
    for (const auto& t : stats) {
      timing["impls"][t.name] = stats_json(t, s, peak);
      if (!t.model.is_null()) {
        timing["basis"] = "model";  // modelled times (the emulator's count build)
        timing["impls"][t.name]["global_loads_per_fma"] = loads_per_fma(t.model, s);
      }
    }
    auto median = [&](const std::string& name) {
      return timing["impls"].contains(name) ? timing["impls"][name].value("median_ms", 0.0) : 0.0;
    };
    const double mine = median(w.impl());
    if (mine > 0) {
      if (median("reference") > 0) timing["ratio_to_reference"] = median("reference") / mine;
      if (median("previous") > 0) timing["ratio_to_previous"] = median("previous") / mine;
      if (median("cublas") > 0) timing["ratio_to_cublas"] = median("cublas") / mine;
    }
    r["timing"] = timing;

    // ---- the timed code must still compute: fresh inputs of the same shape, checked again ----
    RunOutcome again = fresh_first ? std::move(*fresh_first) : w.run(fresh);
    Checked f = check_outcome(again, fresh, fresh_absMN, spec);
    g_laps(r, "fresh_inputs");
    r["fresh_inputs"] = to_json(f.report);
    if (!f.report.pass) {
      set_hint(r, hints::kStaleResult);
      print_wrong(f.report, "fresh inputs");
      return finish(r, kWrong, fresh_first ? "wrong on fresh inputs of the same shape" : "wrong on fresh inputs after timing");
    }
    if (const std::string moved = host_traffic_problem(again.launch, s); !moved.empty()) {
      set_hint(r, hints::kHostTraffic);
      return finish(r, kWrong, moved);
    }
    r["timing"]["audited_calls"] = audit.checked;
    if (audit.checked > 0) {  // the judge's own time per audited call, and how close a call came to the bound
      r["timing"]["audit_ms"] = std::round(1e4 * audit.seconds / audit.checked) / 10;
      r["timing"]["audit_max_ratio"] = audit.max_ratio;
    }
    const std::string implausible =
        stats.empty() ? "" : implausible_timing(r, timing["impls"][w.impl()], stats.front(), audit, s, peak,
                                                          tf32 ? "TF32 tensor-core" : "FP32");
    if (!implausible.empty()) return finish(r, kWrong, implausible);
    if (spec.max_global_loads_per_fma > 0 && timing.value("basis", "") == "model")
      r["timing"]["max_global_loads_per_fma"] = spec.max_global_loads_per_fma;
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
    r["hint_code"] = dg.code;
    r["hint"] = dg.hint;
    try {
      record_findings(r, w.findings());
    } catch (const std::exception&) {
    }
    return finish(r, kError, e.what());
  }
}

// A run of the emulator that passed its time limit, told from the progress it reported
// (grader/emu/progress.hpp; issue #26, item 2). Hung: nothing finished (no thread, no barrier, no
// block) in the last quarter of the limit (at least 1 s) -- an endless loop; the hint stays the
// fixed `timeout` one, and the grader stops the stage's other checks. Slow: the kernel was still
// finishing threads, barriers and blocks -- said with how far it got, at what pace, and, where its
// phases outnumber those the product needs, by how much; hint_code `too-slow`, and the grader runs
// the stage's other checks. The verdict is `timeout` either way (the page is written by the process
// that runs the code under test: it words the verdict, never changes it).
int timed_out(nlohmann::json& r, const WorkerGone& g, double timeout, const Shape& s, int tile) {
  const std::string limit = "the run did not finish within " + std::to_string(int(timeout)) + " s";
  const tlemu::Progress& p = g.progress;
  if (p.magic != tlemu::kProgressMagic || !p.attached || p.launches == 0) {
    set_hint(r, hints::kTimeout);
    return finish(r, kTimeout, limit);
  }
  const double stalled = double(g.at_ns - p.last_progress_ns) * 1e-9;
  const double ran = std::max(1e-3, double(g.at_ns - p.launch_start_ns) * 1e-9);
  const auto text = [](const char* c, size_t n) { return std::string(c, strnlen(c, n)); };
  const std::string kernel = text(p.kernel, sizeof p.kernel);
  const std::string blocks = std::to_string(p.blocks_done) + " of its " + std::to_string(p.blocks_total) + " blocks";
  const bool hung = stalled > std::max(1.0, 0.25 * timeout);
  char buf[512];
  if (hung) {
    std::snprintf(buf, sizeof buf,
                  ": the kernel hung -- for the last %.0f s no thread finished and no __syncthreads() was "
                  "passed (%s had finished %s, and %llu threads of the next)",
                  stalled, kernel.c_str(), blocks.c_str(), (unsigned long long)p.threads_done);
    set_hint(r, hints::kTimeout);
    r["progress"] = {{"hung", true}, {"blocks_done", p.blocks_done}, {"blocks_total", p.blocks_total}};
    return finish(r, kTimeout, limit + buf);
  }
  const double pace = double(p.blocks_done) / ran;  // blocks per second
  std::string why = limit + ": the kernel was not hung but too slow for the emulator -- " + kernel + " had finished " +
                    blocks + " in " + std::to_string(int(ran + 0.5)) + " s";
  if (pace > 0 && p.blocks_total > p.blocks_done) {
    std::snprintf(buf, sizeof buf, " (about %.0f s for the whole launch at that pace)", double(p.blocks_total) / pace);
    why += buf;
  }
  const uint64_t phases = p.phases_per_block ? p.phases_per_block : p.phases;
  const int64_t needed = tile > 0 ? (s.K + tile - 1) / tile : 0;
  std::string hint = "The emulator runs every thread on the CPU, so a kernel that does far more work than the "
                     "product needs runs out of time here although a GPU runs it fast.";
  if (needed > 0 && tile <= 32 && phases > uint64_t(2 * needed) && p.phase_line > 0) {
    std::snprintf(buf, sizeof buf, "; each block runs %llu phases (the __syncthreads() at line %lld is passed %llu "
                  "times) where ceil(K/%d) = %lld are needed (K = %lld)",
                  (unsigned long long)phases, (long long)p.phase_line, (unsigned long long)phases, tile,
                  (long long)needed, (long long)s.K);
    why += buf;
    std::snprintf(buf, sizeof buf, " %llu phases where ceil(K/%d) = %lld are needed: the phase loop's bound must come "
                  "from K, the length of each dot product, alone (not J, L or max(J, K, L)). The extra phases "
                  "load zeros, so P is right, but they are wasted work on a GPU too.",
                  (unsigned long long)phases, tile, (long long)needed);
    hint += buf;
  }
  r["hint_code"] = hints::kTooSlow.code;
  r["hint"] = hint;
  r["progress"] = {{"hung", false}, {"blocks_done", p.blocks_done}, {"blocks_total", p.blocks_total},
                   {"phases_per_block", phases}, {"phases_needed", needed}, {"seconds", ran}};
  return finish(r, kTimeout, why);
}

// A worker that did not answer: hung, crashed, exited or garbled its channel.
int worker_gone(nlohmann::json& r, const WorkerGone& g, double timeout, const Shape& s, int tile) {
  switch (g.kind) {
    case WorkerGone::kTimeout:
      return timed_out(r, g, timeout, s, tile);
    case WorkerGone::kCrashed:
      set_hint(r, g_host_function ? hints::kCrash : hints::kCrashKernel);
      return finish(r, kError, std::string("the program crashed (") + g.what() + ") during the run");
    case WorkerGone::kExited:
      set_hint(r, hints::kExitedEarly);
      return finish(r, kError, "the program exited (code " + std::to_string(g.exit_code) + ") before it reported a result");
    case WorkerGone::kSandboxed:
      set_hint(r, hints::kSandbox);
      return finish(r, kError, std::string("the sandbox stopped the program at a system call grading does not allow (") +
                                   g.what() + ")");
    case WorkerGone::kGarbled:
      break;
  }
  set_hint(r, hints::kGarbledChannel);
  return finish(r, kError, "the run's channel to the grader was garbled");
}

int run(int argc, char** argv, nlohmann::json& r) {
  ::signal(SIGPIPE, SIG_IGN);  // a worker that is gone is an answer, not the judge's end
  CLI::App app{"tilelab judge: checks (and times) one implementation of one stage on one dataset"};
  std::string worker_path, reference_path, spec_path, dataset_dir, check = "correct", json_path;
  int hidden_index = -1;
  uint64_t seed = 0;
  double timeout = 0;
  app.add_option("--worker", worker_path, "the worker that runs the implementation (runners/run-<impl>-<stage>-<backend>)")
      ->required();
  app.add_option("--reference-worker", reference_path,
                 "the reference worker of a timed check (default: ref-<stage>-<backend> beside this judge)");
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
  LaunchOptions launch;
  app.add_flag("--sealed", launch.sealed,
               "a grading seed is set: refuse to run the code under test where it cannot be confined (no Landlock)");
  app.add_flag("--tool-attached", launch.tool_attached,
               "the worker runs under compute-sanitizer: allow its injected library's socket and /tmp files");
  bool draw_shape = false;
  app.add_flag("--draw-shape", draw_shape,
               "with --shape: the emulator's performance check, on a shape drawn near J K L from --seed and the "
               "worker's digest (drawn_shape); the check is still named by J K L")
      ->needs(shape_opt);
  bool every_block = false;
  app.add_flag("--count-every-block", every_block,
               "the emulator's count build counts every block, not a sample: exact counts (predict-then-measure)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    if (rc == 0) return 0;
    // The grader's own command line is bad (e.g. a --seed that is not a number): a bad_input result
    // is still written where --json says, so the check is reported as a grading error and never
    // as a check that died without a result (the student's crash).
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--json" && i + 1 < argc) g_result_path = argv[i + 1];
      else if (a.rfind("--json=", 0) == 0) g_result_path = a.substr(7);
    }
    r = base_result("?", "?", "?");
    return finish(r, kBadInput, std::string("the grader's command line for this check is bad: ") + e.what());
  }
  g_result_path = json_path;
  set_launch_options(launch);
  if (dataset_dir.empty() && hidden_index < 0 && shape.empty()) {
    r = base_result("?", "?", check);
    return finish(r, kBadInput, "the grader's command line for this check is bad: give --dataset DIR, "
                                "--hidden INDEX --seed S, or --shape J K L");
  }

  std::string stage_id = "?";
  std::string dataset_name = hidden_index >= 0 ? "hidden" + std::to_string(hidden_index)
                             : !shape.empty()  ? "shape"
                                               : std::filesystem::path(dataset_dir).filename().string();
  r = base_result(stage_id, dataset_name, check);
  StageSpec spec;
  Dataset d;
  try {
    spec = load_stage_spec(spec_path);
    g_host_function = spec.host_function;
    r["stage"] = stage_id = spec.id;
    if (hidden_index >= 0) {
      d = make_dataset(spec.hidden_dataset(seed, hidden_index));
    } else if (!shape.empty()) {
      DatasetSpec ds;
      ds.stage = spec.id;
      ds.shape = {shape[0], shape[1], shape[2]};
      if (draw_shape && ds.shape.J > 0 && ds.shape.K > 0 && ds.shape.L > 0) {
        r["model_shape"] = {{"J", ds.shape.J}, {"K", ds.shape.K}, {"L", ds.shape.L}};
        ds.shape = drawn_shape(spec, ds.shape, file_digest(worker_path) ^ mix(seed ^ 0x5348415045ull));
      }
      ds.name = ds.shape.str();
      ds.seed = seed ? seed : 1;
      if (ds.shape.J < 1 || ds.shape.K < 1 || ds.shape.L < 1) throw BadInput("--shape: sizes must be >= 1");
      d = make_dataset(ds);
    } else {
      d = read_dataset(dataset_dir);
    }
    r["dataset"] = d.spec.name;
    g_laps(r, "dataset");
    if (spec.api == "square" && !d.spec.shape.square())
      throw BadInput("stage " + spec.id + " takes square matrices; dataset is " + d.spec.shape.str());
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  }
  const Shape& s = d.spec.shape;
  r["shape"] = {{"J", s.J}, {"K", s.K}, {"L", s.L}};
  try {
    Session w(worker_path, timeout);
    // Greeted first: a backend that cannot run here (no GPU) says so before the references are
    // computed (at 4096^3 they take the CPU about a minute, which a skip does not need).
    const nlohmann::json hello = w.hello();
    g_laps(r, "worker_start");
    r["confinement"] = w.confinement();
    if (!Session::confined(r["confinement"])) return finish(r, kError, "runner error: the worker is not confined (" + r["confinement"].dump() + ")");
    r["impl"] = w.impl();
    r["backend"] = w.backend();
    const std::string unavailable = hello.value("unavailable", std::string());
    if (!unavailable.empty()) {
      // The worker runs the code under test, which may say "no GPU here" to be skipped (a skipped
      // check's points are left out). Believed only when the grader's own worker of the same backend
      // (the stage's reference worker, trusted code) cannot run here either.
      // The backend from the runner's own name (run-<impl>-<stage>-<backend>), not from its greeting.
      const std::string file = std::filesystem::path(worker_path).filename().string();
      const size_t at = file.rfind("-" + spec.id + "-");
      const std::string backend = at == std::string::npos ? "" : file.substr(at + spec.id.size() + 2);
      const auto ref = std::filesystem::read_symlink("/proc/self/exe").parent_path() / ("ref-" + spec.id + "-gpu");
      const bool emulated = backend.rfind("emu", 0) == 0;  // the emulator runs everywhere
      if (!emulated && (!std::filesystem::exists(ref) ||
                        !Worker(ref.string(), std::chrono::steady_clock::now() + std::chrono::seconds(120))
                             .call({{"op", "hello"}})
                             .head.value("unavailable", std::string("?"))
                             .empty()))
        return finish(r, kSkipped, unavailable);
      set_hint(r, hints::kCrash);
      return finish(r, kError, "your program said it cannot run here (\"" + unavailable.substr(0, 200) +
                                   "\"), but the grader's own program runs on this machine: the code under test may not "
                                   "decide whether it is checked");
    }
    r["device"] = hello.value("device", nlohmann::json::object());

    // Everything the verdict is judged against is made here, in the judge's own process.
    // A performance dataset's references were made with it, once (has_perf_references); a dataset
    // without them (a hidden one, --shape, an older datasets folder) has them computed here.
    const std::vector<double>& absMN = abs_product(d);
    Dataset fresh;  // its absMN stays empty where there is no timed check
    if (check == "perf") {  // the timed code must still compute: fresh inputs of the same shape
      g_laps(r, "references");
      const bool stored = !dataset_dir.empty() && has_perf_references(dataset_dir);
      fresh = stored ? read_dataset(std::filesystem::path(dataset_dir) / "fresh") : make_dataset(fresh_spec(d.spec));
      g_laps(r, "fresh_dataset");
      abs_product(fresh);
    }
    if (check == "perf")
      // Beside the judge, not beside the worker: a grading tree that takes the kit prebuilt
      // (TILELAB_KIT) has its workers in its own runners/ and the judge and the references in the
      // kit's, which no submission's process can write.
      w.set_reference(!reference_path.empty() ? reference_path
                      : (std::filesystem::read_symlink("/proc/self/exe").parent_path() /
                         ("ref-" + spec.id + "-" + w.backend())).string());
    w.set_precision(spec.precision);
    g_laps(r, check == "perf" ? "fresh_references" : "references");
    w.start_clock(seed, every_block);
    return run_checks(w, r, spec, d, absMN, fresh, fresh.absMN, check);
  } catch (const WorkerGone& g) {
    return worker_gone(r, g, timeout, s, spec.tile);
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  } catch (const std::exception& e) {
    return finish(r, kError, std::string("runner error: ") + e.what());
  }
}

}  // namespace
}  // namespace tilelab

// The result is written here, after run() has returned and its workers are killed and reaped, so
// nothing a worker left running can write after it.
int main(int argc, char** argv) {
  // No process of the same user (a worker of this or another grade) may read the judge's memory,
  // its environment or its open files through /proc or ptrace.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  nlohmann::json r;
  const int rc = tilelab::run(argc, argv, r);
  if (!tilelab::g_result_path.empty() && r.contains("verdict")) tilelab::write_result(tilelab::g_result_path, r);
  return rc;
}
