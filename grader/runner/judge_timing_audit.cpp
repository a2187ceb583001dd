#include "judge_timing_audit.hpp"

#include <cstdio>

#include "judge_result.hpp"  // set_hint

namespace tilelab::judge {

nlohmann::json stats_json(const TimingStats& t, const Shape& s, double peak_gflops) {
  namespace f = schema::impl_timing;
  nlohmann::json out;
  schema::Writer<schema::ImplTiming> j(out);
  j.set(f::name, t.name).set(f::runs, t.runs);
  if (t.launches >= 0) j.set(f::launches, t.launches);
  if (t.wall_median_ms > 0) j.set(f::wall_median_ms, t.wall_median_ms);
  if (!t.model.is_null()) j.set(f::model, t.model);
  if (t.median_ms <= 0) return out;
  const double gflops = s.flops() / (t.median_ms * 1e6);
  j.set(f::median_ms, t.median_ms).set(f::mean_ms, t.mean_ms).set(f::stderr_ms, t.stderr_ms).set(f::min_ms, t.min_ms);
  j.set(f::gflops, gflops).set(f::pct_of_peak, peak_gflops > 0 ? 100.0 * gflops / peak_gflops : 0.0);
  return out;
}

namespace {

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
  // Every call is on the same shape: an honest kernel launches the same grid on each, and the grid
  // the product's launch has at the timed shape (grid_parallelism.hpp) is seen in a worker's first call.
  for (size_t i = 1; i < calls.size(); ++i) {
    const auto launched = [&](size_t k) {
      return std::pair{calls[k].value("blocks", 0.0), calls[k].value("heaviest_launch", 0.0)};
    };
    if (launched(i) == launched(0)) continue;
    char buf[400];
    std::snprintf(buf, sizeof buf, "the kernels were not launched alike on every call of the same shape: call 1 of %zu "
                  "launched %.0f blocks (its launch %.0f doing the most work), call %zu %.0f (launch %.0f); the grid "
                  "must be the same on every call; no performance credit", calls.size(), launched(0).first,
                  launched(0).second, i + 1, launched(i).first, launched(i).second);
    return buf;
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

}  // namespace

// Returns the verdict's message, or "" when the timing is plausible.
std::string implausible_timing(ResultWriter& r, const nlohmann::json& mine, const TimingStats& t, const Audit& audit,
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

double loads_per_fma(const nlohmann::json& model, const Shape& s) {
  return model.at("counts").value("global_load_bytes", 0.0) / 4.0 / (double(s.J) * double(s.K) * double(s.L));
}

std::string untiled_loads(ResultWriter& r, const TimingStats& t, const StageSpec& spec, const Shape& s) {
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
    r.set(rf::hint, r.get(rf::hint).get<std::string>() + buf);
    std::snprintf(buf, sizeof buf, "the kernels made %.3g global loads of M and N per multiply-add on %s where this "
                  "stage allows at most %.3g: the shared tiles are too small (TILE_WIDTH %d or more meets it); "
                  "no performance credit", got, s.str().c_str(), limit, need);
    return buf;
  }
  std::snprintf(buf, sizeof buf, " Here: %.3g global loads per multiply-add where tiles of %d need at most %.3g.",
                got, spec.tile, limit);
  set_hint(r, hints::kNoSharedMemory);
  r.set(rf::hint, r.get(rf::hint).get<std::string>() + buf);
  std::snprintf(buf, sizeof buf, "the kernels made %.3g global loads of M and N per multiply-add on %s "
                "where tiles of %d need at most %.3g: the tiles in shared memory do not cut the global loads; "
                "no performance credit", got, s.str().c_str(), spec.tile, limit);
  return buf;
}

}  // namespace tilelab::judge
