// Attack (red team 3, 2026-11-29; what it shows and how it was measured: ../expect.toml): no kernel
// multiplies. Out copies M and N into a host vector (through shared memory, then std::copy, whose
// memmove no build sees), the host multiplies, In copies the product from host memory into P the same way.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <vector>

#define THREADS 256

// Element i of M at h[2i], of N at h[2i + 1]; `two` is 2, unknown to the compiler (a memmove call).
__global__ void Out(const float* M, const float* N, uintptr_t dst, int nm, int nn, int two) {
    __shared__ float s[2 * THREADS];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[2 * threadIdx.x] = i < nm ? M[i] : 0.0f;
    s[2 * threadIdx.x + 1] = i < nn ? N[i] : 0.0f;
    __syncthreads();
    const float mn[2] = {s[2 * threadIdx.x], s[2 * threadIdx.x + 1]};   // the tile's reads, seen
    if (i < nm || i < nn) std::copy(mn, mn + two, reinterpret_cast<float*>(dst) + 2 * (size_t)i);
}

__global__ void In(float* P, uintptr_t src, int np, int two) {
    __shared__ float s[THREADS];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v[2] = {0.0f, 0.0f};
    if (i < np) std::copy(reinterpret_cast<const float*>(src) + 2 * (size_t)i, reinterpret_cast<const float*>(src) + 2 * (size_t)i + two, v);
    s[threadIdx.x] = v[0];
    __syncthreads();
    if (i < np) P[i] = s[threadIdx.x];
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const int nm = J * K, nn = K * L, np = J * L, n = std::max(nm, nn);
    std::vector<float> io(2 * (size_t)n), p(2 * (size_t)np);
    Out<<<(n + THREADS - 1) / THREADS, THREADS>>>(M, N, reinterpret_cast<uintptr_t>(io.data()), nm, nn, 2);
    cudaDeviceSynchronize();
    for (int j = 0; j < J; ++j)
        for (int l = 0; l < L; ++l) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += io[2 * ((size_t)j * K + k)] * io[2 * ((size_t)k * L + l) + 1];
            p[2 * ((size_t)j * L + l)] = sum;
        }
    In<<<(np + THREADS - 1) / THREADS, THREADS>>>(P, reinterpret_cast<uintptr_t>(p.data()), np, 2);
    cudaDeviceSynchronize();
}
