// Held-out kernel k04-halfloops (stage 04-rectangular): 16x16 tiles with the dot product of a phase written as two half-loops of 8 (k < 8 and k >= 8) into two sums, added at the store.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define HALF (TILE_WIDTH / 2)

// The book's rectangular tiled kernel with each phase's dot product split in two half-loops, the
// first 8 terms into sumLo and the last 8 into sumHi, the two added when P is stored.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float sumLo = 0.0f, sumHi = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        if (Row < J && ph * TILE_WIDTH + tx < K)
            Mds[ty][tx] = M[Row * K + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0.0f;
        if (ph * TILE_WIDTH + ty < K && Col < L)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * L + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < HALF; ++k)
            sumLo += Mds[ty][k] * Nds[k][tx];
        for (int k = HALF; k < TILE_WIDTH; ++k)
            sumHi += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[Row * L + Col] = sumLo + sumHi;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
