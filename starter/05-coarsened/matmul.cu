// Starter file, generated from the reference solution by `./tilelab starter`.
// Stage 05-coarsened: shared memory sized at run time (PMPP section 4.7) and thread coarsening
// (PMPP section 6.3, Fig. 6.13), on rectangular matrices.
//
// P = M N with M J x K, N K x L, P J x L, row-major float, any sizes >= 1. Each thread computes
// COARSE_FACTOR elements of P in one row, TILE_WIDTH columns apart. In each phase the block loads
// one tile of M and the COARSE_FACTOR tiles of N beside each other; a thread then reads each
// value of its M row once into a register and uses it COARSE_FACTOR times, so there are
// (1 + COARSE_FACTOR) / COARSE_FACTOR shared-memory reads per multiply-add instead of 2, and the
// tile of M is loaded from global memory once for COARSE_FACTOR tiles of P instead of once each.
// The tile width is chosen when the program runs, from what the device offers, and all the tiles
// live in one dynamically sized extern __shared__ array (the third launch parameter).
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4

template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    // One TILE_WIDTH^2 tile of M, then COARSE_FACTOR tiles of N: (1 + COARSE_FACTOR) TILE_WIDTH^2 floats.
    extern __shared__ float Mds_Nds[];
    float* Mds = Mds_Nds;
    float* Nds = Mds_Nds + TILE_WIDTH * TILE_WIDTH;

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;

    // TODO (1): compute Row, and colStart (the first of this thread's COARSE_FACTOR columns: the
    //   block covers TILE_WIDTH * COARSE_FACTOR columns, and column c of the thread is colStart + c
    //   * TILE_WIDTH); set the COARSE_FACTOR partial sums to 0

    // TODO (2): the phase loop over K: load the tile of M into Mds and the COARSE_FACTOR tiles of N
    //   into Nds (tile c at Nds + c * TILE_WIDTH^2), 0 outside the matrices; synchronise; for each
    //   k read Mds[ty][k] once and add its products with the COARSE_FACTOR values Nds_c[k][tx];
    //   synchronise

    // TODO (3): store the COARSE_FACTOR results, each only where it lies inside P
}

// The largest tile width in {32, 16, 8} whose 1 + COARSE_FACTOR tiles fit the device's shared memory per block
// and whose TILE_WIDTH^2 threads fit its block size. Asked once; the answer does not change.
static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen == 0) {
        // TODO (4): read the device properties (cudaGetDevice, cudaGetDeviceProperties) and choose
        //   the largest tile width in {32, 16, 8} with (1 + COARSE_FACTOR) * TILE_WIDTH^2 floats <=
        //   sharedMemPerBlock and TILE_WIDTH^2 <= maxThreadsPerBlock
        chosen = 16;
    }
    return chosen;
}

// M, N, P are device pointers. Blocks of TILE_WIDTH x TILE_WIDTH threads, each block covering
// TILE_WIDTH rows and TILE_WIDTH * COARSE_FACTOR columns of P.
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = chooseTileWidth();
    // TODO (5): the grid (ceiling division: columns covered by TILE_WIDTH * COARSE_FACTOR per
    //   block) and the dynamic shared memory size (the tile of M and the COARSE_FACTOR tiles of N)
    dim3 dimGrid(1, 1);
    size_t shared = 0;
    dim3 dimBlock(tile, tile);
    switch (tile) {
        case 32: MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        case 16: MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        default: MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
    }
}
