// The CPU emulator backend (docs/emulator.md): the same runner as on a GPU, with the
// kernels run by grader/emu's runtime on host memory. Its times mean nothing and are never taken;
// what it adds are findings -- barrier divergence, skipped barriers and, depending on the build,
// out-of-bounds accesses or shared-memory races -- each naming the student's file and line.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "backend.hpp"
#include "runtime.hpp"  // the emulated CUDA runtime, before device_buffer.hpp uses it
#include "device_buffer.hpp"
#include "host_traffic.hpp"
#include "tilelab/findings.hpp"
#include "tilelab/result_schema.hpp"
#include "tilelab/timed_inputs.hpp"
#include "traffic_json.hpp"

namespace tilelab {
namespace {

// A buffer named for the emulator's findings ("M", "N", "P"), so an overrun says whose.
struct NamedBuffer : DeviceBuffer {
  NamedBuffer(size_t count, const char* name, size_t row_length) : DeviceBuffer(count) {
    tlemu::name_buffer(p, name, row_length);
  }
};

// Which finding the hint is about: the one a student should fix first.
// A finding's place in the order to fix them (contract.toml [findings] order).
int priority(const std::string& kind) {
  for (size_t i = 0; i < std::size(kFindingOrder); ++i)
    if (kind == kFindingOrder[i]) return int(i);
  return int(std::size(kFindingOrder));
}

// What to do about a finding (contract.toml [findings.advice]): a warning's, or its variant's
// (Finding::variant, e.g. a misaligned access), own text where there is one, else its hint code's.
std::string advice(const tlemu::Finding& f) {
  return finding_advice(f.hint_code, f.warning ? tilelab::finding_variants::kWarning : f.variant);
}

std::string where(const tlemu::Finding& f) {
  std::string file = f.file;
  const size_t s = file.find_last_of('/');
  if (s != std::string::npos) file = file.substr(s + 1);
  if (file.empty()) return "";
  return file + (f.line > 0 ? ":" + std::to_string(f.line) : "") + ": ";
}

// One finding of the "emulator" object, with the advice for it.
void write_finding(schema::Writer<schema::Finding> j, const tlemu::Finding& f) {
  namespace k = schema::finding;
  j.set(k::kind, f.kind).set(k::file, f.file).set(k::line, f.line).set(k::message, f.message);
  j.set(k::hint_code, f.hint_code).set(k::count, f.count).set(k::advice, advice(f));
}

// The "emulator" object of the result (grader/result_schema.toml, Analysis): every finding, and
// the hint about the first to fix. Warnings (Finding::warning) go to "warnings", with the advice
// each: they fail nothing.
nlohmann::json findings_json(std::vector<tlemu::Finding> all) {
  namespace a = schema::analysis;
  nlohmann::json out;
  schema::Writer<schema::Analysis> j(out);
  j.set(a::build, tlemu::backend_name());
  j.empty_list(a::findings);
  std::vector<tlemu::Finding> fs;
  for (auto& f : all) {
    if (!f.warning) {
      fs.push_back(std::move(f));
      continue;
    }
    write_finding(j.append(a::warnings), f);
  }
  std::stable_sort(fs.begin(), fs.end(), [](const auto& a, const auto& b) { return priority(a.kind) < priority(b.kind); });
  for (const auto& f : fs) write_finding(j.append(a::findings), f);
  if (!fs.empty()) {
    const auto& top = fs.front();
    j.set(a::hint_code, top.hint_code);
    j.set(a::hint, where(top) + top.message + ". " + advice(top));
    j.set(a::message, "the emulator found " + std::to_string(fs.size()) + " problem" + (fs.size() > 1 ? "s" : "") +
                          ": " + where(top) + top.kind);
  }
  return out;
}

class EmuBackend final : public Backend {
 public:
  EmuBackend() {
    tlemu::set_fatal_handler([this](const std::vector<tlemu::Finding>& fs) {
      if (on_fatal_findings) on_fatal_findings(findings_json(fs));
    });
    // The runtime's copies, sets and pinned allocations, for the judge's rule on what the host
    // moved (host_traffic.hpp); the runtime's kinds are the ledger's, in the same order.
    tlemu::set_memory_observer([this](const tlemu::MemoryEvent& m) {
      CopyEvent e;
      e.kind = CopyEvent::Kind(int(m.kind));
      e.dst = m.dst, e.src = m.src, e.bytes = m.bytes, e.dst_device = m.dst_device, e.src_device = m.src_device;
      ledger_.note(e);
    });
  }
  const char* name() const override { return tlemu::backend_name(); }
  bool timings_meaningful() const override { return false; }
  std::string unavailable() override { return ""; }
  void before_sandbox() override { tlemu::start_symbolizer(); }

