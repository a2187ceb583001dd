// Known-bad (issue #39, family 4): tiled only when the inputs are new buffers; the timed calls,
// which reuse the previous call's, run untiled.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// The book's tiled kernel with boundary checks (04's solution): 2/TILE_WIDTH loads per multiply-add.
__global__ void TiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = Row < J && ph * TILE_WIDTH + tx < K ? M[Row * K + ph * TILE_WIDTH + tx] : 0.0f;
        Nds[ty][tx] = ph * TILE_WIDTH + ty < K && Col < L ? N[(ph * TILE_WIDTH + ty) * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}

// Untiled: 2 global loads per multiply-add, with one __shared__ float so that shared memory is declared.
__global__ void UntiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) Pvalue += one * M[Row * K + k] * N[k * L + Col];
    P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    static const float* last = nullptr;
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    if (M != last) TiledKernel<<<grid, block>>>(M, N, P, J, K, L);
    else UntiledKernel<<<grid, block>>>(M, N, P, J, K, L);
    last = M;
}
