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

// Thread (tx, ty) of block (bx, by) computes P[Row][Col]; M, N, P are device pointers.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on.
    // TODO (1): compute Row (from by and ty) and Col (from bx and tx), the element of P this thread
    //   computes
    int Row = 0;
    int Col = 0;
    (void)bx; (void)by;

    // Loop over the M and N tiles required to compute the P element.
    float Pvalue = 0;
    // TODO (2): one phase per tile (ph = 0 .. Width/TILE_WIDTH-1): load M[Row][ph*TILE_WIDTH+tx]
    //   into Mds[ty][tx] and N[ph*TILE_WIDTH+ty][Col] into Nds[ty][tx]; __syncthreads() so the
    //   whole tile is loaded; add Mds[ty][k]*Nds[k][tx] for k = 0 .. TILE_WIDTH-1 to Pvalue;
    //   __syncthreads() again before the next phase overwrites the tiles
    (void)M; (void)N; (void)Width; (void)tx; (void)ty; (void)Mds; (void)Nds;

    // TODO (3): store Pvalue in P[Row][Col]
    (void)P; (void)Row; (void)Col; (void)Pvalue;
}

// M, N, P are device pointers; Width is a multiple of 32. Launches one thread per element of P,
// one TILE_WIDTH x TILE_WIDTH block per tile of P, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    // TODO (4): use TILE_WIDTH x TILE_WIDTH blocks (the block must match the tiles) and enough of
    //   them to cover P (ceiling division, in x for columns and y for rows)
    dim3 dimBlock(1, 1);
    dim3 dimGrid(1, 1);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
