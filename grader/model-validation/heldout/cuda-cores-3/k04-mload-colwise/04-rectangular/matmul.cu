// Held-out kernel k04-mload-colwise (stage 04-rectangular): 16x16 tiles with the M tile loaded by columns: thread (tx, ty) loads M[by*16 + tx][ph*16 + ty] into Mds[tx][ty] (a warp reads 2 columns of 16 rows), the N tile as the book.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// The M tile is loaded with threadIdx.x running down its rows: thread (tx, ty) loads element
// (tx, ty) of the tile, M[by*16 + tx][ph*16 + ty], into Mds[tx][ty]. The N tile is loaded as in the
// book and the products are the book's.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    int loadRow = by * TILE_WIDTH + tx;   // the row of M this thread loads

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int loadCol = ph * TILE_WIDTH + ty;
        if (loadRow < J && loadCol < K)
            Mds[tx][ty] = M[loadRow * K + loadCol];
        else
            Mds[tx][ty] = 0.0f;
        if (ph * TILE_WIDTH + ty < K && Col < L)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * L + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
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
