// Where kernels run: the worker's side (worker.cpp) of one check. The worker serves the judge's
// requests (judge.cpp) through this interface; gpu_backend.cu implements it with the CUDA runtime,
// the CPU emulator (grader/emu) on host memory. Everything here runs in the worker's process, beside
// the code under test, so nothing it returns is believed on its own: the judge checks every P.
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tilelab/matrix.hpp"
#include "tilelab/spec.hpp"

namespace tilelab {

// One implementation of the stage contract, adapted to a uniform signature (adapter.cpp).
struct Implementation {
  const char* name;  // "solution", "starter", "submission", "reference", "previous"
  void (*launch)(const float* M, const float* N, float* P, int J, int K, int L);
  void (*host)(const float* M_h, const float* N_h, float* P_h, int Width);  // 01-basic only
};

// A CUDA (or emulated CUDA) error: the runner reports it and exits with kError.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOutcome {
  Matrix P;
  bool inputs_unchanged = true;
  nlohmann::json launch;  // grid, block, kernel resources and occupancy, as far as known
  nlohmann::json host_timing;  // run_host on a GPU: matmul_host's total and the runner's step-by-step breakdown
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  // Empty when kernels can run here; otherwise why not (the check is then skipped).
  virtual std::string unavailable() = 0;
  virtual nlohmann::json device() = 0;
  // impl.launch on device copies of M and N, P filled with NaN first (with 0 when zero_P: only to
  // tell a kernel that reads P before writing it from one that never writes); inputs checked after.
  virtual RunOutcome run(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s,
                         bool zero_P = false) = 0;
  // impl.host on host buffers (P_h filled with NaN first).
  virtual RunOutcome run_host(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s) = 0;
  // The library reference (cuBLAS FP32) on the same inputs; empty P when there is none.
  virtual RunOutcome run_library(const Matrix& M, const Matrix& N, const Shape& s) = 0;
  // Timing (docs/timing.md) in rounds the judge interleaves between workers: the inputs once, into
  // buffers kept until the backend goes (code keyed on their pointers is judged on the timed calls),
  // then one timed call at a time. impl == nullptr: the library reference. Returns the call's time
  // in ms (0 where timings mean nothing) and sets `launches` to the kernels it launched.
  virtual void time_prepare(const Matrix& M, const Matrix& N, const Shape& s) = 0;
  virtual double time_once(const Implementation* impl, int64_t& launches) = 0;
  // The timed calls' inputs made from the judge's seed (timed_inputs.hpp), into the timing buffers,
  // before a call of the implementation under test; and the P that call left, for the judge to
  // audit (audit.hpp).
  virtual void time_inputs(uint64_t seed) = 0;
  virtual Matrix time_result() = 0;
  // The emulator's count build: impl's traffic counts (of its first checked run, else of one run on
  // the timing buffers), for the judge's performance model; null elsewhere.
  virtual nlohmann::json counts(const Implementation&) { return nullptr; }
  // The emulator: impl called once at shape s (the stage's timed shape) on inputs made from seed, its
  // launches run as ever but the `launch`-th, whose configuration is returned without running it and
  // at which the call ends (tlemu::observe_launch): {"observed", "grid", "block",
  // "dynamic_shared_bytes", "launches_before"}; null elsewhere (grid_parallelism.hpp).
  virtual nlohmann::json launch_config(const Implementation&, const Shape&, int /*launch*/, uint64_t /*seed*/) {
    return nullptr;
  }
  // The emulator's count build: the seed of the blocks it samples (the judge's, per check), or
  // every block counted (exact counts, for predict-then-measure questions at small shapes).
  virtual void set_sample_seed(uint64_t, bool /*every_block*/) {}
  // The arithmetic of the library reference: "float32" (cuBLAS SGEMM, no TF32) or "tf32" (SGEMM on
  // tensor cores with TF32 inputs, the reference 07-tensor-cores is timed against).
  virtual void set_library_precision(const std::string&) {}
  virtual bool timings_meaningful() const = 0;
  // Called once before the worker enters its sandbox (sandbox.hpp): open now whatever the backend
  // will need later (the GPU's context and library handle, the emulator's symbolizer), since no
  // file can be opened after.
  virtual void before_sandbox() {}
  // What the backend found during the runs since the last call -- the CPU emulator's analyses, the
  // GPU's guard zones (a store outside M, N or P): {"build", "findings": [{kind, file, line,
  // message, hint_code, count}, ...], "hint_code", "hint", "message"}; null when nothing was found
  // or the backend does not look. Any finding fails the check.
  virtual nlohmann::json findings() { return nullptr; }
  // Set by the worker: called with an object shaped like findings() when a finding ends the process
  // (AddressSanitizer halts at its first error), so that the judge still learns of it.
  std::function<void(const nlohmann::json&)> on_fatal_findings;
};

// The backend this runner was built with (gpu_backend.cu, or the emulator's).
std::unique_ptr<Backend> make_backend();

}  // namespace tilelab
