// Real student code: iostream, std::vector, std::string, a lambda, a template kernel in a namespace,
// __constant__, __restrict__, #pragma unroll, warp intrinsics and atomics, CUDA events, a CUDA_CHECK
// macro that calls exit, and helpers with external linkage.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));      \
            exit(EXIT_FAILURE);                                                                 \
        }                                                                                       \
    } while (0)

namespace mm {
constexpr int TILE = 16;
__constant__ float c_scale[4];
__device__ unsigned int d_blocks_done;

template <int T>
__global__ void __launch_bounds__(T * T) MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N,
                                                        float* __restrict__ P, int Width) {
    __shared__ float Mds[T][T];
    __shared__ float Nds[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Row = blockIdx.y * T + ty, Col = blockIdx.x * T + tx;
    float v = 0.0f;
    for (int ph = 0; ph < (Width + T - 1) / T; ++ph) {
        Mds[ty][tx] = (Row < Width && ph * T + tx < Width) ? __ldg(&M[Row * Width + ph * T + tx]) : 0.0f;
        Nds[ty][tx] = (Col < Width && ph * T + ty < Width) ? N[(ph * T + ty) * Width + Col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) v = fmaf(Mds[ty][k], Nds[k][tx], v);
        __syncthreads();
    }
    const float lane_max = fmaxf(v, __shfl_down_sync(0xffffffffu, v, 1));
    const unsigned ballot = __ballot_sync(0xffffffffu, lane_max >= 0.0f);
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = v * c_scale[0] + 0.0f * float(__popc(ballot)) + 0.0f * __half2float(__float2half(v));
    if (tx == 0 && ty == 0) atomicAdd(&d_blocks_done, 1u);
}
}  // namespace mm

struct Timer {
    cudaEvent_t start{}, stop{};
    Timer() { CUDA_CHECK(cudaEventCreate(&start)); CUDA_CHECK(cudaEventCreate(&stop)); CUDA_CHECK(cudaEventRecord(start)); }
    float elapsed_ms() {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return ms;
    }
    ~Timer() { cudaEventDestroy(start); cudaEventDestroy(stop); }
};

std::string describe(int width) {   // a helper with external linkage
    std::ostringstream out;
    out << "Width=" << width;
    return out.str() + " (" + std::to_string(width * width) + " elements)";
}

float checksum(const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0f); }

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    assert(Width > 0);
    const size_t bytes = size_t(Width) * Width * sizeof(float);
    std::vector<float> scale(4, 1.0f);
    std::vector<int> order(8);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [](int a, int b) { return a > b; });
    std::map<std::string, int> sizes{{"Width", Width}};
    auto owned = std::make_unique<float[]>(4);
    auto shared = std::make_shared<std::vector<float>>(scale);
    float* host = static_cast<float*>(malloc(16));
    float* arr = new float[4];
    CUDA_CHECK(cudaMemcpyToSymbol(mm::c_scale, scale.data(), sizeof(float) * scale.size()));
    float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
    CUDA_CHECK(cudaMalloc(&M_d, bytes));
    CUDA_CHECK(cudaMalloc((void**)&N_d, bytes));
    CUDA_CHECK(cudaMalloc(&P_d, bytes));
    CUDA_CHECK(cudaMemcpy(M_d, M, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(N_d, N, bytes, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    CUDA_CHECK(cudaFuncSetAttribute(mm::MatrixMulKernel<mm::TILE>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    Timer timer;
    const dim3 block(mm::TILE, mm::TILE);
    const dim3 grid((Width + mm::TILE - 1) / mm::TILE, (Width + mm::TILE - 1) / mm::TILE);
    mm::MatrixMulKernel<mm::TILE><<<grid, block>>>(M_d, N_d, P_d, Width);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    const float ms = timer.elapsed_ms();
    CUDA_CHECK(cudaMemcpy(P, P_d, bytes, cudaMemcpyDeviceToHost));
    std::cerr << describe(Width) << ": " << ms << " ms on " << prop.name << ", order " << order[0]
              << ", sum " << checksum(*shared) + owned[0] << ", " << sizes.size() << std::endl;
    printf("%s %g\n", sqrtf(2.0f) > 1.0f ? "ok" : "?", std::max(1.0, std::sqrt(double(Width))));
    delete[] arr;
    free(host);
    CUDA_CHECK(cudaFree(M_d));
    CUDA_CHECK(cudaFree(N_d));
    CUDA_CHECK(cudaFree(P_d));
}
