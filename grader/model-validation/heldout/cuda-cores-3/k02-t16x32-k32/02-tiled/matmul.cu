// Held-out kernel k02-t16x32-k32 (stage 02-tiled): 32x16 blocks, each a 16-row x 32-column tile of P, phases 32 deep: the 16x32 M tile one element per thread, the 32x32 N tile two rows per thread (ty and ty + 16).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_ROWS 16   // rows of P per block (blockDim.y)
#define TILE_COLS 32   // columns of P per block (blockDim.x)
#define TILE_K 32      // depth of a phase

// A block of 32 x 16 threads computes a 16 x 32 tile of P. Each phase loads a 16 x 32 tile of M
// (one element per thread) and a 32 x 32 tile of N (two rows per thread: ty and ty + 16).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_ROWS][TILE_K];
    __shared__ float Nds[TILE_K][TILE_COLS];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_ROWS + ty;
    int Col = blockIdx.x * TILE_COLS + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_K; ++ph) {
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

// Width is a multiple of 32: whole tiles only.
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_COLS, TILE_ROWS);
    dim3 dimGrid(Width / TILE_COLS, Width / TILE_ROWS);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
