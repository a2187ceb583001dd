// Held-out kernel k03-ternary-min (stage 03-boundary): 16x16 tiles, loads padded with zeros by ternaries, the inner loop bounded by min(TILE_WIDTH, Width - ph * TILE_WIDTH) so the last phase skips the padding.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Tiles padded with zeros by ternaries; in each phase the inner loop stops at the last column of M
// that exists, min(TILE_WIDTH, Width - ph * TILE_WIDTH), so the partial last phase adds no zeros.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int numPhases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < numPhases; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        int nRow = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < Width && mCol < Width) ? M[Row * Width + mCol] : 0.0f;
        Nds[ty][tx] = (nRow < Width && Col < Width) ? N[nRow * Width + Col] : 0.0f;
        __syncthreads();
        int kEnd = min(TILE_WIDTH, Width - ph * TILE_WIDTH);
        for (int k = 0; k < kEnd; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int tiles = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(tiles, tiles);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