  nlohmann::json device() override {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    return {{"name", p.name},
            {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
            {"sms", p.multiProcessorCount},
            {"emulated", true},
            {"build", tlemu::backend_name()}};
  }

  RunOutcome run(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s,
                 bool zero_P) override {
    RunOutcome out;
    // Kept until the worker ends, as every buffer handed to the code under test: no address is
    // handed out twice, so work left for a later call lands in a buffer nobody reads again.
    auto& dM = *kept_.emplace_back(std::make_unique<NamedBuffer>(M.size(), "M", size_t(s.K)));
    auto& dN = *kept_.emplace_back(std::make_unique<NamedBuffer>(N.size(), "N", size_t(s.L)));
    auto& dP = *kept_.emplace_back(std::make_unique<NamedBuffer>(size_t(s.J * s.L), "P", size_t(s.L)));
    dM.upload(M);
    dN.upload(N);
    zero_P ? dP.zero() : dP.poison();
    tlemu::watch_host_copies(dP.p, size_t(s.J * s.L) * sizeof(float));
    tlemu::set_product(dP.p, size_t(s.J * s.L) * sizeof(float));
    tlemu::start_recording();
    ledger_.begin(tlemu::pinned_held());
    impl.launch(dM.p, dN.p, dP.p, int(s.J), int(s.K), int(s.L));
    ledger_.end();
    out.launch = report(tlemu::stop_recording());
    out.launch["host_traffic"] = ledger_.report();
    out.launch["host_copies_into_P"] = tlemu::take_host_copies();
    out.launch["host_stores_into_device"] = tlemu::take_host_stores();
    tlemu::watch_host_copies(nullptr, 0);
    // Count build: every call is counted, each on its own (counts()).
    tlemu::TrafficCounts c;
    if (tlemu::take_counts(c)) calls_[impl.name].push_back(c);
    check(cudaGetLastError(), "kernel launch");
    check(cudaDeviceSynchronize(), "kernel execution");
    collect(out, dM, dN, dP, M, N, s);
    return out;
  }

  RunOutcome run_host(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s) override {
    RunOutcome out;
    HostCall in(out, M, N, s);
    tlemu::start_recording();
    ledger_.begin(0, &M.data, &N.data, &out.P.data);
    impl.host(in.M.data.data(), in.N.data.data(), out.P.data.data(), int(s.K));
    ledger_.end();
    out.launch = report(tlemu::stop_recording());
    out.launch["host_traffic"] = ledger_.report(&out.P.data);
    check(cudaGetLastError(), "after matmul_host");
    out.inputs_unchanged = in.unchanged(M, N);
    return out;
  }

  RunOutcome run_library(const Matrix&, const Matrix&, const Shape&) override { return {}; }

  // No timing (the emulator's times mean nothing), but the implementation is called as the GPU
  // backend's timing loop calls it -- on the same buffers, again and again -- and its launches are
  // counted, so code that skips the work on repeated calls is caught here too.
  void time_prepare(const Matrix& M, const Matrix& N, const Shape& s) override {
    shape_ = s;
    tM_ = std::make_unique<NamedBuffer>(M.size(), "M", size_t(s.K));
    tN_ = std::make_unique<NamedBuffer>(N.size(), "N", size_t(s.L));
    tP_ = std::make_unique<NamedBuffer>(size_t(s.J * s.L), "P", size_t(s.L));
    tM_->upload(M);
    tN_->upload(N);
  }

  // Made on the host (the emulator's device memory is host memory) and copied in, as the judge
  // makes them to audit the call.
  void time_inputs(uint64_t seed) override {
    Matrix M(shape_.J, shape_.K), N(shape_.K, shape_.L);
    const uint64_t km = timed_inputs::stream(seed, timed_inputs::kM), kn = timed_inputs::stream(seed, timed_inputs::kN);
    for (size_t e = 0; e < M.data.size(); ++e) M.data[e] = timed_inputs::value(km, e);
    for (size_t e = 0; e < N.data.size(); ++e) N.data[e] = timed_inputs::value(kn, e);
    tM_->upload(M);
    tN_->upload(N);
  }

  Matrix time_result() override {
    Matrix P(shape_.J, shape_.L);
    tP_->download(P);
    return P;
  }

  double time_once(const Implementation* impl, int64_t& launches) override {
    launches = -1;
    if (!impl) return 0;
    tlemu::set_product(tP_->p, size_t(shape_.J * shape_.L) * sizeof(float));
    tlemu::start_recording();
    impl->launch(tM_->p, tN_->p, tP_->p, int(shape_.J), int(shape_.K), int(shape_.L));
    launches = int64_t(tlemu::stop_recording().size());
    check(cudaGetLastError(), "launch while timing");
    check(cudaDeviceSynchronize(), "execution while timing");
    tlemu::TrafficCounts c;
    if (tlemu::take_counts(c)) calls_[impl->name].push_back(c);  // timed calls are counted as run()'s
    return 0;
  }

  // Count build: {"calls": [the counts of each call of impl, in order]} -- the checked runs and the
  // timed calls alike, so the judge models every call it checked, not only the first (a kernel
  // that does less work on a later call is seen there). The reference and the previous stage, never
  // called before, are called once on the timing inputs.
  nlohmann::json counts(const Implementation& impl) override {
    tlemu::TrafficCounts probe;
    if (!tlemu::take_counts(probe)) return nullptr;  // not the count build
    auto& calls = calls_[impl.name];
    if (calls.empty()) {
      tlemu::set_product(tP_->p, size_t(shape_.J * shape_.L) * sizeof(float));
      impl.launch(tM_->p, tN_->p, tP_->p, int(shape_.J), int(shape_.K), int(shape_.L));
      check(cudaGetLastError(), "launch while counting");
      tlemu::take_counts(calls.emplace_back());
    }
    return {{"calls", calls}};
  }

  // The launch configuration the code makes at the timed shape (grid_parallelism.hpp): the launches
  // before the product's run on inputs of that shape, as a timed call's would; the product's launch
  // is seen and not run, and the call ends there (tlemu::observe_launch), so no code of the call
  // learns that a launch did not run. Its buffers are never freed (the call's code may hold them); the
  // reference worker's implementations, seen one after the other, share them.
  nlohmann::json launch_config(const Implementation& impl, const Shape& s, int launch, uint64_t seed) override {
    tlemu::hold_device_open(true);  // the judge's allocations and copies: one open span
    if (!oM_ || oM_->n != size_t(s.J * s.K) || oN_->n != size_t(s.K * s.L)) {
      oM_ = kept_.emplace_back(std::make_unique<NamedBuffer>(size_t(s.J * s.K), "M", size_t(s.K))).get();
      oN_ = kept_.emplace_back(std::make_unique<NamedBuffer>(size_t(s.K * s.L), "N", size_t(s.L))).get();
      oP_ = kept_.emplace_back(std::make_unique<NamedBuffer>(size_t(s.J * s.L), "P", size_t(s.L))).get();
    }
    auto &dM = *oM_, &dN = *oN_, &dP = *oP_;
    // The timed calls' values (as time_inputs makes them), one copy per matrix: every device operation
    // protects and unprotects all device memory again (DeviceAccess), hundreds of MB at this shape.
    for (auto [buffer, stream] : {std::pair{&dM, timed_inputs::kM}, std::pair{&dN, timed_inputs::kN}}) {
      const uint64_t key = timed_inputs::stream(seed, stream);
      std::vector<float> values(buffer->n);
      for (size_t e = 0; e < values.size(); ++e) values[e] = timed_inputs::value(key, e);
      check(cudaMemcpy(buffer->p, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    }
    dP.poison();
    tlemu::hold_device_open(false);
    // Not recording (no host-store fingerprints of all device memory at each operation): the launch
    // seen is kept by the runtime (launch_observed).
    tlemu::observe_launch(std::max(1, launch));
    try {
      impl.launch(dM.p, dN.p, dP.p, int(s.J), int(s.K), int(s.L));
    } catch (const tlemu::LaunchObserved&) {
    }
    tlemu::LaunchRecord l;
    const bool seen = tlemu::launch_observed(&l);
    tlemu::observe_launch(0);
    tlemu::TrafficCounts dropped;
    tlemu::take_counts(dropped);  // the launches before the product's are not the checked calls' counts
    nlohmann::json out = {{"observed", seen}, {"launch", std::max(1, launch)}};
    if (!seen) return out;
    out["grid"] = {l.grid.x, l.grid.y, l.grid.z};
    out["block"] = {l.block.x, l.block.y, l.block.z};
    out["dynamic_shared_bytes"] = l.dynamic_shared;
    out["kernel"] = l.kernel;
    return out;
  }

  nlohmann::json findings() override { return findings_json(tlemu::take_findings()); }
  void set_sample_seed(uint64_t seed, bool every_block) override { tlemu::set_sample_seed(seed, every_block); }

 private:
  Shape shape_;                                  // time_prepare()'s
  std::unique_ptr<NamedBuffer> tM_, tN_, tP_;    // the timed calls' buffers
  std::vector<std::unique_ptr<NamedBuffer>> kept_;  // run()'s buffers
  NamedBuffer *oM_ = nullptr, *oN_ = nullptr, *oP_ = nullptr;  // launch_config()'s, of its shape
  std::map<std::string, std::vector<tlemu::TrafficCounts>> calls_;  // count build: per implementation, per call
  Ledger ledger_;  // what crossed between host and device memory in the call that runs

  // The launch report in the GPU backend's shape (launch_probe.hpp), from what the emulator saw.
  static nlohmann::json report(const std::vector<tlemu::LaunchRecord>& launches) {
    nlohmann::json out = {{"launches", launches.size()}};
    if (launches.empty()) return out;
    bool side_stream = false;
    double seconds = 0;
    for (const auto& l : launches) {
      side_stream = side_stream || !l.default_stream;
      seconds += l.seconds;
    }
    const auto& l = launches.back();
    out["non_default_stream"] = side_stream;
    out["grid"] = {l.grid.x, l.grid.y, l.grid.z};
    out["block"] = {l.block.x, l.block.y, l.block.z};
    out["dynamic_shared_bytes"] = l.dynamic_shared;
    out["kernel"] = {{"name", l.kernel}, {"static_shared_bytes", l.static_shared},
                     {"source", l.file + ":" + std::to_string(l.line)}};
    if (l.error != cudaSuccess) out["error"] = cudaGetErrorName(l.error);
    out["emulated_seconds"] = seconds;
    return out;
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<EmuBackend>(); }

}  // namespace tilelab
