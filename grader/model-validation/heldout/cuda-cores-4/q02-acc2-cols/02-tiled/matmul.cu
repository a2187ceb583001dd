// Held-out kernel q02-acc2-cols (stage 02-tiled): 16x16 threads computing a 16x32 tile of P: two columns per thread (Col and Col + 16) with the sums in a float acc[2], one 16x16 M tile and a 16x32 N tile per phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 threads compute a 16x32 tile of P: each thread two columns, Col and Col + 16, with its two
// sums in a small array. Per phase one 16x16 M tile and a 16x32 N tile (two elements per thread).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][2 * TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * 2 * TILE_WIDTH + tx;

    float acc[2] = {0.0f, 0.0f};
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        Nds[ty][tx + TILE_WIDTH] = N[(ph * TILE_WIDTH + ty) * Width + Col + TILE_WIDTH];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty][k];
            acc[0] += m * Nds[k][tx];
            acc[1] += m * Nds[k][tx + TILE_WIDTH];
        }
        __syncthreads();
    }
    P[Row * Width + Col] = acc[0];
    P[Row * Width + Col + TILE_WIDTH] = acc[1];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / (2 * TILE_WIDTH), Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
