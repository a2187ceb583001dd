// Held-out kernel k04-k64 (stage 04-rectangular): 16x16 tiles of P with phases 64 deep: the 16x64 M tile and the 64x16 N tile loaded 4 elements per thread by loops (columns / rows 16 apart), a quarter of the barriers.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16   // rows and columns of P per block
#define TILE_K 64       // depth of a phase
#define LOADS (TILE_K / TILE_WIDTH)   // 4 elements of each tile per thread

// 16 x 16 tiles of P with phases 64 deep: per phase a 16 x 64 tile of M (each thread columns
// tx, tx + 16, tx + 32, tx + 48 of its row) and a 64 x 16 tile of N (rows ty, ty + 16, ...).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_K];
    __shared__ float Nds[TILE_K][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE_K) {
        for (int i = 0; i < LOADS; ++i) {
            int c = tx + i * TILE_WIDTH;
            Mds[ty][c] = (Row < J && k0 + c < K) ? M[Row * K + k0 + c] : 0.0f;
            int r = ty + i * TILE_WIDTH;
            Nds[r][tx] = (k0 + r < K && Col < L) ? N[(k0 + r) * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_K; ++k)
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
