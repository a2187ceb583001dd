// Held-out kernel q04-txrows (stage 04-rectangular): 16x16 tiles with x and y swapped throughout: threadIdx.x and blockIdx.x on rows of P, threadIdx.y and blockIdx.y on columns, the tiles stored as Mds[tx][ty], Nds[tx][ty] (a warp reads 16 rows of M and 16 rows of N).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles with x and y swapped throughout: threadIdx.x and blockIdx.x walk the rows of P,
// threadIdx.y and blockIdx.y its columns; the tiles are stored as Mds[tx][ty] and Nds[tx][ty].
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.x * TILE_WIDTH + tx;
    int Col = blockIdx.y * TILE_WIDTH + ty;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + ty;   // column of M loaded by this thread
        int nRow = ph * TILE_WIDTH + tx;   // row of N loaded by this thread
        if (Row < J && mCol < K) Mds[tx][ty] = M[Row * K + mCol];
        else Mds[tx][ty] = 0.0f;
        if (nRow < K && Col < L) Nds[tx][ty] = N[nRow * L + Col];
        else Nds[tx][ty] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[tx][k] * Nds[k][ty];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((J + TILE_WIDTH - 1) / TILE_WIDTH, (L + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
