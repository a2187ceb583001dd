// Held-out kernel h03-t8x32 (stage 03-boundary): 32x8 blocks, each an 8-row x 32-column tile of P, phases 8 deep (M tile 8x8, N tile 8x32): many short phases.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_ROWS 8    // rows of P per block (blockDim.y), and the depth of a phase
#define TILE_COLS 32   // columns of P per block (blockDim.x)

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_ROWS][TILE_ROWS];
    __shared__ float Nds[TILE_ROWS][TILE_COLS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_ROWS + ty;
    int Col = blockIdx.x * TILE_COLS + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (Width + TILE_ROWS - 1) / TILE_ROWS; ++ph) {
        int k0 = ph * TILE_ROWS;
        if (tx < TILE_ROWS)
            Mds[ty][tx] = (Row < Width && k0 + tx < Width) ? M[Row * Width + k0 + tx] : 0.0f;
        Nds[ty][tx] = (k0 + ty < Width && Col < Width) ? N[(k0 + ty) * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_ROWS; ++k)
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
