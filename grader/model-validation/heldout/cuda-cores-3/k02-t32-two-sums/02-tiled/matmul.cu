// Held-out kernel k02-t32-two-sums (stage 02-tiled): 32x32 tiles, the width a constexpr int, the inner loop #pragma unroll'd into fmaf on two partial sums (even and odd k) added at the store.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

constexpr int TILE_WIDTH = 32;

// 32 x 32 tiles; the inner loop fully unrolled, alternating between two partial sums (even and odd
// k) so that consecutive fmaf do not wait for each other.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Row = blockIdx.y * TILE_WIDTH + ty;
    const int Col = blockIdx.x * TILE_WIDTH + tx;

    float sumEven = 0.0f, sumOdd = 0.0f;
    const int phases = Width / TILE_WIDTH;
    for (int ph = 0; ph < phases; ++ph) {
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; k += 2) {
            sumEven = fmaf(Mds[ty][k], Nds[k][tx], sumEven);
            sumOdd = fmaf(Mds[ty][k + 1], Nds[k + 1][tx], sumOdd);
        }
        __syncthreads();
    }
    P[Row * Width + Col] = sumEven + sumOdd;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
