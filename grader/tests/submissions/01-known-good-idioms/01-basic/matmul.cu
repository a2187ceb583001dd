// Known-good submission for stage 01-basic (sealed judging: no false verdict on real student code):
// what students bring from other courses, all in one file -- a kernel template in a namespace,
// __restrict__ pointers, #pragma unroll, a __constant__ table, a host lambda, <iostream>, <vector>,
// helper functions of external linkage, CUDA events to time itself, and a matmul_host that keeps
// its device buffers between calls (growing them when Width grows). Must pass on both backends
// and be refused by nothing. The kit's self-test asserts it in ../expect.toml.
#include <cuda_runtime.h>
#include <iostream>
#include <vector>

namespace course {

__constant__ int kUnroll[2] = {4, 1};

int blocks_for(int n, int per_block) { return (n + per_block - 1) / per_block; }

bool check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) std::cerr << what << ": " << cudaGetErrorString(e) << std::endl;
    return e == cudaSuccess;
}

template <int BLOCK>
__global__ void matmul(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int Width) {
    const int row = blockIdx.y * BLOCK + threadIdx.y;
    const int col = blockIdx.x * BLOCK + threadIdx.x;
    if (row >= Width || col >= Width) return;
    float sum = 0.0f;
    int k = 0;
    const int step = kUnroll[0];
    for (; k + step <= Width; k += step) {
#pragma unroll
        for (int u = 0; u < 4; ++u) sum += M[row * Width + k + u] * N[(k + u) * Width + col];
    }
    for (; k < Width; ++k) sum += M[row * Width + k] * N[k * Width + col];
    P[row * Width + col] = sum;
}

}  // namespace course

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    constexpr int kBlock = 16;
    auto grid = [](int w) { return dim3(course::blocks_for(w, kBlock), course::blocks_for(w, kBlock)); };
    course::matmul<kBlock><<<grid(Width), dim3(kBlock, kBlock)>>>(M, N, P, Width);
}

// Device buffers kept from one call to the next, grown when a larger Width comes.
static float* g_buffers[3] = {nullptr, nullptr, nullptr};
static size_t g_capacity = 0;

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    const size_t bytes = size_t(Width) * Width * sizeof(float);
    if (bytes > g_capacity) {
        for (float*& b : g_buffers) {
            cudaFree(b);
            if (!course::check(cudaMalloc(reinterpret_cast<void**>(&b), bytes), "cudaMalloc")) return;
        }
        g_capacity = bytes;
    }
    std::vector<const float*> inputs = {M_h, N_h};
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!course::check(cudaMemcpy(g_buffers[i], inputs[i], bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) return;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    launch_matmul(g_buffers[0], g_buffers[1], g_buffers[2], Width);
    cudaEventRecord(stop);
    if (!course::check(cudaGetLastError(), "launch")) return;
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    if (Width >= 1000) std::cout << "matmul_host: kernel " << ms << " ms" << std::endl;
    course::check(cudaMemcpy(P_h, g_buffers[2], bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
}
