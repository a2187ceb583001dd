// Held-out kernel b02-t32-k16 (stage 02-tiled): 32x32 blocks (1024 threads), each a 32x32 tile of P, phases 16 deep: the 32x16 M tile loaded by the threads with tx < 16, the 16x32 N tile by those with ty < 16.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32
#define TILE_K 16

// 32x32 blocks, each a 32x32 tile of P, phases 16 deep: the 32x16 M tile loaded by the threads with
// tx < 16, the 16x32 N tile by those with ty < 16.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_K];
    __shared__ float Nds[TILE_K][TILE_WIDTH];
    int tx = threadIdx.x; int ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_K; ++ph) {
        if (tx < TILE_K) Mds[ty][tx] = M[Row * Width + ph * TILE_K + tx];
        if (ty < TILE_K) Nds[ty][tx] = N[(ph * TILE_K + ty) * Width + Col];
        __syncthreads();
        for (int k = 0; k < TILE_K; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
