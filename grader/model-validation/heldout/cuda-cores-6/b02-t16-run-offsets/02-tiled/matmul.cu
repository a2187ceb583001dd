// Held-out kernel b02-t16-run-offsets (stage 02-tiled): 16x16 tiles with running integer offsets (mIdx += 16 along the row of M, nIdx += 16 * Width down the column of N), the phase loop running until mIdx reaches the row's end.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles with running integer offsets: mIdx starts at Row * Width + tx and steps by
// TILE_WIDTH, nIdx starts at ty * Width + Col and steps by TILE_WIDTH * Width; the phase loop
// counts the offset of M up to the end of the row.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x; int ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int mIdx = Row * Width + tx;
    int mEnd = Row * Width + Width;
    int nIdx = ty * Width + Col;
    const int nStep = TILE_WIDTH * Width;
    float Pvalue = 0;
    for (; mIdx < mEnd; mIdx += TILE_WIDTH, nIdx += nStep) {
        Mds[ty][tx] = M[mIdx];
        Nds[ty][tx] = N[nIdx];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
