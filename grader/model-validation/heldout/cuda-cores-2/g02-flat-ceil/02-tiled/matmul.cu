// Held-out kernel g02-flat-ceil (stage 02-tiled): 16x16 tiles in flat 1-D shared arrays, the phase count as the 4th edition's ceil(Width / (float)TILE_WIDTH) in the loop condition (and in the grid).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Tiles in flat 1-D shared arrays; the phase count is the 4th edition's ceil(Width / (float)TILE_WIDTH),
// evaluated in the loop condition.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH * TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH * TILE_WIDTH];
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < ceil(Width / (float)TILE_WIDTH); ++ph) {
        Mds[ty * TILE_WIDTH + tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty * TILE_WIDTH + tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty * TILE_WIDTH + k] * Nds[k * TILE_WIDTH + tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(ceil(Width / (float)TILE_WIDTH), ceil(Width / (float)TILE_WIDTH));
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
