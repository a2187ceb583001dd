// Held-out kernel g04-1d-loop (stage 04-rectangular): 1-D blocks of 256 threads, one element each of an 8-row x 32-column tile of P, phases 32 deep: the 8x32 M tile and the 32x32 N tile loaded by loops (1 and 4 elements per thread).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BLOCK_ROWS 8    // rows of P per block
#define BLOCK_COLS 32   // columns of P per block
#define DEPTH 32        // depth of a phase
#define THREADS (BLOCK_ROWS * BLOCK_COLS)

// 1-D blocks of 256 threads, one element of P each (an 8 x 32 tile per block). Per phase the 8 x 32
// tile of M and the 32 x 32 tile of N are loaded by loops over the tile (1 and 4 elements per thread).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[BLOCK_ROWS][DEPTH];
    __shared__ float Nds[DEPTH][BLOCK_COLS];
    int tid = threadIdx.x;
    int tx = tid % BLOCK_COLS, ty = tid / BLOCK_COLS;
    int rowBase = blockIdx.y * BLOCK_ROWS, colBase = blockIdx.x * BLOCK_COLS;
    float sum = 0.0f;
    for (int k0 = 0; k0 < K; k0 += DEPTH) {
        for (int i = tid; i < BLOCK_ROWS * DEPTH; i += THREADS) {
            int r = i / DEPTH, c = i % DEPTH;
            int gr = rowBase + r, gc = k0 + c;
            Mds[r][c] = (gr < J && gc < K) ? M[gr * K + gc] : 0.0f;
        }
        for (int i = tid; i < DEPTH * BLOCK_COLS; i += THREADS) {
            int r = i / BLOCK_COLS, c = i % BLOCK_COLS;
            int gr = k0 + r, gc = colBase + c;
            Nds[r][c] = (gr < K && gc < L) ? N[gr * L + gc] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < DEPTH; ++k)
            sum += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    int Row = rowBase + ty, Col = colBase + tx;
    if (Row < J && Col < L)
        P[Row * L + Col] = sum;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimGrid((L + BLOCK_COLS - 1) / BLOCK_COLS, (J + BLOCK_ROWS - 1) / BLOCK_ROWS);
    MatrixMulKernel<<<dimGrid, THREADS>>>(M, N, P, J, K, L);
}
