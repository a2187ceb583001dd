// Known-good submission for stage 03-boundary (no false alarm on code from elsewhere): a tiled
// kernel on cooperative groups that keeps the tile of M in registers instead of shared memory --
// blocks of 32 x 32 threads, each row of the block one warp, `cg::tiled_partition<32>(block)`;
// a thread's index in its row is the tile's thread_rank() and its row the tile's
// meta_group_rank(); each thread loads one element of M per phase and the warp hands it round
// with the tile's shfl(), while the tile of N is staged in shared memory as usual (N in shared
// memory, M in registers: still 2 global loads per 32 multiply-adds). Boundary tests on every load
// and on the store. Must pass on both backends.
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define TILE_WIDTH 32  // one warp per row of the block

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> row = cg::tiled_partition<32>(block);
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    const int tx = row.thread_rank();      // threadIdx.x: blockDim.x is one warp
    const int ty = row.meta_group_rank();  // threadIdx.y
    const int Row = blockIdx.y * TILE_WIDTH + ty;
    const int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        const int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        const float mine = (Row < Width && mCol < Width) ? M[Row * Width + mCol] : 0.0f;  // M[Row][ph*T + tx]
        Nds[ty][tx] = (nRow < Width && Col < Width) ? N[nRow * Width + Col] : 0.0f;
        block.sync();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += row.shfl(mine, k) * Nds[k][tx];
        block.sync();
    }
    if (Row < Width && Col < Width) P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
