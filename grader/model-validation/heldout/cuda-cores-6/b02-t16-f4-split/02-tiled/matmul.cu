// Held-out kernel b02-t16-f4-split (stage 02-tiled): 16x16 tiles loaded as float4 by a quarter of the block each: threads 0-63 one float4 of the M tile, threads 64-127 one of the N tile, threads 128-255 load nothing.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles loaded as float4 by a quarter of the block each: threads 0-63 load the M tile (one
// float4 each: row t / 4, columns 4 (t % 4) ..), threads 64-127 the N tile, threads 128-255 none.
// Width is a multiple of 32, so every float4 is 16-byte aligned.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ __align__(16) float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ __align__(16) float Nds[TILE_WIDTH][TILE_WIDTH];
    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;
    int t = ty * TILE_WIDTH + tx;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        if (t < 64) {
            int r = t / 4, c = (t % 4) * 4;
            *reinterpret_cast<float4*>(&Mds[r][c]) =
                *reinterpret_cast<const float4*>(&M[(by * TILE_WIDTH + r) * Width + ph * TILE_WIDTH + c]);
        } else if (t < 128) {
            int u = t - 64;
            int r = u / 4, c = (u % 4) * 4;
            *reinterpret_cast<float4*>(&Nds[r][c]) =
                *reinterpret_cast<const float4*>(&N[(ph * TILE_WIDTH + r) * Width + bx * TILE_WIDTH + c]);
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
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
