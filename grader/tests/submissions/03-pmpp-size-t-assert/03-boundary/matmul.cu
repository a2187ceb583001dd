// Known-good submission for stage 03-boundary (no false alarm on code from elsewhere): PMPP's tiled
// kernel with boundary tests as a student types it from the book (Fig. 5.13 of the 4th edition:
// TILE_WIDTH, Mds/Nds, the phase loop bounded by `ceil(Width / (float)TILE_WIDTH)` -- a float
// ceil in device code) with what another course adds: `const float* __restrict__` everywhere,
// size_t indices, a constexpr tile width with static_asserts, a device assert() on the block
// shape, the loads through ternaries, and a dim3 built by host helper functions. Must pass on both
// backends.
#include <cuda_runtime.h>
#include <cassert>
#include <cstddef>

constexpr int TILE_WIDTH = 16;
static_assert(TILE_WIDTH * TILE_WIDTH <= 1024, "a block holds at most 1024 threads");
static_assert((TILE_WIDTH & (TILE_WIDTH - 1)) == 0, "TILE_WIDTH is a power of two");

__global__ void matrixMulKernel(const float* __restrict__ M, const float* __restrict__ N,
                                float* __restrict__ P, const int Width) {
    assert(blockDim.x == TILE_WIDTH && blockDim.y == TILE_WIDTH);
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    const int bx = blockIdx.x, by = blockIdx.y;
    const int tx = threadIdx.x, ty = threadIdx.y;

    // Identify the row and column of the P element to work on
    const size_t Row = (size_t)by * TILE_WIDTH + ty;
    const size_t Col = (size_t)bx * TILE_WIDTH + tx;
    const size_t W = (size_t)Width;

    // Loop over the M and N tiles required to compute the P element
    float Pvalue = 0;
    for (int ph = 0; ph < ceil(Width / (float)TILE_WIDTH); ++ph) {
        const size_t mCol = (size_t)ph * TILE_WIDTH + tx;
        const size_t nRow = (size_t)ph * TILE_WIDTH + ty;
        // Collaborative loading of M and N tiles into shared memory, zero outside the matrices
        Mds[ty][tx] = (Row < W && mCol < W) ? M[Row * W + mCol] : 0.0f;
        Nds[ty][tx] = (nRow < W && Col < W) ? N[nRow * W + Col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k) {
            Pvalue += Mds[ty][k] * Nds[k][tx];
        }
        __syncthreads();
    }
    if (Row < W && Col < W) {
        P[Row * W + Col] = Pvalue;
    }
}

static inline unsigned int ceil_div(unsigned int n, unsigned int d) { return (n + d - 1) / d; }
static inline dim3 grid_for(int Width) {
    return dim3(ceil_div((unsigned)Width, TILE_WIDTH), ceil_div((unsigned)Width, TILE_WIDTH), 1);
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    const dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    matrixMulKernel<<<grid_for(Width), dimBlock>>>(M, N, P, Width);
}
