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

    // BEGIN SOLUTION: compute Row, and colStart (the first of this thread's COARSE_FACTOR columns: the block covers TILE_WIDTH * COARSE_FACTOR columns, and column c of the thread is colStart + c * TILE_WIDTH); set the COARSE_FACTOR partial sums to 0
    // GOAL: find this thread's row and its COARSE_FACTOR columns of P; start its sums
    int Row = by * TILE_WIDTH + ty;
    int colStart = bx * TILE_WIDTH * COARSE_FACTOR + tx;
    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;
    // END SOLUTION

    // BEGIN SOLUTION: the phase loop over K: load the tile of M into Mds and the COARSE_FACTOR tiles of N into Nds (tile c at Nds + c * TILE_WIDTH^2), 0 outside the matrices; synchronise; for each k read Mds[ty][k] once and add its products with the COARSE_FACTOR values Nds_c[k][tx]; synchronise
    // GOAL: accumulate every sum tile by tile, loading each tile of M once for all of them
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        Mds[ty * TILE_WIDTH + tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        int nRow = ph * TILE_WIDTH + ty;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            Nds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty * TILE_WIDTH + k];
            for (int c = 0; c < COARSE_FACTOR; ++c) {
                Pvalue[c] += m * Nds[(c * TILE_WIDTH + k) * TILE_WIDTH + tx];
            }
        }
        __syncthreads();
    }
    // END SOLUTION

    // BEGIN SOLUTION: store the COARSE_FACTOR results, each only where it lies inside P
    // GOAL: write the results that belong to P
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * TILE_WIDTH;
        if (Row < J && Col < L) {
            P[(size_t)Row * L + Col] = Pvalue[c];
        }
    }
    // END SOLUTION
}

// The largest tile width in {32, 16, 8} whose 1 + COARSE_FACTOR tiles fit the device's shared memory per block
// and whose TILE_WIDTH^2 threads fit its block size. Asked once; the answer does not change.
static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen == 0) {
        // BEGIN SOLUTION: read the device properties (cudaGetDevice, cudaGetDeviceProperties) and choose the largest tile width in {32, 16, 8} with (1 + COARSE_FACTOR) * TILE_WIDTH^2 floats <= sharedMemPerBlock and TILE_WIDTH^2 <= maxThreadsPerBlock
        // GOAL: pick a tile width the device can hold
        int device = 0;
        cudaDeviceProp prop;
        if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
            fprintf(stderr, "cannot read the device properties; using 16 x 16 tiles\n");
            chosen = 16;
            return chosen;
        }
        for (int t = 32; t >= 8; t /= 2) {
            if ((1 + COARSE_FACTOR) * t * t * sizeof(float) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) {
                chosen = t;
                break;
            }
        }
        // STARTER: chosen = 16;
        // END SOLUTION
    }
    return chosen;
}

// M, N, P are device pointers. Blocks of TILE_WIDTH x TILE_WIDTH threads, each block covering
// TILE_WIDTH rows and TILE_WIDTH * COARSE_FACTOR columns of P.
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = chooseTileWidth();
    // BEGIN SOLUTION: the grid (ceiling division: columns covered by TILE_WIDTH * COARSE_FACTOR per block) and the dynamic shared memory size (the tile of M and the COARSE_FACTOR tiles of N)
    // GOAL: launch the grid with its dynamic shared memory
    int colsPerBlock = tile * COARSE_FACTOR;
    dim3 dimGrid((L + colsPerBlock - 1) / colsPerBlock, (J + tile - 1) / tile);
    size_t shared = (1 + COARSE_FACTOR) * (size_t)tile * tile * sizeof(float);
    // STARTER: dim3 dimGrid(1, 1);
    // STARTER: size_t shared = 0;
    // END SOLUTION
    dim3 dimBlock(tile, tile);
    switch (tile) {
        case 32: MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        case 16: MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        default: MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
    }
}
