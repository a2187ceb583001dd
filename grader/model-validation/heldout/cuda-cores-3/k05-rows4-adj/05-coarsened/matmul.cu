// Held-out kernel k05-rows4-adj (stage 05-coarsened): coarsening along rows: 16x16 threads compute a 64x16 tile of P, each thread 4 adjacent rows (ty*4 .. ty*4 + 3) of one column; the 64x16 M tile loaded 4 rows per thread, one 16x16 N tile; sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define ROWS 4   // rows of P per thread, adjacent

// Coarsening along rows: thread (tx, ty) computes rows ty*4 .. ty*4 + 3 of the block's 64 x 16 tile
// of P, in column tx. Per phase the block loads a 64 x 16 tile of M (4 rows per thread) and one
// 16 x 16 tile of N, whose value Nds[k][tx] is then used for 4 rows.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[ROWS * TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int rowStart = blockIdx.y * ROWS * TILE_WIDTH + ty * ROWS;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float acc[ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};
    int phases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < phases; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        for (int r = 0; r < ROWS; ++r) {
            int Row = rowStart + r;
            Mds[ty * ROWS + r][tx] = (Row < J && mCol < K) ? M[Row * K + mCol] : 0.0f;
        }
        int nRow = ph * TILE_WIDTH + ty;
        Nds[ty][tx] = (nRow < K && Col < L) ? N[nRow * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k][tx];
            for (int r = 0; r < ROWS; ++r)
                acc[r] += Mds[ty * ROWS + r][k] * n;
        }
        __syncthreads();
    }
    for (int r = 0; r < ROWS; ++r) {
        int Row = rowStart + r;
        if (Row < J && Col < L) P[Row * L + Col] = acc[r];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + ROWS * TILE_WIDTH - 1) / (ROWS * TILE_WIDTH));
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
