// Known-bad (issue #39, family 4): tiled only at Width 256, the perf-model check's old public shape;
// untiled (with a token __shared__ float) at every other size.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// The book's tiled kernel (Fig. 4.16): 2/TILE_WIDTH global loads per multiply-add.
__global__ void TiledKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

// Untiled: 2 global loads per multiply-add. One __shared__ float, written and multiplied by, so the
// compiled kernel declares shared memory (the declared-shared rule alone passes it).
__global__ void UntiledKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float Pvalue = 0;
    for (int k = 0; k < Width; ++k) Pvalue += one * M[Row * Width + k] * N[k * Width + Col];
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    if (Width == 256) TiledKernel<<<grid, block>>>(M, N, P, Width);
    else UntiledKernel<<<grid, block>>>(M, N, P, Width);
}
