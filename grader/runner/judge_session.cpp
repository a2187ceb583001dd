#include "judge_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>

#include "backend_facts.hpp"
#include "grid_parallelism.hpp"
#include "perf_model.hpp"
#include "traffic_json.hpp"
#include "tilelab/audit.hpp"

namespace tilelab::judge {

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

namespace {

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
// sampled blocks' estimate of its loads beside the exact figure. `k`: the registers and spills nvcc's
// back end gave the implementation's kernel (unknown where it was not read).
nlohmann::json counted_calls(const nlohmann::json& calls, const Shape& s, const KernelResources& k) {
  nlohmann::json worst, each = nlohmann::json::array();
  for (const auto& c : calls) {
    const tlemu::TrafficCounts tc = c.get<tlemu::TrafficCounts>();
    nlohmann::json m = perf_model(tc, s, k);
    const double fmas = double(s.J) * double(s.K) * double(s.L);
    each.push_back({{"ms", m["model"].value("ms", 0.0)}, {"global_loads_per_fma", tc.global_load_bytes / 4 / fmas},
                    {"sampled_global_loads_per_fma", tc.sampled_global_load_bytes / 4 / fmas},
                    {"blocks", tc.blocks}, {"heaviest_launch", tc.heaviest_launch}});
    if (worst.is_null() || m["model"].value("ms", 0.0) > worst["model"].value("ms", 0.0)) worst = std::move(m);
  }
  worst["calls"] = each;
  return worst;
}

// The stage's timed shape (its [performance] dataset's), where the grid of the product's launch is
// seen (grid_parallelism.hpp); none for a stage without one.
std::optional<Shape> timed_shape(const StageSpec& spec) {
  for (const auto& d : spec.datasets)
    if (d.name == spec.perf.dataset) return d.shape;
  return std::nullopt;
}

}  // namespace

// The product's launch at the timed shape (EmuBackend::launch_config). The code under test is seen in
// a worker of its own, started for it: its first call, as the checked run is the first call of the
// worker that counts it, so neither call can be told from the other by what came before it (calls
// that launch differently at the same shape are refused: uneven_work). A worker that does not
// answer within a quarter of the check's time (the launches before the product's run on the timed
// shape) leaves the launch unseen, which the model charges as one block. The reference worker's
// implementations, the grader's own, are seen in it.
nlohmann::json Session::timed_launch(Worker* w, const std::string& impl, const Shape& timed, int launch, uint64_t seed) {
  const nlohmann::json req = request({{"op", "launch_config"}, {"impl", impl}, {"launch", launch}, {"seed", seed}}, timed);
  try {
    if (w != &mine_) return w->call(req).head.value("launch", nlohmann::json());
    Worker fresh(worker_path_, deadline_after(timeout_ > 0 ? std::max(30.0, timeout_ / 4) : 600));
    fresh.call({{"op", "hello"}});
    return fresh.call(req).head.value("launch", nlohmann::json());
  } catch (const WorkerGone& g) {
    return {{"observed", false}, {"why", g.what()}};
  }
}

// Times the implementation under test, the reference solution, the previous stage's and the
// library, interleaved call by call (docs/timing.md): each worker times its own calls (CUDA events,
// L2 flushed), the judge keeps the samples, its own clock around each call and the launch counts.
// On the emulator (times mean nothing) the implementation is called as often, its launches counted,
// and the count build's traffic stands for every implementation's time (perf_model.hpp).
std::vector<TimingStats> Session::time(const Dataset& d, const StageSpec& spec, Audit& audit,
                                      const std::function<void(const char*)>& lap) {
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
  struct PendingAudit {
    Matrix P;
    uint64_t seed, choices;
    int call;
  };
  std::vector<PendingAudit> audits;
  auto check_audits = [&] {
    for (const PendingAudit& p : audits) {
      const auto a0 = std::chrono::steady_clock::now();
      const TimedAudit a = audit_timed_call(p.P, p.seed, s, spec.rule, spec.tile, p.choices);
      audit.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
      audit.max_ratio = std::max(audit.max_ratio, a.freivalds_ratio);
      if (!a.pass) {
        ++audit.wrong;
        std::printf("timed call %d: not the product of its inputs: %lld of %lld rows outside Freivalds' bound "
                    "(the worst %.3g times it), %lld of %lld sampled elements wrong, relative Frobenius error %.3g\n",
                    p.call, (long long)a.freivalds_failed, (long long)s.J, a.freivalds_ratio,
                    (long long)a.rows.wrong, (long long)a.rows.checked, a.rows.rel_fro_error);
      }
    }
    audits.clear();
  };
  auto once = [&](Entry& e, bool counted, bool last = false) {
    const bool fresh = counted && &e == &entries[0];
    const uint64_t seed = rng();
    if (fresh) e.w->call({{"op", "time_inputs"}, {"seed", seed}});
    const auto t0 = std::chrono::steady_clock::now();
    const wire::Message m = e.w->call({{"op", "time_once"}, {"impl", e.impl}});
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (fresh && (last || (audit.checked < 6 && std::uniform_real_distribution<double>(0, 1)(rng) < audit_share))) {
      // The call's P is taken now (the next call overwrites it) and checked after the loop, off the
      // GPU's time alone; its choices are drawn here, after the call, as ever.
      wire::Message res = e.w->call({{"op", "time_result"}}, {}, size_t(s.J * s.L));
      if (res.mats.size() != 1) throw WorkerGone(WorkerGone::kGarbled, "no P in the reply");
      Matrix P(s.J, s.L);
      P.data = std::move(res.mats[0]);
      audits.push_back({std::move(P), seed, rng(), int(e.ms.size()) + 1});
      ++audit.checked;
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
    lap("timing");
    check_audits();
    for (Entry& e : entries) {
      TimingStats t;
      t.name = e.name;
      if (&e == &entries[0]) t.runs = int(e.ms.size()), t.launches = e.launches;
      const nlohmann::json c = e.w->call({{"op", "counts"}, {"impl", e.impl}}).head.value("counts", nlohmann::json());
      if (c.is_object() && c.contains("calls") && c["calls"].is_array() && !c["calls"].empty()) {
        const auto facts = backend_facts_.find(e.name);
        const std::string facts_path = facts == backend_facts_.end() ? "" : facts->second;
        t.model = counted_calls(c["calls"], s, resources_of(facts_path));
        if (const auto timed = timed_shape(spec)) {
          const int launch = std::max(1, int(t.model["calls"][0].value("heaviest_launch", 1.0)));
          charge_timed_grid(t.model, timed_launch(e.w, e.impl, *timed, launch, rng()), *timed);
        }
        attach_backend(t.model, facts_path);
        t.median_ms = t.mean_ms = t.min_ms = t.model["model"].value("ms", 0.0);
      } else if (&e != &entries[0]) {
        continue;
      }
      out.push_back(t);
    }
    return out;
  }
  // The GPU alone from the warm-up to the last timed call, and no longer (gpu_lock.hpp): while this
  // judge queues for it without a share, its workers are stopped, so they launch nothing beside
  // another check's timing loop.
  lap("timing_prepare");
  // The wait is not the check's: its time limit starts again once it has the GPU.
  struct Alone {
    GpuLock* lock;
    Alone(GpuLock* l, const std::vector<Worker*>& workers, double timeout) : lock(l) {
      if (!lock) return;
      for (Worker* x : workers) x->pause(true);
      lock->alone();
      for (Worker* x : workers) {
        x->pause(false);
        if (timeout > 0) x->set_deadline(deadline_after(timeout));
      }
    }
    ~Alone() {
      if (lock) lock->share_again();
    }
  };
  std::vector<Worker*> ours = {&mine_};
  if (ref_) ours.push_back(ref_.get());
  std::optional<Alone> alone(std::in_place, gpu_lock_, ours, timeout_);
  lap("gpu_wait");
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
  alone.reset();
  lap("timing");
  check_audits();
  for (const Entry& e : entries) {
    TimingStats t = summarize(e.name, e.ms);
    t.launches = e.launches;
    t.wall_median_ms = summarize(e.name, e.wall).median_ms;
    out.push_back(t);
  }
  return out;
}

}  // namespace tilelab::judge
