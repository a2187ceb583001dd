// Held-out kernel b03-t16-tile-gridstride (stage 03-boundary): 16x16 tiles on a fixed grid of at most 24x24 blocks, each block walking the tiles of P with a 2-D grid-stride loop (tile rows by gridDim.y, tile columns by gridDim.x), the book's if/else bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define MAX_GRID 24

// 16x16 tiles over a fixed grid of at most 24x24 blocks: each block walks the tiles of P with a
// 2-D grid-stride loop (tile rows by gridDim.y, tile columns by gridDim.x); every thread of a
// block takes part in every tile, so the barriers stay uniform.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x; int ty = threadIdx.y;
    int tiles = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int tr = blockIdx.y; tr < tiles; tr += gridDim.y) {
        for (int tc = blockIdx.x; tc < tiles; tc += gridDim.x) {
            int Row = tr * TILE_WIDTH + ty;
            int Col = tc * TILE_WIDTH + tx;
            float Pvalue = 0;
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
            if (Row < Width && Col < Width) P[Row * Width + Col] = Pvalue;
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int tiles = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    int g = tiles < MAX_GRID ? tiles : MAX_GRID;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(g, g);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
