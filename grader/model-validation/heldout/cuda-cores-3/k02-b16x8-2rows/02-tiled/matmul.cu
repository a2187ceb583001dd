// Held-out kernel k02-b16x8-2rows (stage 02-tiled): 16x8 blocks (128 threads) computing 16x16 tiles: each thread loads 2 elements of each tile (rows ty and ty + 8) and computes the 2 outputs of those rows.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define BLOCK_ROWS 8   // threads per block in y: each thread covers rows ty and ty + 8 of the tile

// 16 x 8 blocks for 16 x 16 tiles: every thread loads two elements of each tile and computes the
// two elements of P in rows ty and ty + 8 of the tile.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row0 = blockIdx.y * TILE_WIDTH + ty;
    int Row1 = Row0 + BLOCK_ROWS;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float P0 = 0.0f, P1 = 0.0f;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[Row0 * Width + ph * TILE_WIDTH + tx];
        Mds[ty + BLOCK_ROWS][tx] = M[Row1 * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        Nds[ty + BLOCK_ROWS][tx] = N[(ph * TILE_WIDTH + ty + BLOCK_ROWS) * Width + Col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k][tx];
            P0 += Mds[ty][k] * n;
            P1 += Mds[ty + BLOCK_ROWS][k] * n;
        }
        __syncthreads();
    }
    P[Row0 * Width + Col] = P0;
    P[Row1 * Width + Col] = P1;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, BLOCK_ROWS);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
