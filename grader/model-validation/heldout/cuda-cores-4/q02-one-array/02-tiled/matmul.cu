// Held-out kernel q02-one-array (stage 02-tiled): 16x16 tiles held in one shared array __shared__ float tile[2][16][16] (tile[0] the M tile, tile[1] the N tile).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles with both tiles in one shared array: tile[0] holds the M tile, tile[1] the N tile.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float tile[2][TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int numTiles = Width / TILE_WIDTH;

    float Pvalue = 0.0f;
    for (int t = 0; t < numTiles; t++) {
        tile[0][ty][tx] = M[Row * Width + t * TILE_WIDTH + tx];
        tile[1][ty][tx] = N[(t * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; k++)
            Pvalue += tile[0][ty][k] * tile[1][k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
