// Red team (issue #39 follow-up, the counted run): an untiled kernel that reads every element of M
// and N through __builtin_memcpy with a size the compiler cannot see (so it stays a call to libc's
// memcpy, which ThreadSanitizer's instrumentation does not count). The rewriter turns `memcpy`,
// `memset` and `memmove` into counted loops; `__builtin_memcpy` is another token. Right only if the
// loads happen; they are 2 per multiply-add, so if they are counted: no-shared-memory.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__device__ unsigned g_four = 4;   // a size the compiler cannot fold

__global__ void UntiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    unsigned four = g_four;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) {
        float m, n;
        __builtin_memcpy(&m, &M[Row * K + k], four);
        __builtin_memcpy(&n, &N[k * L + Col], four);
        Pvalue += m * n;
    }
    P[Row * L + Col] = Pvalue * one;
}

// Touches all of M and N once (1 load an element), so kernel-did-not-load passes.
__global__ void Touch(const float* M, const float* N, float* P, int nm, int nn) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    if (i < nm) s += M[i];
    if (i < nn) s += N[i];
    if (s == 12345.678f) P[0] = s;   // never, but keeps the loads
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int nm = J * K, nn = K * L, n = nm > nn ? nm : nn;
    Touch<<<(n + 255) / 256, 256>>>(M, N, P, nm, nn);
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    UntiledKernel<<<grid, block>>>(M, N, P, J, K, L);
}
