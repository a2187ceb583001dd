// Held-out kernel q03-t32-b32x8-continue (stage 03-boundary): 32x8 blocks, each a 32x32 tile of P: each thread loads and computes 4 adjacent rows (ty*4 .. ty*4 + 3), out-of-range tile elements zeroed and skipped with continue, rows outside P skipped with continue at the store.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32
#define ROWS_PER_THREAD 4   // 32 rows of the tile / 8 rows of threads

// 32x8 blocks, each a 32x32 tile of P: thread (tx, ty) loads and computes the 4 adjacent rows
// ty*4 .. ty*4 + 3 of the tile. Elements outside the matrices are set to 0 and the loop goes on
// with `continue`; rows outside P are skipped the same way at the store.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE][TILE];
    __shared__ float Nds[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * TILE;
    int Col = blockIdx.x * TILE + tx;

    float acc[ROWS_PER_THREAD] = {0.0f, 0.0f, 0.0f, 0.0f};
    int phases = (Width + TILE - 1) / TILE;
    for (int ph = 0; ph < phases; ++ph) {
        for (int i = 0; i < ROWS_PER_THREAD; ++i) {
            int r = ty * ROWS_PER_THREAD + i;
            int gRow = rowBase + r, gCol = ph * TILE + tx;
            if (gRow >= Width || gCol >= Width) {
                Mds[r][tx] = 0.0f;
                continue;
            }
            Mds[r][tx] = M[gRow * Width + gCol];
        }
        for (int i = 0; i < ROWS_PER_THREAD; ++i) {
            int r = ty * ROWS_PER_THREAD + i;
            int gRow = ph * TILE + r;
            if (gRow >= Width || Col >= Width) {
                Nds[r][tx] = 0.0f;
                continue;
            }
            Nds[r][tx] = N[gRow * Width + Col];
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float n = Nds[k][tx];
            for (int i = 0; i < ROWS_PER_THREAD; ++i)
                acc[i] += Mds[ty * ROWS_PER_THREAD + i][k] * n;
        }
        __syncthreads();
    }
    if (Col >= Width) return;
    for (int i = 0; i < ROWS_PER_THREAD; ++i) {
        int Row = rowBase + ty * ROWS_PER_THREAD + i;
        if (Row >= Width) continue;
        P[Row * Width + Col] = acc[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE, TILE / ROWS_PER_THREAD);
    dim3 dimGrid((Width + TILE - 1) / TILE, (Width + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
