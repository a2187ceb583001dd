// Held-out kernel g04-k8 (stage 04-rectangular): 16x16 tiles with phases 8 deep: the 16x8 M tile loaded by the threads with tx < 8, the 8x16 N tile by those with ty < 8; twice the phases and barriers.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16   // rows and columns of P per block
#define DEPTH 8         // depth of a phase: half a tile

// 16x16 blocks with phases 8 deep: the 16 x 8 tile of M is loaded by the threads with tx < 8, the
// 8 x 16 tile of N by those with ty < 8; twice as many phases and barriers as the book's kernel.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][DEPTH];
    __shared__ float Nds[DEPTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (K + DEPTH - 1) / DEPTH; ++ph) {
        if (tx < DEPTH) {
            if (Row < J && ph * DEPTH + tx < K)
                Mds[ty][tx] = M[Row * K + ph * DEPTH + tx];
            else
                Mds[ty][tx] = 0.0f;
        }
        if (ty < DEPTH) {
            if (ph * DEPTH + ty < K && Col < L)
                Nds[ty][tx] = N[(ph * DEPTH + ty) * L + Col];
            else
                Nds[ty][tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < DEPTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
