// Held-out kernel q03-kmin-t32 (stage 03-boundary): 32x32 tiles (1024 threads) loaded only where the elements exist (no zero fill), the k loop of a phase bounded by min(32, Width - ph*32) and run only by threads whose element of P exists.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32

// 32x32 tiles (1024 threads). Only elements inside the matrices are loaded (no zero fill): the k
// loop of each phase runs over the tile's valid extent, min(TILE_WIDTH, Width - ph*TILE_WIDTH), so
// a thread whose element of P exists never reads a tile element that was not loaded this phase.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    bool inside = Row < Width && Col < Width;

    float Pvalue = 0.0f;
    for (int ph = 0; ph * TILE_WIDTH < Width; ++ph) {
        int k0 = ph * TILE_WIDTH;
        int kLen = min(TILE_WIDTH, Width - k0);
        if (Row < Width && k0 + tx < Width) Mds[ty][tx] = M[Row * Width + k0 + tx];
        if (k0 + ty < Width && Col < Width) Nds[ty][tx] = N[(k0 + ty) * Width + Col];
        __syncthreads();
        if (inside) {
            for (int k = 0; k < kLen; ++k)
                Pvalue += Mds[ty][k] * Nds[k][tx];
        }
        __syncthreads();
    }
    if (inside)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
