// Stage 01 as a grid-stride loop over the elements of P, sized from the device.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <cstdio>
#include <cmath>
#include <algorithm>
#include <tuple>

#ifdef MATMUL_DEBUG
#define KPRINT(...) printf(__VA_ARGS__)
#else
#define KPRINT(...) do {} while (0)
#endif

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); return; } } while (0)

extern "C" __global__ void matmul_grid_stride(const float* __restrict__ M, const float* __restrict__ N,
                                              float* __restrict__ P, int Width) {
    const size_t count = (size_t)Width * Width;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned row = unsigned(i / Width), col = unsigned(i % Width);
        float acc = 0.0f;
        for (unsigned k = 0; k < (unsigned)Width; ++k)
            acc = __fmaf_rn(M[row * Width + k], N[k * Width + col], acc);
        KPRINT("P[%u][%u] = %f\n", row, col, acc);
        P[i] = acc;
    }
}

static std::pair<int, int> launch_shape(int Width) {
    int sms = 0, device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    int min_grid = 0, block = 0;
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, matmul_grid_stride, 0, 0);
    if (block <= 0) block = 256;
    const long long needed = ((long long)Width * Width + block - 1) / block;
    const int grid = (int)std::min<long long>(needed, 8LL * std::max(sms, 1));
    return {grid, block};
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    auto [grid, block] = launch_shape(Width);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMemsetAsync(P, 0, sizeof(float) * Width * Width, stream);
    matmul_grid_stride<<<grid, block, 0, stream>>>(M, N, P, Width);
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    const size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;
    CHECK(cudaMalloc(&M_d, size));
    CHECK(cudaMalloc(&N_d, size));
    CHECK(cudaMalloc(&P_d, size));
    CHECK(cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice));
    launch_matmul(M_d, N_d, P_d, Width);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(M_d)); CHECK(cudaFree(N_d)); CHECK(cudaFree(P_d));
}
