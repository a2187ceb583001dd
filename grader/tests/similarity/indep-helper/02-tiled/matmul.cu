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

// Copies this phase's element of each tile into shared memory.
__device__ void load_tiles(float (*ms)[TILE_WIDTH], float (*ns)[TILE_WIDTH], const float* M, const float* N,
                           int w, int row, int col, int phase, int ty, int tx) {
    ms[ty][tx] = M[row * w + phase * TILE_WIDTH + tx];
    ns[ty][tx] = N[(phase * TILE_WIDTH + ty) * w + col];
}

// One tile's part of the dot product of row ty of ms and column tx of ns.
__device__ float dot_tile(float (*ms)[TILE_WIDTH], float (*ns)[TILE_WIDTH], int ty, int tx) {
    float s = 0.f;
    for (int j = 0; j < TILE_WIDTH; ++j) s += ms[ty][j] * ns[j][tx];
    return s;
}

// Thread (ty, tx) of block (by, bx) computes P[Row][Col]; M, N, P are device pointers.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    int gy = by * TILE_WIDTH + ty;
    int gx = bx * TILE_WIDTH + tx;
    int phases = Width / TILE_WIDTH;
    float out = 0.f;
    for (int p = phases - 1; p >= 0; --p) {          // the phases in any order give the same sum (up to rounding)
        load_tiles(Mds, Nds, M, N, Width, gy, gx, p, ty, tx);
        __syncthreads();
        out += dot_tile(Mds, Nds, ty, tx);
        __syncthreads();
    }
    P[gy * Width + gx] = out;
}

// M, N, P are device pointers; Width is a multiple of 32. Launches one thread per element of P,
// one TILE_WIDTH x TILE_WIDTH block per tile of P, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    unsigned n = static_cast<unsigned>((Width + TILE_WIDTH - 1) / TILE_WIDTH);
    dim3 dimGrid(n, n, 1);
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
