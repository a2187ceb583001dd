// Held-out kernel h04-prefetch (stage 04-rectangular): 16x16 tiles with register double-buffering of the next phase (bounds tests on the prefetch).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    float mNext = (Row < J && tx < K) ? M[(size_t)Row * K + tx] : 0.0f;
    float nNext = (ty < K && Col < L) ? N[(size_t)ty * L + Col] : 0.0f;
    float Pvalue = 0;
    for (int ph = 0; ph < phases; ++ph) {
        Mds[ty][tx] = mNext;
        Nds[ty][tx] = nNext;
        __syncthreads();
        if (ph + 1 < phases) {
            int mCol = (ph + 1) * TILE_WIDTH + tx, nRow = (ph + 1) * TILE_WIDTH + ty;
            mNext = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
            nNext = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[(size_t)Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
