// Held-out kernel k04-t32x16 (stage 04-rectangular): 16x32 blocks (512 threads), each a 32-row x 16-column tile of P, phases 16 deep: the 32x16 M tile one element per thread, the 16x16 N tile by the threads with ty < 16.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_ROWS 32   // rows of P per block (blockDim.y)
#define TILE_COLS 16   // columns of P per block (blockDim.x), and the depth of a phase

// Non-square tiles: a block of 16 x 32 threads computes a 32 x 16 tile of P. Per phase the 32 x 16
// tile of M is one element per thread; the 16 x 16 tile of N is loaded by the upper half (ty < 16).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_ROWS][TILE_COLS];
    __shared__ float Nds[TILE_COLS][TILE_COLS];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_ROWS + ty;
    int Col = blockIdx.x * TILE_COLS + tx;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (K + TILE_COLS - 1) / TILE_COLS; ++ph) {
        int mCol = ph * TILE_COLS + tx;
        if (Row < J && mCol < K)
            Mds[ty][tx] = M[Row * K + mCol];
        else
            Mds[ty][tx] = 0.0f;
        if (ty < TILE_COLS) {
            int nRow = ph * TILE_COLS + ty;
            if (nRow < K && Col < L)
                Nds[ty][tx] = N[nRow * L + Col];
            else
                Nds[ty][tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_COLS; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_COLS, TILE_ROWS);
    dim3 dimGrid((L + TILE_COLS - 1) / TILE_COLS, (J + TILE_ROWS - 1) / TILE_ROWS);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
