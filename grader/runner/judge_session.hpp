// The judge's channel to its workers (worker_client.hpp): the worker running the code under test
// and, for a timed check, the reference worker; and the timing loop that calls them in turn.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <functional>

#include "backend.hpp"  // RunOutcome
#include "gpu_lock.hpp"
#include "worker_client.hpp"
#include "tilelab/dataset.hpp"
#include "tilelab/spec.hpp"

namespace tilelab::judge {

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

// FNV-1a over a file's bytes: a fixed, portable digest (0 for a file that cannot be read).
uint64_t file_digest(const std::string& path);

// The workers of one check, as the judge talks to them: the one running the code under test and,
// for a timed check, the reference worker (the stage's reference solution, the previous stage's and
// the library). Each request carries M and N; each reply's P is the judge's to check.
class Session {
 public:
  Session(const std::string& worker, double timeout)
      : timeout_(timeout), worker_path_(worker), mine_(worker, deadline_after(timeout > 0 ? timeout : 1e9)) {}
  // A timed check's reference worker (runners/ref-<stage>-<backend>), started when first needed.
  void set_reference(const std::string& path) { reference_path_ = path; }
  void set_precision(const std::string& precision) { precision_ = precision; }
  // The count build: nvcc's back end on each implementation's file (backend_facts.hpp), the facts
  // document's path by implementation name (the one under test, reference, previous).
  void set_backend_facts(std::map<std::string, std::string> paths) { backend_facts_ = std::move(paths); }
  // The machine's GPU lock, shared since before the workers started: time() holds it alone around
  // its timing loop. nullptr: no lock (the emulator, whose times mean nothing).
  void set_gpu_lock(GpuLock* lock) { gpu_lock_ = lock; }

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
  // `lap` is called at the end of each of its steps (the result's seconds): on a GPU
  // "timing_prepare" (the reference worker started, the inputs uploaded), "gpu_wait" (for the GPU
  // alone) and "timing" (the loop, with the GPU alone); on the emulator "timing". The audited calls'
  // P are checked after the loop (the Audit's figures).
  std::vector<TimingStats> time(const Dataset& d, const StageSpec& spec, Audit& audit,
                                const std::function<void(const char*)>& lap);

 private:
  static wire::Deadline deadline_after(double s) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
  }
  static nlohmann::json request(nlohmann::json h, const Shape& s) {
    h.update({{"J", s.J}, {"K", s.K}, {"L", s.L}});
    return h;
  }
  // The emulator: the launch configuration of impl's `launch`-th launch at the timed shape (grid_parallelism.hpp).
  nlohmann::json timed_launch(Worker* w, const std::string& impl, const Shape& timed, int launch, uint64_t seed);
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
  std::map<std::string, std::string> backend_facts_;
  std::string precision_ = "float32";  // the stage's: the library reference computes in it (cuBLAS TF32)
  std::string worker_path_;
  Worker mine_;
  std::string reference_path_;
  std::unique_ptr<Worker> ref_;
  nlohmann::json hello_, ref_hello_;
  GpuLock* gpu_lock_ = nullptr;
  std::string impl_;
};

}  // namespace tilelab::judge
