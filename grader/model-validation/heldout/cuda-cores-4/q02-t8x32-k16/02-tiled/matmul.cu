// Held-out kernel q02-t8x32-k16 (stage 02-tiled): 32x8 blocks, each an 8-row x 32-column tile of P, phases 16 deep: the 8x16 M tile loaded by the threads with tx < 16, the 16x32 N tile two rows per thread (ty and ty + 8).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_ROWS 8     // rows of P per block
#define TILE_COLS 32    // columns of P per block
#define TILE_K 16       // depth of a phase

// 32x8 blocks, each an 8-row x 32-column tile of P. Per phase: the 8x16 M tile is loaded by the
// threads with tx < 16, the 16x32 N tile two rows per thread (ty and ty + 8).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_ROWS][TILE_K];
    __shared__ float Nds[TILE_K][TILE_COLS];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_ROWS + ty;
    int Col = blockIdx.x * TILE_COLS + tx;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < Width / TILE_K; ++ph) {
        if (tx < TILE_K)
            Mds[ty][tx] = M[Row * Width + ph * TILE_K + tx];
        Nds[ty][tx] = N[(ph * TILE_K + ty) * Width + Col];
        Nds[ty + TILE_ROWS][tx] = N[(ph * TILE_K + ty + TILE_ROWS) * Width + Col];
        __syncthreads();
        for (int k = 0; k < TILE_K; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_COLS, TILE_ROWS);
    dim3 dimGrid(Width / TILE_COLS, Width / TILE_ROWS);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
