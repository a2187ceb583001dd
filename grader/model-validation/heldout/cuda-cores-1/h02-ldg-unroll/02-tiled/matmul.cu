// Held-out kernel h02-ldg-unroll (stage 02-tiled): 16x16 tiles, __restrict__ and __ldg tile loads, an unrolled inner loop of fmaf.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N,
                                float* __restrict__ P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0.0f;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = __ldg(&M[Row * Width + ph * TILE_WIDTH + tx]);
        Nds[ty][tx] = __ldg(&N[(ph * TILE_WIDTH + ty) * Width + Col]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue = fmaf(Mds[ty][k], Nds[k][tx], Pvalue);
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
