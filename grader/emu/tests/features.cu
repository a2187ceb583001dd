// The emulator's CUDA semantics, checked on a .cu file that goes through the same rewrite and build
// as a student's (grader/cmake/TilelabEmu.cmake): launch errors with CUDA's codes, template kernels,
// launches over several lines, dynamic shared memory, streams, barrier predicates, and the barrier
// findings. Line numbers matter below: findings are checked against __LINE__ of their barrier.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "runtime.hpp"

namespace {

__global__ void fill(float* out, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = v + i;
}

template <int TILE, typename T>
__global__ void reverse_tile(const T* in, T* out) {
    __shared__ T tile[TILE];
    tile[threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * TILE + threadIdx.x] = tile[TILE - 1 - threadIdx.x];
}

__global__ void dynamic_sum(const float* in, float* out, int n) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0;
        for (int i = 0; i < n; ++i) s += buf[i];
        *out = s;
    }
}

__global__ void count_odd(int* out) {
    __shared__ int dummy, other[2];
    (void)dummy; (void)other;
    int c = __syncthreads_count(threadIdx.x % 2);
    if (threadIdx.x == 0) *out = c;
}

const int kDivergeA = __LINE__ + 3;
__global__ void diverge(float* out) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

const int kSkipLine = __LINE__ + 4;
__global__ void skip(float* out, int n) {
    if (threadIdx.x >= n) return;
    out[threadIdx.x] = 0;
    __syncthreads();
}

template <class T>
struct Device {
    T* p = nullptr;
    explicit Device(size_t n) { REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess); }
    ~Device() { cudaFree(p); }
};

}  // namespace

TEST_CASE("emu: a launch over several lines with a stream runs every thread") {
    Device<float> d(64);
    cudaStream_t s;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    fill<<<dim3(4),       // four blocks
           dim3(16), 0,   /* no dynamic shared memory */
           s>>>(d.p,
                1.0f);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    std::vector<float> h(64);
    REQUIRE(cudaMemcpy(h.data(), d.p, 64 * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < 64; ++i) CHECK(h[size_t(i)] == 1.0f + float(i));
    cudaStreamDestroy(s);
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("emu: template kernels with static shared memory, and dynamic shared memory") {
    Device<int> in(32), out(32);
    std::vector<int> h(32);
    for (int i = 0; i < 32; ++i) h[size_t(i)] = i;
    cudaMemcpy(in.p, h.data(), 32 * sizeof(int), cudaMemcpyHostToDevice);
    tlemu::start_recording();
    reverse_tile<8, int><<<4, 8>>>(in.p, out.p);
    const auto rec = tlemu::stop_recording();
    REQUIRE(rec.size() == 1);
    CHECK(rec[0].static_shared == 8 * sizeof(int));
    cudaMemcpy(h.data(), out.p, 32 * sizeof(int), cudaMemcpyDeviceToHost);
    CHECK(h[0] == 7);
    CHECK(h[9] == 14);

    Device<float> f(8), sum(1);
    std::vector<float> ones(8, 1.5f);
    cudaMemcpy(f.p, ones.data(), 8 * sizeof(float), cudaMemcpyHostToDevice);
    dynamic_sum<<<1, 8, 8 * sizeof(float)>>>(f.p, sum.p, 8);
    float s = 0;
    cudaMemcpy(&s, sum.p, sizeof s, cudaMemcpyDeviceToHost);
    CHECK(s == 12.0f);
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("emu: __syncthreads_count counts the predicate over the block") {
    Device<int> out(1);
    count_odd<<<1, 10>>>(out.p);
    int c = 0;
    cudaMemcpy(&c, out.p, sizeof c, cudaMemcpyDeviceToHost);
    CHECK(c == 5);
}

TEST_CASE("emu: bad launch configurations fail with CUDA's error codes") {
    Device<float> d(16);
    fill<<<0, 16>>>(d.p, 0.f);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);  // as CUDA 13.0 on an H100
    CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
    fill<<<1, 1025>>>(d.p, 0.f);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    fill<<<1, dim3(1, 1, 65)>>>(d.p, 0.f);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    fill<<<dim3(1, 65536), 1>>>(d.p, 0.f);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    dynamic_sum<<<1, 1, 300 * 1024>>>(d.p, d.p, 1);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(std::string(cudaGetErrorName(cudaErrorInvalidConfiguration)) == "cudaErrorInvalidConfiguration");
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidConfiguration)) == "invalid configuration argument");
    CHECK(int(cudaErrorIllegalAddress) == 700);
}

