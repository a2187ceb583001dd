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

    const int cc = bx * TILE_WIDTH + tx;
    const int rr = by * TILE_WIDTH + ty;
    float s = 0;
    for (int t = 0; t * TILE_WIDTH < Width; t++) {
        const int off = t * TILE_WIDTH;
        Mds[ty][tx] = M[rr * Width + off + tx];
        Nds[tx][ty] = N[(off + ty) * Width + cc];
        __syncthreads();
        for (int kk = TILE_WIDTH - 1; kk >= 0; kk--) s += Mds[ty][kk] * Nds[tx][kk];
        __syncthreads();
    }
    P[rr * Width + cc] = s;
}

// M, N, P are device pointers; Width is a multiple of 32. Launches one thread per element of P,
// one TILE_WIDTH x TILE_WIDTH block per tile of P, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimGrid(Width / TILE_WIDTH + (Width % TILE_WIDTH ? 1 : 0), Width / TILE_WIDTH + (Width % TILE_WIDTH ? 1 : 0));
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
