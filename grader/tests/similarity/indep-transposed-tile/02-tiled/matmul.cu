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

    // Nds is filled transposed so that the inner loop reads both tiles along a row
    const int myRow = by * TILE_WIDTH + ty;
    const int myCol = bx * TILE_WIDTH + tx;
    float total = 0;
    for (int tile = 0; tile * TILE_WIDTH < Width; tile++) {
        const int base = tile * TILE_WIDTH;
        Nds[tx][ty] = N[(base + ty) * Width + myCol];
        Mds[ty][tx] = M[myRow * Width + base + tx];
        __syncthreads();
        for (int e = TILE_WIDTH - 1; e >= 0; e--)
            total += Mds[ty][e] * Nds[tx][e];
        __syncthreads();
    }
    P[myRow * Width + myCol] = total;
}

// M, N, P are device pointers; Width is a multiple of 32. Launches one thread per element of P,
// one TILE_WIDTH x TILE_WIDTH block per tile of P, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH + (Width % TILE_WIDTH ? 1 : 0), Width / TILE_WIDTH + (Width % TILE_WIDTH ? 1 : 0));
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
