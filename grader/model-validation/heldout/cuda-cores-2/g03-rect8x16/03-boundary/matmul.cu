// Held-out kernel g03-rect8x16 (stage 03-boundary): 16x8 blocks, each an 8-row x 16-column tile of P, phases 16 deep (M tile 8x16, N tile 16x16 loaded two rows per thread).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_ROWS 8    // rows of P per block (blockDim.y)
#define TILE_COLS 16   // columns of P per block (blockDim.x), and the depth of a phase

// 16x8 blocks: each computes an 8 x 16 tile of P. Per phase an 8 x 16 tile of M (one element per
// thread) and a 16 x 16 tile of N (two per thread: rows ty and ty + 8).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_ROWS][TILE_COLS];
    __shared__ float Nds[TILE_COLS][TILE_COLS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_ROWS + ty;
    int Col = blockIdx.x * TILE_COLS + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (Width + TILE_COLS - 1) / TILE_COLS; ++ph) {
        int k0 = ph * TILE_COLS;
        if (Row < Width && k0 + tx < Width)
            Mds[ty][tx] = M[Row * Width + k0 + tx];
        else
            Mds[ty][tx] = 0.0f;
        for (int r = ty; r < TILE_COLS; r += TILE_ROWS) {
            if (k0 + r < Width && Col < Width)
                Nds[r][tx] = N[(k0 + r) * Width + Col];
            else
                Nds[r][tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_COLS; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_COLS, TILE_ROWS);
    dim3 dimGrid((Width + TILE_COLS - 1) / TILE_COLS, (Width + TILE_ROWS - 1) / TILE_ROWS);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
