// Known-bad (issue #39, family 4): each block times eight of its own shared loads with clock64();
// where they are slow (the count build used to log them only in the blocks it counted: about 370 ns
// there against 190 ns elsewhere) it believes it is counted and runs the tiled phases, elsewhere it
// reads its operands straight from global memory.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    __shared__ volatile float probe[8];
    __shared__ int counted;
    int tx = threadIdx.x, ty = threadIdx.y;
    if (tx == 0 && ty == 0) {
        for (int i = 0; i < 8; ++i) probe[i] = float(i);
        float sink = 0;
        long long t0 = clock64();
        for (int i = 0; i < 8; ++i) sink += probe[i];
        long long t1 = clock64();
        counted = t1 - t0 > 280 && sink >= 0;
    }
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    if (counted) {
        for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
            Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
            __syncthreads();
            for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
            __syncthreads();
        }
    } else {
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col];
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}