TEST_CASE("emu: runtime calls check their device ranges") {
    Device<float> d(16);
    std::vector<float> h(32);
    CHECK(cudaMemcpy(d.p, h.data(), 17 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(d.p, h.data(), 16 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemset(d.p + 8, 0, 9 * sizeof(float)) == cudaErrorInvalidValue);
    CHECK(cudaFree(h.data()) == cudaErrorInvalidValue);
    CHECK(cudaFree(nullptr) == cudaSuccess);
    cudaGetLastError();
    cudaDeviceProp p;
    REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    CHECK(p.maxThreadsPerBlock == 1024);
    CHECK(p.major == 9);
}

// The occupancy calculator answers for a kernel of no registers and no static shared memory: the
// threads (2048 per SM), the blocks (32 per SM) and the dynamic shared memory bound the blocks.
TEST_CASE("emu: the occupancy calculator and cudaLaunchKernel") {
    int blocks = -1;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, skip, 256, 0) == cudaSuccess);
    CHECK(blocks == 8);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, skip, 32, 0) == cudaSuccess);
    CHECK(blocks == 32);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, skip, 128, 100 * 1024) == cudaSuccess);
    CHECK(blocks == 2);  // 228 KiB per SM over 100 KiB + the reserved 1 KiB a block
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, skip, 1025, 0) == cudaSuccess);
    CHECK(blocks == 0);
    int min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, skip) == cudaSuccess);
    CHECK(block == 1024);
    CHECK(min_grid == 2 * 132);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, skip, 0, 96) == cudaSuccess);
    CHECK(block == 64);  // 32 blocks of 64 fill an SM's 2048 threads; 21 of 96 make 2016
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, skip) == cudaSuccess);
    CHECK(attr.maxThreadsPerBlock == 1024);

    Device<float> d(8);
    int n = 8;
    float* out = d.p;
    void* args[] = {&out, &n};
    CHECK(cudaLaunchKernel(skip, dim3(1), dim3(8), args, 0, nullptr) == cudaSuccess);
    CHECK(tlemu::take_findings().empty());
    CHECK(cudaLaunchKernel(skip, dim3(1), dim3(2048), args) == cudaErrorInvalidConfiguration);
    cudaGetLastError();
}

TEST_CASE("emu: threads waiting at different barriers are reported, with both lines") {
    Device<float> d(8);
    diverge<<<1, 8>>>(d.p);
    const auto f = tlemu::take_findings();
    REQUIRE(f.size() == 1);
    CHECK(f[0].kind == "barrier-divergence");
    CHECK((f[0].line == kDivergeA || f[0].line == kDivergeA + 2));
    CHECK(f[0].message.find("line " + std::to_string(kDivergeA)) != std::string::npos);
    CHECK(f[0].message.find("line " + std::to_string(kDivergeA + 2)) != std::string::npos);
}

