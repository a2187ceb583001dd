// Held-out kernel v03-unsigned-cmp (stage 03-boundary): 16x16 tiles with Row, Col, the tile indices and Width unsigned: each bounds test a single unsigned comparison, the row and column tests hoisted into bools, the phase count (Width + 15) >> 4, #pragma unroll on the k loop.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles whose bounds tests are single unsigned comparisons: (unsigned)Row < (unsigned)Width
// (a negative index would wrap to a large one and fail as well); the phase count (Width + 15) >> 4.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    const unsigned W = (unsigned)Width;
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned Row = blockIdx.y * TILE_WIDTH + ty;
    const unsigned Col = blockIdx.x * TILE_WIDTH + tx;
    const bool rowIn = Row < W, colIn = Col < W;

    float Pvalue = 0.0f;
    const unsigned phases = (W + TILE_WIDTH - 1) >> 4;
    for (unsigned ph = 0; ph < phases; ++ph) {
        const unsigned mc = (ph << 4) + tx, nr = (ph << 4) + ty;
        Mds[ty][tx] = (rowIn && mc < W) ? M[Row * W + mc] : 0.0f;
        Nds[ty][tx] = (nr < W && colIn) ? N[nr * W + Col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (rowIn && colIn) P[Row * W + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
