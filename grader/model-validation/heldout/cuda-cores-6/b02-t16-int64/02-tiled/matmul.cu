// Held-out kernel b02-t16-int64 (stage 02-tiled): 16x16 tiles with every index (thread, row, column, phase, k) an int64_t.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdint>

#define TILE_WIDTH 16

// 16x16 tiles with every index an int64_t.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int64_t tx = threadIdx.x, ty = threadIdx.y;
    int64_t W = Width;
    int64_t Row = (int64_t)blockIdx.y * TILE_WIDTH + ty;
    int64_t Col = (int64_t)blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int64_t ph = 0; ph < W / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[Row * W + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * W + Col];
        __syncthreads();
        for (int64_t k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[Row * W + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