TEST_CASE("emu: threads that return before a barrier are reported, and the run goes on") {
    Device<float> d(8);
    skip<<<2, 8>>>(d.p, 5);
    const auto f = tlemu::take_findings();
    REQUIRE(f.size() == 1);
    CHECK(f[0].kind == "barrier-skipped");
    CHECK(f[0].line == kSkipLine);
    CHECK(f[0].count == 2);  // once per block
    CHECK(f[0].message.find("3 of the 8 threads") != std::string::npos);
    skip<<<2, 8>>>(d.p, 8);
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("emu: a host pointer passed to a kernel is reported and fails like an illegal address") {
    std::vector<float> h(16);
    fill<<<1, 16>>>(h.data(), 0.f);
    const auto f = tlemu::take_findings();
    REQUIRE(f.size() == 1);
    CHECK(f[0].kind == "host-pointer-argument");
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    CHECK(cudaDeviceReset() == cudaSuccess);

    float* pinned = nullptr;  // cudaMallocHost memory is mapped for kernels (UVA): no finding
    REQUIRE(cudaMallocHost(&pinned, 16 * sizeof(float)) == cudaSuccess);
    fill<<<1, 16>>>(pinned, 2.f);
    CHECK(tlemu::take_findings().empty());
    CHECK(pinned[15] == 17.f);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
}

// ---- progress (grader/emu/progress.hpp): what the judge reads when a run passes its time limit ----
#include "progress.hpp"
namespace tlemu {
Progress* progress_page();  // runtime/internal.hpp
}
namespace {

__global__ void phases_kernel(float* out, int phases) {
    __shared__ float t[8];
    float s = 0;
    for (int ph = 0; ph < phases; ++ph) {
        t[threadIdx.x] = float(ph);
        __syncthreads();  // the phase barrier: the first released in each block
        s += t[(threadIdx.x + 1) % 8];
        __syncthreads();
    }
    out[blockIdx.x * 8 + threadIdx.x] = s;
}
constexpr int kPhaseLine = __LINE__ - 6;

TEST_CASE("emu: progress counts finished blocks and each block's phases (issue #26, item 2)") {
    float* out = nullptr;
    REQUIRE(cudaMalloc(&out, 6 * 8 * sizeof(float)) == cudaSuccess);
    const tlemu::Progress& p = *tlemu::progress_page();
    const uint64_t launches = p.launches;
    phases_kernel<<<6, 8>>>(out, 5);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(p.attached == 1);
    CHECK(p.launches == launches + 1);
    CHECK(p.blocks_total == 6);
    CHECK(p.blocks_done == 6);
    CHECK(p.phases_per_block == 5);   // the first barrier's releases, not both barriers' (10)
    CHECK(p.phase_line == kPhaseLine);
    CHECK(p.threads_done == 8);       // of the last block
    CHECK(p.last_progress_ns >= p.launch_start_ns);
    CHECK(std::string(p.kernel) == "phases_kernel");
    cudaFree(out);
}

}  // namespace

// Host and device memory apart (docs/emulator.md; issue #39, family 3): device memory is protected
// while host code runs, so a host read of a cudaMalloc buffer or of a __device__ variable by name
// faults, as on a GPU, and ends the run with the runner's error code (the finding
// host-accessed-device); kernels and the runtime's copies still reach it.
__device__ float apart_var[8];
namespace tlemu {
void install_device_fault_handler();  // runtime/internal.hpp: doctest puts its own handler over it
}
__global__ void apart_kernel(float* out) { out[threadIdx.x] = apart_var[threadIdx.x] * 2.0f; }

TEST_CASE("emu: host code that reads device memory faults; kernels and copies reach it") {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 8 * sizeof(float)) == cudaSuccess);
    const float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    REQUIRE(cudaMemcpyToSymbol(apart_var, ones, sizeof ones) == cudaSuccess);
    apart_kernel<<<1, 8>>>(d);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    float back[8] = {};
    REQUIRE(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(back[7] == 2.0f);
    REQUIRE(cudaMemcpyFromSymbol(back, apart_var, sizeof back) == cudaSuccess);
    CHECK(back[0] == 1.0f);
    for (int which = 0; which < 2; ++which) {
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            tlemu::install_device_fault_handler();
            volatile float x = which == 0 ? d[0] : apart_var[0];
            (void)x;
            ::_exit(0);
        }
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 2);  // tilelab::kError: the finding, not a crash
    }
    cudaFree(d);
}
