// The GPU backend: CUDA runtime, cuBLAS FP32 as the library reference (reference worker only),
// CUDA-event timing with the L2 flushed before every run (method: docs/timing.md).
#ifdef TILELAB_WITH_LIBRARY
#include <cublas_v2.h>
#endif
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>
#include <numeric>

#include "backend.hpp"
#include "device_buffer.hpp"
#include "tilelab/timed_inputs.hpp"
#include "launch_probe.hpp"

namespace tilelab {
namespace {

using tilelab::check;  // the CUDA-runtime overload, beside this one for cuBLAS

#ifdef TILELAB_WITH_LIBRARY
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}
#endif

int fp32_lanes_per_sm(int major, int minor) {
  if (major >= 9 || (major == 8 && minor >= 6)) return 128;  // Ada, Hopper, Blackwell; GA10x
  return 64;                                                 // Volta, Turing, GA100
}

// Dense TF32 tensor-core FLOPs per SM per clock, at or above NVIDIA's figures: GA100 1024 (156
// TFLOP/s on 108 SMs at 1.41 GHz), GA10x and Ada at most 512, Hopper 2048 (495 TFLOP/s on 132 SMs
// at 1.83 GHz), Blackwell 4096. The TF32 stage's ceiling for a timed speed (judge: faster than peak).
int tf32_flops_per_sm_clock(int major, int minor) {
  if (major >= 10) return 4096;
  if (major == 9) return 2048;
  if (major == 8) return minor == 0 ? 1024 : 512;
  return 0;  // no TF32 tensor cores: no ceiling from them
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The steps of a host function like matmul_host, each timed alone by the runner itself (wall clock,
// the device synchronised after each step), with the implementation's own launch as the kernel: what
// the copies cost next to the kernel (the lesson of PMPP's host code). Shown beside matmul_host's
// own total; the student's function is a black box, so its parts cannot be timed inside it.
nlohmann::json host_breakdown(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s) {
  const size_t bM = M.size() * sizeof(float), bN = N.size() * sizeof(float), bP = size_t(s.J * s.L) * sizeof(float);
  std::vector<float> P_h(size_t(s.J * s.L));
  float *dM = nullptr, *dN = nullptr, *dP = nullptr;
  check(cudaDeviceSynchronize(), "before the transfer breakdown");
  auto t = Clock::now();
  check(cudaMalloc(&dM, bM), "cudaMalloc");
  check(cudaMalloc(&dN, bN), "cudaMalloc");
  check(cudaMalloc(&dP, bP), "cudaMalloc");
  check(cudaDeviceSynchronize(), "cudaMalloc");
  const double alloc = ms_since(t);
  t = Clock::now();
  check(cudaMemcpy(dM, M.data.data(), bM, cudaMemcpyHostToDevice), "cudaMemcpy M");
  check(cudaMemcpy(dN, N.data.data(), bN, cudaMemcpyHostToDevice), "cudaMemcpy N");
  const double copy_in = ms_since(t);
  t = Clock::now();
  impl.launch(dM, dN, dP, int(s.J), int(s.K), int(s.L));
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel execution");
  const double kernel = ms_since(t);
  t = Clock::now();
  check(cudaMemcpy(P_h.data(), dP, bP, cudaMemcpyDeviceToHost), "cudaMemcpy P");
  const double copy_out = ms_since(t);
  t = Clock::now();
  cudaFree(dM);
  cudaFree(dN);
  cudaFree(dP);
  const double release = ms_since(t);
  return {{"alloc_ms", alloc}, {"copy_in_ms", copy_in}, {"kernel_ms", kernel},
          {"copy_out_ms", copy_out}, {"free_ms", release}, {"bytes_in", bM + bN}, {"bytes_out", bP}};
}

// The timed calls' inputs of their own (timed_inputs.hpp): element e of the operand whose key is
// `key`, the same bits the judge makes on the host to audit the call.
__global__ void make_timed_input(float* dst, uint64_t key, uint64_t n) {
  for (uint64_t e = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += uint64_t(gridDim.x) * blockDim.x)
    dst[e] = timed_inputs::value(key, e);
}

class GpuBackend final : public Backend {
 public:
  const char* name() const override { return "gpu"; }
  bool timings_meaningful() const override { return true; }
  void set_library_precision(const std::string& precision) override {
    tf32_ = precision == "tf32";
#ifdef TILELAB_WITH_LIBRARY
    if (handle_) apply_math_mode();
#endif
  }

  std::string unavailable() override {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    if (n == 0) return "no CUDA device on this machine";
    check(cudaGetDeviceProperties(&prop_, 0), "cudaGetDeviceProperties");
    return "";
  }

  void before_sandbox() override {
    if (!unavailable().empty()) return;
    check(cudaFree(nullptr), "cudaFree (creating the context)");
#ifdef TILELAB_WITH_LIBRARY
    library_handle();
#endif
  }

  nlohmann::json device() override {
    int clock_khz = 0, mem_clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    const double peak = double(prop_.multiProcessorCount) * fp32_lanes_per_sm(prop_.major, prop_.minor) *
                        2.0 * clock_khz * 1e3;
    return {{"name", prop_.name},
            {"compute_capability", std::to_string(prop_.major) + "." + std::to_string(prop_.minor)},
            {"sms", prop_.multiProcessorCount},
            {"clock_mhz", clock_khz / 1000},
            {"l2_bytes", prop_.l2CacheSize},
            {"fp32_peak_gflops", peak / 1e9},
            {"tf32_peak_gflops", double(prop_.multiProcessorCount) * tf32_flops_per_sm_clock(prop_.major, prop_.minor) *
                                     clock_khz * 1e3 / 1e9},
            {"driver", driver},
            {"runtime", runtime},
            // What cudaGetDeviceProperties reports for the limits of PMPP section 4.7 (the graded
            // questions' `gpu = true` ones read these; regsPerBlock is one block's limit, not an SM's).
            {"regs_per_sm", prop_.regsPerMultiprocessor},
            {"regs_per_block", prop_.regsPerBlock},
            {"shared_per_sm", prop_.sharedMemPerMultiprocessor},
            {"shared_per_block", prop_.sharedMemPerBlock},
            {"shared_per_block_optin", prop_.sharedMemPerBlockOptin},
            {"max_threads_per_sm", prop_.maxThreadsPerMultiProcessor},
            {"max_blocks_per_sm", prop_.maxBlocksPerMultiProcessor},
            {"max_threads_per_block", prop_.maxThreadsPerBlock},
            {"max_grid_y", prop_.maxGridSize[1]},
            {"warp_size", prop_.warpSize}};
  }

  RunOutcome run(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s,
                 bool zero_P) override {
    RunOutcome out;
    // Guard zones around M, N and P find a store past an edge that lands in no other allocation
    // (farther ones are illegal addresses): the emulator's "global-overrun", with the same hint.
    const size_t nP = size_t(s.J * s.L);
    // Kept until the worker ends, as every buffer handed to the code under test: no address is
    // handed out twice, so work left for a later call lands in a buffer nobody reads again.
    auto& dM = *kept_.emplace_back(std::make_unique<DeviceBuffer>(M.size(), guard_for(M.size()), !unwritten_guards_));
    auto& dN = *kept_.emplace_back(std::make_unique<DeviceBuffer>(N.size(), guard_for(N.size()), !unwritten_guards_));
    auto& dP = *kept_.emplace_back(std::make_unique<DeviceBuffer>(nP, guard_for(nP), !unwritten_guards_));
    dM.upload(M);
    dN.upload(N);
    zero_P ? dP.zero() : dP.poison();
    check(cudaDeviceSynchronize(), "before the launch");
    probe::watch(dP.p, nP * sizeof(float));
    probe::start_recording();
    probe::ledger().begin(probe::pinned_held());
    impl.launch(dM.p, dN.p, dP.p, int(s.J), int(s.K), int(s.L));
    probe::ledger().end();
    probe::stop_recording();
    const size_t host_copies = probe::copies_into_watched();
    probe::watch(nullptr, 0);
    check(cudaGetLastError(), "kernel launch");
    check(cudaDeviceSynchronize(), "kernel execution");
    collect(out, dM, dN, dP, M, N, s);
    note_overruns({{"M", &dM}, {"N", &dN}, {"P", &dP}});
    out.launch = probe::report(prop_);
    out.launch["host_copies_into_P"] = host_copies;
    out.launch["host_traffic"] = probe::ledger().report();
    return out;
  }

  nlohmann::json findings() override {
    nlohmann::json f = std::move(found_);
    found_ = nullptr;
    return f;
  }

  RunOutcome run_host(const Implementation& impl, const Matrix& M, const Matrix& N, const Shape& s) override {
    RunOutcome out;
    HostCall in(out, M, N, s);
    check(cudaDeviceSynchronize(), "before matmul_host");
    // Its launches and its traffic, as launch_matmul's (the judge: docs/integrity.md, "The product
    // is computed by a kernel"); the launches of host_breakdown below are not its.
    probe::start_recording();
    probe::ledger().begin(0, &M.data, &N.data, &out.P.data);
    const auto t0 = Clock::now();
    impl.host(in.M.data.data(), in.N.data.data(), out.P.data.data(), int(s.K));
    check(cudaGetLastError(), "after matmul_host");
    check(cudaDeviceSynchronize(), "after matmul_host");
    const double total = ms_since(t0);
    probe::ledger().end();
    probe::stop_recording();
    out.launch = probe::report(prop_);
    out.launch["host_traffic"] = probe::ledger().report(&out.P.data);
    out.inputs_unchanged = in.unchanged(M, N);
    out.host_timing = host_breakdown(impl, M, N, s);
    out.host_timing["matmul_host_ms"] = total;
    return out;
  }

  RunOutcome run_library(const Matrix& M, const Matrix& N, const Shape& s) override {
    RunOutcome out;
    DeviceBuffer dM(M.size()), dN(N.size()), dP(size_t(s.J * s.L));
    dM.upload(M);
    dN.upload(N);
    dP.poison();
    cublas(dM.p, dN.p, dP.p, int(s.J), int(s.K), int(s.L));
    check(cudaDeviceSynchronize(), "cuBLAS SGEMM");
    out.P = Matrix(s.J, s.L);
    dP.download(out.P);
    return out;
  }

  void time_prepare(const Matrix& M, const Matrix& N, const Shape& s) override {
    shape_ = s;
    tM_ = std::make_unique<DeviceBuffer>(M.size());
    tN_ = std::make_unique<DeviceBuffer>(N.size());
    tP_ = std::make_unique<DeviceBuffer>(size_t(s.J * s.L));
    tM_->upload(M);
    tN_->upload(N);
    // Flushing: write 2x the L2 so no operand is cached when a run starts.
    flush_bytes_ = 2 * size_t(std::max(prop_.l2CacheSize, 1 << 20));
    check(cudaMalloc(&flush_, flush_bytes_), "cudaMalloc (L2 flush buffer)");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }

  // Made on the device from the seed alone, outside the timed interval: no transfer of the
  // matrices per call (two 64 MiB uploads at 4096^2 would take longer than many kernels).
  void time_inputs(uint64_t seed) override {
    const unsigned blocks = unsigned(std::min<int64_t>(4096, (std::max<int64_t>(shape_.J * shape_.K, shape_.K * shape_.L) + 255) / 256));
    make_timed_input<<<std::max(blocks, 1u), 256>>>(tM_->p, timed_inputs::stream(seed, timed_inputs::kM), uint64_t(shape_.J * shape_.K));
    make_timed_input<<<std::max(blocks, 1u), 256>>>(tN_->p, timed_inputs::stream(seed, timed_inputs::kN), uint64_t(shape_.K * shape_.L));
    check(cudaGetLastError(), "making the timed inputs");
    check(cudaDeviceSynchronize(), "making the timed inputs");
  }

  Matrix time_result() override {
    Matrix P(shape_.J, shape_.L);
    tP_->download(P);
    return P;
  }

  double time_once(const Implementation* impl, int64_t& launches) override {
    const Shape& s = shape_;
    check(cudaMemsetAsync(flush_, ++round_ & 0xFF, flush_bytes_), "L2 flush");
    // The flush must be over before the clock starts: a launch on a stream of the implementation's
    // own would otherwise run beside it, and the start event, queued behind the flush, could be
    // stamped after most of the product was done.
    check(cudaDeviceSynchronize(), "L2 flush");
    check(cudaEventRecord(start_), "cudaEventRecord");
    if (impl) {
      // The launches of the timed call, recorded in this process alone (not cuBLAS's: the probe
      // sees the runtime API only), so other grades sharing the GPU cannot change the count.
      probe::start_recording();
      impl->launch(tM_->p, tN_->p, tP_->p, int(s.J), int(s.K), int(s.L));
      probe::stop_recording();
      launches = int64_t(probe::count());
    } else {
      cublas(tM_->p, tN_->p, tP_->p, int(s.J), int(s.K), int(s.L));
      launches = -1;
    }
    check(cudaGetLastError(), "launch while timing");
    // Synchronize the whole device before the stop event, so work the launch left on
    // another stream is inside the measured interval.
    check(cudaDeviceSynchronize(), "execution while timing");
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start_, stop_), "cudaEventElapsedTime");
    return double(t);
  }

  ~GpuBackend() override {
#ifdef TILELAB_WITH_LIBRARY
    if (handle_) cublasDestroy(handle_);
#endif
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (flush_) cudaFree(flush_);
  }

 private:
  // Row-major P = M N is column-major P^T = N^T M^T: pass N first. FP32 math (the default mode
  // uses no TF32 for SGEMM), or TF32 tensor-op math for a stage whose precision is tf32; the
  // runner checks cuBLAS's result with the stage's rule.
  // Only the reference worker links cuBLAS (TILELAB_WITH_LIBRARY): the worker that runs the code
  // under test has no library in its address space that could do the product for it.
  void cublas(const float* M, const float* N, float* P, int J, int K, int L) {
#ifndef TILELAB_WITH_LIBRARY
    (void)M, (void)N, (void)P, (void)J, (void)K, (void)L;
    throw DeviceError("this worker has no library reference");
#else
    library_handle();
    const float one = 1.0f, zero = 0.0f;
    check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, L, J, K, &one, N, L, M, K, &zero, P, L),
          "cublasSgemm");
#endif
  }

  // As large as the buffer, up to 16 MiB a side, and at least 16 KiB. None under compute-sanitizer's
  // memcheck (sanitize.py sets TILELAB_EXACT_BUFFERS and pads every allocation): a guard zone inside
  // the allocation would hide a read past the end of M or N from it, which the emulator's ASan
  // build reports (issue #26, item 5); memcheck finds stores there as well.
  size_t guard_for(size_t n) const { return exact_buffers_ ? 0 : std::min<size_t>(n, size_t(1) << 22) + 4096; }
  const bool exact_buffers_ = std::getenv("TILELAB_EXACT_BUFFERS") != nullptr;
  // Under initcheck (sanitize.py sets TILELAB_UNWRITTEN_GUARDS) the guard zones are left unwritten
  // and unchecked: a read past the end of M or N reads memory nothing wrote, inside the allocation,
  // and initcheck reports it (it does not see reads outside every allocation; memcheck does). A store
  // there is memcheck's and the plain check's to find.
  const bool unwritten_guards_ = std::getenv("TILELAB_UNWRITTEN_GUARDS") != nullptr;

  // Any store in a guard zone becomes a finding, shaped as the emulator's (Backend::findings).
  void note_overruns(std::initializer_list<std::pair<const char*, const DeviceBuffer*>> buffers) {
    for (const auto& [name, b] : buffers) {
      long long at = 0;
      const size_t count = b->overrun(&at);
      if (!count) continue;
      const std::string where = std::string(name) + "[" + std::to_string(at) + "]";
      const std::string msg = "the kernel stored " + std::to_string(count) + " element(s) outside " + name +
                              " (nearest at " + where + (at < 0 ? ", before its first element)"
                                                                : ", past its last element " + std::string(name) +
                                                                      "[" + std::to_string(b->n - 1) + "])");
      if (found_.is_null())
        found_ = {{"build", "gpu"}, {"findings", nlohmann::json::array()}, {"hint_code", hints::kGlobalOverrun.code},
                  {"hint", kOverrunAdvice}, {"message", msg}};
      found_["findings"].push_back({{"kind", "global-overrun"}, {"hint_code", hints::kGlobalOverrun.code}, {"file", ""},
                                    {"line", 0}, {"count", count}, {"message", msg}});
    }
  }

  cudaDeviceProp prop_{};
#ifdef TILELAB_WITH_LIBRARY
  cublasHandle_t handle_ = nullptr;
  void library_handle() {
    if (handle_) return;
    check(cublasCreate(&handle_), "cublasCreate");
    apply_math_mode();
  }
  void apply_math_mode() {
    check(cublasSetMathMode(handle_, tf32_ ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
#endif
  bool tf32_ = false;  // the library reference's math: set_library_precision
  Shape shape_;                                   // time_prepare()'s
  std::unique_ptr<DeviceBuffer> tM_, tN_, tP_;    // the timed calls' buffers
  std::vector<std::unique_ptr<DeviceBuffer>> kept_;  // run()'s buffers
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int round_ = 0;
  nlohmann::json found_;  // findings since the last findings() call
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<GpuBackend>(); }

}  // namespace tilelab
