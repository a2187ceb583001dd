// Red team 2 (the counted run, detecting the instrumentation): the count build is the race build's
// object, compiled with -fsanitize=thread, which makes g++ define __SANITIZE_THREAD__. Under it this
// file is the 16x16 tiled kernel; everywhere else (the plain emulator build, nvcc on a GPU) it is the
// untiled kernel with one __shared__ float (which satisfies the declared-shared rule). The count
// build, the only one that sees the loads, models the tiled kernel: perf credit for a kernel that runs
// untiled everywhere it is timed.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

#ifdef __SANITIZE_THREAD__
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty, Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = (Row < J && ph * TILE_WIDTH + tx < K) ? M[Row * K + ph * TILE_WIDTH + tx] : 0.0f;
        Nds[ty][tx] = (ph * TILE_WIDTH + ty < K && Col < L) ? N[(ph * TILE_WIDTH + ty) * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}
#else
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) Pvalue += M[Row * K + k] * N[k * L + Col];
    P[Row * L + Col] = Pvalue * one;
}
#endif

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
