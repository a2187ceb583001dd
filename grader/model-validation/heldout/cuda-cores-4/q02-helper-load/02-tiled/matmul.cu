// Held-out kernel q02-helper-load (stage 02-tiled): 16x16 tiles, both tiles loaded through one __device__ helper loadTile(tile, A, row0, col0, Width), the phase loop stepping t by 16 over Width.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Copies element (ty, tx) of the TILE_WIDTH x TILE_WIDTH tile of A whose top-left corner is
// (row0, col0) into tile[ty][tx]. Used for both the M tile and the N tile.
__device__ void loadTile(float tile[TILE_WIDTH][TILE_WIDTH], const float* A, int row0, int col0, int Width) {
    int tx = threadIdx.x, ty = threadIdx.y;
    tile[ty][tx] = A[(row0 + ty) * Width + col0 + tx];
}

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * TILE_WIDTH;
    int colBase = blockIdx.x * TILE_WIDTH;

    float Pvalue = 0.0f;
    for (int t = 0; t < Width; t += TILE_WIDTH) {
        loadTile(Mds, M, rowBase, t, Width);   // M[rowBase .. +15][t .. t+15]
        loadTile(Nds, N, t, colBase, Width);   // N[t .. t+15][colBase .. +15]
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[(rowBase + ty) * Width + colBase + tx] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
