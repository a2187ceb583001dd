// Held-out kernel k03-t16x32 (stage 03-boundary): 32x16 blocks, each a 16-row x 32-column tile of P, phases 16 deep: the 16x16 M tile loaded by the threads with tx < 16 (if/else zero fill), the 16x32 N tile one element per thread.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_M 16   // rows of P per block, and the depth of a phase
#define TILE_N 32   // columns of P per block

// 32 x 16 blocks, each a 16 x 32 tile of P. Per phase: the 16 x 16 tile of M, loaded by the half of
// the threads with tx < 16, and the 16 x 32 tile of N, one element per thread.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_M][TILE_M];
    __shared__ float Nds[TILE_M][TILE_N];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_M + ty;
    int Col = blockIdx.x * TILE_N + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < (Width + TILE_M - 1) / TILE_M; ++ph) {
        if (tx < TILE_M) {
            if (Row < Width && ph * TILE_M + tx < Width)
                Mds[ty][tx] = M[Row * Width + ph * TILE_M + tx];
            else
                Mds[ty][tx] = 0.0f;
        }
        if (ph * TILE_M + ty < Width && Col < Width)
            Nds[ty][tx] = N[(ph * TILE_M + ty) * Width + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_M; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_N, TILE_M);
    dim3 dimGrid((Width + TILE_N - 1) / TILE_N, (Width + TILE_M - 1) / TILE_M);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
