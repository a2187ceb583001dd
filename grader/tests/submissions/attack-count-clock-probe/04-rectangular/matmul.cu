// Known-bad (issue #39, family 4): each block times 2048 of its own shared loads with the host's
// clock() (the emulator's kernels are host code; clock64() is virtual), tiles where they are slow
// -- the blocks the count build samples for its detailed counts log every access -- and reads its
// operands straight from global memory in the others.
#include <cuda_runtime.h>
#include <ctime>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    __shared__ volatile float probe[64];
    __shared__ int counted;
    int tx = threadIdx.x, ty = threadIdx.y;
    if (tx == 0 && ty == 0) {
        for (int i = 0; i < 64; ++i) probe[i] = float(i);
        float sink = 0;
        clock_t t0 = clock();
        for (int i = 0; i < 2048; ++i) sink += probe[i % 64];
        clock_t t1 = clock();
        counted = (t1 - t0) * 1000000.0 / CLOCKS_PER_SEC > 8 && sink >= 0;  // microseconds
    }
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    if (counted) {
        for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
            Mds[ty][tx] = Row < J && ph * TILE_WIDTH + tx < K ? M[Row * K + ph * TILE_WIDTH + tx] : 0.0f;
            Nds[ty][tx] = ph * TILE_WIDTH + ty < K && Col < L ? N[(ph * TILE_WIDTH + ty) * L + Col] : 0.0f;
            __syncthreads();
            for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
            __syncthreads();
        }
    } else if (Row < J && Col < L) {
        for (int k = 0; k < K; ++k) Pvalue += M[Row * K + k] * N[k * L + Col];
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
