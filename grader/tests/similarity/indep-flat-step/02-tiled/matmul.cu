// Starter file, generated from the reference solution by `./tilelab starter`.
// Stage 02-tiled: tiles of M and N in shared memory (PMPP 3rd ed., section 4.5, Fig. 4.16).
//
// P = M N for square Width x Width matrices, row-major float; Width is a multiple of 32 (so of
// TILE_WIDTH as well). Each block computes one TILE_WIDTH x TILE_WIDTH tile of P. The dot products
// are computed in phases: in each phase the block's threads load one tile of M and one tile of N
// into shared memory together, wait for each other, and then every thread uses TILE_WIDTH
// elements of each tile. Every element of M and N is read from global memory Width / TILE_WIDTH
// times instead of Width times.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Thread (ty, tx) of block (by, bx) computes P[Row][Col]; M, N, P are device pointers.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    int row = by * TILE_WIDTH + ty, col = bx * TILE_WIDTH + tx;
    float sum = 0;
    // t is the first column of the M tile (and first row of the N tile) of this phase
    for (int t = 0; t < Width; t += TILE_WIDTH) {
        float* ms = &Mds[0][0];
        float* ns = &Nds[0][0];
        ms[ty * TILE_WIDTH + tx] = M[row * Width + (t + tx)];
        ns[ty * TILE_WIDTH + tx] = N[(t + ty) * Width + col];
        __syncthreads();
        int k = 0;
        while (k < TILE_WIDTH) {
            sum += ms[ty * TILE_WIDTH + k] * ns[k * TILE_WIDTH + tx];
            ++k;
        }
        __syncthreads();
    }
    if (row < Width && col < Width) P[row * Width + col] = sum;
}

// M, N, P are device pointers; Width is a multiple of 32. Launches one thread per element of P,
// one TILE_WIDTH x TILE_WIDTH block per tile of P, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock;
    dimBlock.x = TILE_WIDTH; dimBlock.y = TILE_WIDTH; dimBlock.z = 1;
    dim3 dimGrid;
    dimGrid.x = Width / TILE_WIDTH + (Width % TILE_WIDTH != 0);
    dimGrid.y = dimGrid.x; dimGrid.z = 1;
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
