// Held-out kernel k03-ptr-step (stage 03-boundary): 16x16 tiles with a pointer per thread into M's row and one into N's column, advanced by TILE_WIDTH and TILE_WIDTH * Width each phase, the bounds tests on running counters.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Each thread keeps a pointer to its element of the current M tile (row Row, column mCol) and one to
// its element of the current N tile (row nRow, column Col), and moves both one tile on per phase;
// mCol and nRow run alongside for the bounds tests.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    bool rowIn = Row < Width, colIn = Col < Width;

    const float* mPtr = M + Row * Width + tx;
    const float* nPtr = N + ty * Width + Col;
    int mCol = tx, nRow = ty;
    float Pvalue = 0.0f;
    while (mCol - tx < Width) {   // one phase per TILE_WIDTH columns of M
        if (rowIn && mCol < Width) Mds[ty][tx] = *mPtr;
        else Mds[ty][tx] = 0.0f;
        if (nRow < Width && colIn) Nds[ty][tx] = *nPtr;
        else Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
        mPtr += TILE_WIDTH;
        nPtr += TILE_WIDTH * Width;
        mCol += TILE_WIDTH;
        nRow += TILE_WIDTH;
    }
    if (rowIn && colIn)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
