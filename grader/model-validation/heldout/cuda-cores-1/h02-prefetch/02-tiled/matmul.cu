// Held-out kernel h02-prefetch (stage 02-tiled): 16x16 tiles with register double-buffering: the next phase's two elements are loaded into registers before this phase's products (the book's exercise).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = Width / TILE_WIDTH;
    // Phase 0's elements; each phase then stores what the previous one fetched.
    float mNext = M[Row * Width + tx];
    float nNext = N[ty * Width + Col];
    float Pvalue = 0;
    for (int ph = 0; ph < phases; ++ph) {
        Mds[ty][tx] = mNext;
        Nds[ty][tx] = nNext;
        __syncthreads();
        if (ph + 1 < phases) {
            mNext = M[Row * Width + (ph + 1) * TILE_WIDTH + tx];
            nNext = N[((ph + 1) * TILE_WIDTH + ty) * Width + Col];
        }
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
