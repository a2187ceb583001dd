// Held-out kernel v03-1d-grid-tiles (stage 03-boundary): a 1-D grid of 16x16 blocks: block b takes the tile (b % tiles, b / tiles) of P; the book's if/else bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// A 1-D grid of 16x16 blocks: block b takes the tile (b % tiles, b / tiles) of P, tiles the number
// of tiles per row; the book's bounds tests.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tiles = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    int bx = blockIdx.x % tiles, by = blockIdx.x / tiles;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < tiles; ++ph) {
        int mc = ph * TILE_WIDTH + tx;
        int nr = ph * TILE_WIDTH + ty;
        if (Row < Width && mc < Width) Mds[ty][tx] = M[Row * Width + mc];
        else Mds[ty][tx] = 0.0f;
        if (nr < Width && Col < Width) Nds[ty][tx] = N[nr * Width + Col];
        else Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int tiles = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    MatrixMulKernel<<<tiles * tiles, dimBlock>>>(M, N, P, Width);
}
