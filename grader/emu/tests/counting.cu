// The count build's rules (runtime/hooks_count.cpp; docs/performance.md, "The model"), checked on a
// .cu file that goes through the same rewrite and instrumented compile as a student's: one warp per
// launch, so every figure below can be worked out by hand.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <vector>

#include "runtime.hpp"

namespace {

__global__ void read_stride(const float* in, float* out, int stride) {
    out[threadIdx.x] = in[threadIdx.x * stride];
}

// Each lane's float4 used component by component (as the 06 reference's transposed store does):
// one 16-byte load per lane on a GPU, whatever the host compiler would make of it.
__global__ void read_float4(const float4* in, float* out) {
    float4 v = in[threadIdx.x];
    out[threadIdx.x * 4 + 0] = v.x;
    out[threadIdx.x * 4 + 1] = v.y;
    out[threadIdx.x * 4 + 2] = v.z;
    out[threadIdx.x * 4 + 3] = v.w;
}

__global__ void shared_stride(float* out, int stride) {
    __shared__ float s[32 * 32];
    for (int i = threadIdx.x; i < 32 * 32; i += 32) s[i] = float(i);
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * stride) % (32 * 32)];
}

// Lanes read float4 number (lane / group) of a shared row: group 1 = 32 distinct float4, group 16 =
// two distinct ones (lanes 0-15 and 16-31 share), as the 06 reference reads its M tile.
__global__ void shared_float4(float* out, int group) {
    __shared__ __align__(16) float s[128];
    for (int i = threadIdx.x; i < 128; i += 32) s[i] = float(i);
    __syncthreads();
    float4 v = reinterpret_cast<const float4*>(s)[threadIdx.x / group];
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// Each lane copies a row of 16 floats (64 bytes) of M into a shared tile, with memcpy or element by
// element, then writes it back with memset and stores: a kernel's memcpy is its own loads and stores
// (#25), counted as the same loop of 4-byte accesses, not a libc call that nothing sees.
__global__ void rows_to_shared(const float* in, float* out, bool with_memcpy) {
    __shared__ float s[32 * 16];
    float* row = &s[threadIdx.x * 16];
    if (with_memcpy) {
        memcpy(row, &in[threadIdx.x * 16], 16 * sizeof(float));
        std::memset(&out[threadIdx.x * 16], 0, 16 * sizeof(float));
    } else {
        for (int j = 0; j < 16; ++j) row[j] = in[threadIdx.x * 16 + j];
        for (int j = 0; j < 16; ++j) out[threadIdx.x * 16 + j] = 0.0f;
    }
    out[threadIdx.x] += row[threadIdx.x % 16];
}

// Reads 32 floats of `in`, wherever they are: a cudaMalloc buffer, pinned host memory or a
// __device__ / __constant__ array (issue #39: a copy of M and N read from pinned or __device__ memory
// was not counted).
__device__ float device_copy[64];
__constant__ float constant_copy[64];
__global__ void read_from(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void read_symbols(float* out) { out[threadIdx.x] = device_copy[threadIdx.x] + constant_copy[threadIdx.x]; }

// The same read as read_from, each lane's float loaded with GCC's atomic builtin, and an atomic
// read-modify-write of a global word per lane: g++'s instrumentation makes them __tsan_atomic*
// calls, which are the kernel's accesses like any other (runtime/instrument.hpp; known-bad
// attack3-atomic-hidden-loads: fragment loads made atomic went uncounted).
__global__ void read_atomic(const float* in, float* out) {
    float v;
    __atomic_load(&in[threadIdx.x], &v, __ATOMIC_RELAXED);
    out[threadIdx.x] = v;
}
__global__ void add_atomic(unsigned* words) { __atomic_fetch_add(&words[threadIdx.x], 1u, __ATOMIC_RELAXED); }

// Reads 32 floats at an address passed as an integer (a pointer the launch's host-pointer check does
// not see): heap memory is global memory too (issue #39, red team 2: a device-side malloc block).
__global__ void read_address(unsigned long long address, float* out) {
    out[threadIdx.x] = reinterpret_cast<const float*>(address)[threadIdx.x];
}

// Loads 32 floats of `in` into a local array, then reads it at an index known only at run time (so
// the array lives on the thread's stack, not in registers): the thread's own stack is not global.
__global__ void read_local(const float* in, float* out, int k) {
    float a[32];
    for (int i = 0; i < 32; ++i) a[i] = in[i];
    out[threadIdx.x] = a[(threadIdx.x + k) % 32];
}

// Block b loads its 32 floats, or (where skip_from <= b) nothing: a kernel whose blocks differ.
__global__ void read_in_blocks(const float* in, float* out, int skip_from) {
    if (int(blockIdx.x) < skip_from) out[blockIdx.x * 32 + threadIdx.x] = in[threadIdx.x];
}

// clock64() between two reads: the same in every block and every build (a virtual clock).
__global__ void clock_gap(long long* gaps) {
    const long long t0 = clock64();
    const long long t1 = clock64();
    if (threadIdx.x == 0) gaps[blockIdx.x] = t1 - t0;
}

struct Device {
    float *in = nullptr, *out = nullptr;
    Device() {
        std::vector<float> h(32 * 32 * 4, 1.0f);
        cudaMalloc(&in, h.size() * sizeof(float));
        cudaMalloc(&out, h.size() * sizeof(float));
        cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    }
    ~Device() { cudaFree(in), cudaFree(out); }
};

void forget() {  // what was counted before (the setup's copies)
    tlemu::TrafficCounts c;
    tlemu::take_counts(c);
}

tlemu::TrafficCounts counted() {
    tlemu::TrafficCounts c;
    REQUIRE(tlemu::take_counts(c));
    return c;
}

// The tiled kernel's inner loop, Mds[ty][k] for k = 0..15 (ty = lane / 16, so two rows): nvcc
// merges each 4 consecutive k into one 16-byte load where a row is 16-byte aligned ([16][16]); a
// row padded to 17 floats is not aligned in every lane and stays scalar (docs/performance.md).
template <int ROW>
__global__ void shared_row_loop(float* out) {
    __shared__ __align__(16) float Mds[16][ROW];
    for (int i = threadIdx.x; i < 256; i += 32) (&Mds[0][0])[i] = float(i);  // the same stores for both widths
    __syncthreads();
    float sum = 0;
    for (int k = 0; k < 16; ++k) sum += Mds[threadIdx.x / 16][k];
    out[threadIdx.x] = sum;
}

// The same loop as nvcc compiles it in two other forms: with the trip count a run-time value, nvcc
// leaves it rolled and cannot merge (one load instruction run 16 times); with #pragma unroll 4 on the
// known trip count, it unrolls by 4 and merges each 4 k (docs/performance.md, "Shared loads as
// nvcc issues them").
__global__ void shared_row_loop_runtime(float* out, int n) {
    __shared__ __align__(16) float Mds[16][16];
    for (int i = threadIdx.x; i < 256; i += 32) (&Mds[0][0])[i] = float(i);
    __syncthreads();
    float sum = 0;
    for (int k = 0; k < n; ++k) sum += Mds[threadIdx.x / 16][k];
    out[threadIdx.x] = sum;
}
__global__ void shared_row_loop_unroll4(float* out) {
    __shared__ __align__(16) float Mds[16][16];
    for (int i = threadIdx.x; i < 256; i += 32) (&Mds[0][0])[i] = float(i);
    __syncthreads();
    float sum = 0;
#pragma unroll 4
    for (int k = 0; k < 16; ++k) sum += Mds[threadIdx.x / 16][k];
    out[threadIdx.x] = sum;
}

}  // namespace

TEST_CASE("count: a warp's global load costs the 32-byte sectors its lanes touch") {
    Device d;
    forget();
    read_stride<<<1, 32>>>(d.in, d.out, 1);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    tlemu::TrafficCounts c = counted();
    CHECK(c.global_loads == 1);
    CHECK(c.global_load_sectors == 4);    // 128 consecutive bytes
    read_stride<<<1, 32>>>(d.in, d.out, 32);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    c = counted();
    CHECK(c.global_loads == 1);
    CHECK(c.global_load_sectors == 32);   // one sector per lane: 1/8 of each used
}

TEST_CASE("count: an atomic load is a load; an atomic read-modify-write a load and a store") {
    Device d;
    forget();
    read_atomic<<<1, 32>>>(d.in, d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    tlemu::TrafficCounts c = counted();
    CHECK(c.global_loads == 1);
    CHECK(c.global_load_sectors == 4);    // 128 consecutive bytes, as read_stride's
    CHECK(c.global_load_bytes == 128);
    add_atomic<<<1, 32>>>(reinterpret_cast<unsigned*>(d.out));
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    c = counted();
    CHECK(c.global_loads == 1);           // as atomicAdd's (tilelab_emu_warp.h): a load and a store
    CHECK(c.global_stores == 1);
    CHECK(c.global_load_bytes == 128);
}

TEST_CASE("count: a float4 load is one 16-byte access, even when its components are used apart") {
    Device d;
    forget();
    read_float4<<<1, 32>>>(reinterpret_cast<const float4*>(d.in), d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    tlemu::TrafficCounts c = counted();
    CHECK(c.global_loads == 1);
    CHECK(c.global_load_sectors == 16);   // 512 consecutive bytes
    CHECK(c.global_load_bytes == 512);
}

TEST_CASE("count: a loop nvcc unrolls merges its shared loads; one it leaves rolled does not") {
    Device d;
    forget();
    shared_row_loop_unroll4<<<1, 32>>>(d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    tlemu::TrafficCounts c = counted();
    CHECK(c.shared_loads == 4);    // unrolled by 4: each 4 k one LDS.128
    shared_row_loop_runtime<<<1, 32>>>(d.out, 16);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    c = counted();
    CHECK(c.shared_loads == 16);   // the trip count known at run time only: one scalar load per k
}

TEST_CASE("count: shared loads side by side in an unrolled loop merge into 16-byte loads where aligned") {
    Device d;
    forget();
    shared_row_loop<16><<<1, 32>>>(d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    tlemu::TrafficCounts c = counted();
    CHECK(c.shared_loads == 4);                          // 16 executions, 4 LDS.128
    CHECK(c.shared_wavefronts - c.shared_stores == 4 * 2);  // two rows of 16 bytes, lanes paired: 2 each
    shared_row_loop<17><<<1, 32>>>(d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    c = counted();
    CHECK(c.shared_loads == 16);                         // row 1 starts at 68 bytes: scalar
    CHECK(c.shared_wavefronts - c.shared_stores == 16);  // a broadcast of two words in two banks
}

TEST_CASE("count: shared wavefronts are the bank-conflict degree; a broadcast is free") {
    Device d;
    forget();
    const struct { int stride; double wavefronts; } cases[] = {{1, 1}, {2, 2}, {32, 32}, {0, 1}};
    for (const auto& k : cases) {
        CAPTURE(k.stride);
        shared_stride<<<1, 32>>>(d.out, k.stride);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        tlemu::TrafficCounts c = counted();
        CHECK(c.shared_loads == 1);
        CHECK(c.shared_stores == 32);
        CHECK(c.shared_wavefronts == 32 + k.wavefronts);  // 32 conflict-free stores, then the load
        CHECK(c.barriers_per_block == 1);
    }
}

TEST_CASE("count: a float4 shared load returns 512 bytes in 4 wavefronts, 2 when lanes read in pairs") {
    Device d;
    forget();
    const struct { int group; double wavefronts; } cases[] = {{1, 4}, {2, 2}, {16, 2}};
    for (const auto& k : cases) {
        CAPTURE(k.group);
        shared_float4<<<1, 32>>>(d.out, k.group);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        tlemu::TrafficCounts c = counted();
        CHECK(c.shared_loads == 1);
        CHECK(c.shared_wavefronts - c.shared_stores == k.wavefronts);  // stores: 4 conflict-free of 32 lanes
    }
}

TEST_CASE("count: a kernel's memcpy and memset are its own loads and stores, as an element loop's (#25)") {
    Device d;
    forget();
    rows_to_shared<<<1, 32>>>(d.in, d.out, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts loop = counted();
    rows_to_shared<<<1, 32>>>(d.in, d.out, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts copy = counted();
    float out[32];
    REQUIRE(cudaMemcpy(out, d.out, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(out[5] == 1.0f);
    CHECK(loop.global_load_bytes == 32 * 64 + 32 * 4);  // the rows, then out[] read by +=
    CHECK(copy.global_load_bytes == loop.global_load_bytes);
    CHECK(copy.global_loads == loop.global_loads);
    CHECK(copy.global_load_sectors == loop.global_load_sectors);
    CHECK(copy.global_stores == loop.global_stores);
    CHECK(copy.global_store_sectors == loop.global_store_sectors);
    CHECK(copy.shared_stores == loop.shared_stores);
    CHECK(copy.shared_wavefronts == loop.shared_wavefronts);
}

TEST_CASE("count: pinned host memory and __device__ / __constant__ variables are global memory (#39)") {
    Device d;
    float* pinned = nullptr;
    REQUIRE(cudaMallocHost(&pinned, 64 * sizeof(float)) == cudaSuccess);
    float ones[64];
    for (float& x : ones) x = 1.0f;
    REQUIRE(cudaMemcpyToSymbol(device_copy, ones, sizeof ones) == cudaSuccess);
    REQUIRE(cudaMemcpyToSymbol(constant_copy, ones, sizeof ones) == cudaSuccess);
    forget();
    read_from<<<1, 32>>>(d.in, d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts device = counted();
    read_from<<<1, 32>>>(pinned, d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts host = counted();
    read_symbols<<<1, 32>>>(d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts symbols = counted();
    CHECK(device.global_load_bytes == 128);
    CHECK(host.global_load_bytes == 128);       // counted as the cudaMalloc buffer is
    CHECK(host.global_loads == device.global_loads);
    CHECK(symbols.global_load_bytes == 256);    // both arrays
    CHECK(symbols.global_loads == 2);
    cudaFreeHost(pinned);
}

TEST_CASE("count: every block's global loads are summed exactly; the sample's estimate is kept beside") {
    Device d;
    forget();
    // 64 blocks, more than the sample: the first 8 load, the other 56 load nothing.
    read_in_blocks<<<64, 32>>>(d.in, d.out, 8);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts c = counted();
    CHECK(c.blocks == 64);
    CHECK(c.sampled_blocks < 64);
    CHECK(c.global_load_bytes == 8 * 128);      // exact, whichever blocks were sampled
    CHECK(c.sampled_global_load_bytes != c.global_load_bytes);  // the corners and a sample, scaled
}

TEST_CASE("count: each launch draws its own sample of blocks") {
    Device d;
    forget();
    // One block in 64 loads: how often the sample catches it varies from launch to launch.
    std::vector<double> estimates;
    for (int launch = 0; launch < 8; ++launch) {
        read_in_blocks<<<64, 32>>>(d.in, d.out, 33);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        estimates.push_back(counted().sampled_global_load_bytes);
    }
    bool differ = false;
    for (double e : estimates) differ = differ || e != estimates.front();
    CHECK(differ);
}

TEST_CASE("count: clock64() is a virtual clock, the same in sampled blocks as in the others") {
    long long* gaps = nullptr;
    REQUIRE(cudaMalloc(&gaps, 64 * sizeof(long long)) == cudaSuccess);
    forget();
    clock_gap<<<64, 32>>>(gaps);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    long long h[64];
    REQUIRE(cudaMemcpy(h, gaps, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int b = 0; b < 64; ++b) CHECK(h[b] == 1);  // one read later, in every block
    cudaFree(gaps);
}

TEST_CASE("count: heap memory is global; the thread's own stack and its arguments are not (#39)") {
    Device d;
    std::vector<float> heap(64, 1.0f);  // host malloc; a kernel's malloc is the same heap
    forget();
    read_address<<<1, 32>>>(reinterpret_cast<unsigned long long>(heap.data()), d.out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts from_heap = counted();
    read_local<<<1, 32>>>(d.in, d.out, 3);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts local = counted();
    CHECK(from_heap.global_load_bytes == 128);  // the 32 floats, not the arguments
    CHECK(from_heap.global_loads == 1);
    CHECK(local.global_load_bytes == 32 * 32 * 4);  // in, by every lane; the local array's loads are not
}

TEST_CASE("count: a call's heaviest launch is the one with the most warp-level accesses (the product's)") {
    Device d;
    forget();
    read_in_blocks<<<1, 32>>>(d.in, d.out, 1);    // light
    read_in_blocks<<<64, 32>>>(d.in, d.out, 64);  // every block loads: the heaviest
    read_in_blocks<<<2, 32>>>(d.in, d.out, 2);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const tlemu::TrafficCounts c = counted();
    CHECK(c.launches == 3);
    CHECK(c.heaviest_launch == 2);
    CHECK(counted().heaviest_launch == 0);  // of the next call: none yet
}

// grid_parallelism.hpp: the launch whose grid the model charges is seen at the timed shape without
// running, and no code of the call runs after it.
TEST_CASE("observe_launch: launches before the k-th run, the k-th is recorded and not run, the call ends there") {
    Device d;
    forget();
    cudaMemset(d.out, 0, 64 * sizeof(float));
    tlemu::observe_launch(2);
    bool after = false;
    try {
        read_in_blocks<<<1, 32>>>(d.in, d.out, 1);      // runs
        read_in_blocks<<<7, 3, 0>>>(d.in, d.out + 32, 7);  // seen, not run
        after = true;
    } catch (const tlemu::LaunchObserved&) {
    }
    CHECK_FALSE(after);
    tlemu::LaunchRecord seen;
    REQUIRE(tlemu::launch_observed(&seen));
    CHECK(seen.grid.x == 7);
    CHECK(seen.block.x == 3);
    // A launch after it (code that caught the throw) fails and runs nothing.
    read_in_blocks<<<1, 32>>>(d.in, d.out + 32, 1);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
    tlemu::observe_launch(0);
    std::vector<float> out(64);
    cudaMemcpy(out.data(), d.out, 64 * sizeof(float), cudaMemcpyDeviceToHost);
    CHECK(out[0] != 0.0f);   // the first launch ran
    CHECK(out[32] == 0.0f);  // neither the seen one nor the one after it
    CHECK(counted().launches == 1);
}
