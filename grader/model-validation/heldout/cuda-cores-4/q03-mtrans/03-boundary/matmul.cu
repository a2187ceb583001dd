// Held-out kernel q03-mtrans (stage 03-boundary): 16x16 tiles with bounds tests, the M tile stored transposed (MdsT[tx][ty]) and read as MdsT[k][ty]: 16-way bank conflicts on its stores.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles with bounds tests; the M tile is stored transposed (MdsT[tx][ty] holds
// M[Row][ph*16 + tx]) and read as MdsT[k][ty].
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float MdsT[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0.0f;
    int numPhases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < numPhases; ++ph) {
        if (Row < Width && ph * TILE_WIDTH + tx < Width)
            MdsT[tx][ty] = M[Row * Width + ph * TILE_WIDTH + tx];
        else
            MdsT[tx][ty] = 0.0f;
        if (ph * TILE_WIDTH + ty < Width && Col < Width)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += MdsT[k][ty] * Nds[k][tx];
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
