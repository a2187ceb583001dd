// Held-out kernel g05-c2t16 (stage 05-coarsened): coarsening by 2 columns with fixed 16x16 tiles in static shared memory, two scalar sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define COARSE_FACTOR 2

// Coarsening by 2 with fixed 16x16 tiles in static shared memory: each thread computes columns Col0 and
// Col0 + 16 of its row, in two scalar sums.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[COARSE_FACTOR][TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col0 = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;
    int Col1 = Col0 + TILE_WIDTH;
    float P0 = 0.0f, P1 = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < J && mCol < K) ? M[Row * K + mCol] : 0.0f;
        Nds[0][ty][tx] = (nRow < K && Col0 < L) ? N[nRow * L + Col0] : 0.0f;
        Nds[1][ty][tx] = (nRow < K && Col1 < L) ? N[nRow * L + Col1] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty][k];
            P0 += m * Nds[0][k][tx];
            P1 += m * Nds[1][k][tx];
        }
        __syncthreads();
    }
    if (Row < J) {
        if (Col0 < L) P[Row * L + Col0] = P0;
        if (Col1 < L) P[Row * L + Col1] = P1;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH * COARSE_FACTOR - 1) / (TILE_WIDTH * COARSE_FACTOR), (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
