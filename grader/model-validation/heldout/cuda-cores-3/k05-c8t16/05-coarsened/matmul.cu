// Held-out kernel k05-c8t16 (stage 05-coarsened): coarsening by 8 columns (16 apart) with fixed 16x16 tiles in static shared memory (1 M tile and 8 N tiles per phase), the 8 sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define COARSE_FACTOR 8

// Thread coarsening by 8 with 16 x 16 tiles fixed at compile time: a block computes 16 rows by
// 8 * 16 = 128 columns of P; per phase one tile of M and the 8 tiles of N beside each other, in
// static shared memory. Each thread's 8 sums, columns 16 apart, are in an array.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[COARSE_FACTOR][TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;

    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;

    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        int nRow = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < J && mCol < K) ? M[Row * K + mCol] : 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            Nds[c][ty][tx] = (nRow < K && Col < L) ? N[nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty][k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[c][k][tx];
        }
        __syncthreads();
    }
    if (Row < J) {
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            if (Col < L) P[Row * L + Col] = Pvalue[c];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int colsPerBlock = TILE_WIDTH * COARSE_FACTOR;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + colsPerBlock - 1) / colsPerBlock, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
