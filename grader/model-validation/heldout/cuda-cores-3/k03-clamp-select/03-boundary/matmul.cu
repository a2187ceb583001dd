// Held-out kernel k03-clamp-select (stage 03-boundary): 16x16 tiles whose loads are never skipped: every thread reads M and N at indices clamped with min(.., Width - 1), and a select stores 0 where the element lies outside.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// No branch around the loads: each thread always reads an element of M and of N, at indices clamped
// into the matrix with min(.., Width - 1), and keeps it only when the unclamped element exists.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int last = Width - 1;
    int safeRow = min(Row, last), safeCol = min(Col, last);

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        int nRow = ph * TILE_WIDTH + ty;
        float m = M[safeRow * Width + min(mCol, last)];
        float n = N[min(nRow, last) * Width + safeCol];
        Mds[ty][tx] = (Row < Width && mCol < Width) ? m : 0.0f;
        Nds[ty][tx] = (nRow < Width && Col < Width) ? n : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
