// Held-out kernel k03-b32x8-t32 (stage 03-boundary): 32x8 blocks, each a 32x32 tile of P: every thread loads 4 rows (ty + 8i) of each 32x32 tile and computes the 4 outputs of those rows, sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32
#define BLOCK_Y 8
#define ROWS_PER_THREAD (TILE / BLOCK_Y)   // 4

// 32 x 8 threads per 32 x 32 tile of P: thread (tx, ty) loads rows ty, ty + 8, ty + 16, ty + 24 of
// both tiles and computes P in those 4 rows of column Col.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE][TILE];
    __shared__ float Nds[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * TILE;
    int Col = blockIdx.x * TILE + tx;

    float sum[ROWS_PER_THREAD];
    for (int i = 0; i < ROWS_PER_THREAD; ++i) sum[i] = 0.0f;

    for (int ph = 0; ph < (Width + TILE - 1) / TILE; ++ph) {
        for (int i = 0; i < ROWS_PER_THREAD; ++i) {
            int r = ty + i * BLOCK_Y;
            int mRow = rowBase + r, mCol = ph * TILE + tx;
            int nRow = ph * TILE + r;
            Mds[r][tx] = (mRow < Width && mCol < Width) ? M[mRow * Width + mCol] : 0.0f;
            Nds[r][tx] = (nRow < Width && Col < Width) ? N[nRow * Width + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float n = Nds[k][tx];
            for (int i = 0; i < ROWS_PER_THREAD; ++i)
                sum[i] += Mds[ty + i * BLOCK_Y][k] * n;
        }
        __syncthreads();
    }
    for (int i = 0; i < ROWS_PER_THREAD; ++i) {
        int Row = rowBase + ty + i * BLOCK_Y;
        if (Row < Width && Col < Width)
            P[Row * Width + Col] = sum[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE, BLOCK_Y);
    dim3 dimGrid((Width + TILE - 1) / TILE, (Width + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
