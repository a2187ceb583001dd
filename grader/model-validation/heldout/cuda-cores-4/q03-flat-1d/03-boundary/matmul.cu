// Held-out kernel q03-flat-1d (stage 03-boundary): 1-D blocks of 256 threads (tx = threadIdx.x % 16, ty = threadIdx.x / 16) on a 2-D grid of 16x16 tiles, flat 256-float shared arrays, ternary bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 16
#define THREADS (TILE * TILE)

// 1-D blocks of 256 threads, each the 16x16 tile of P numbered by (blockIdx.x, blockIdx.y); the
// thread's position in the tile is tx = threadIdx.x % 16, ty = threadIdx.x / 16, and the tiles are
// flat 256-float shared arrays indexed ty * 16 + tx.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Ms[THREADS];
    __shared__ float Ns[THREADS];

    const int tid = threadIdx.x;
    const int tx = tid % TILE, ty = tid / TILE;
    const int Row = blockIdx.y * TILE + ty;
    const int Col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int t = 0; t < (Width + TILE - 1) / TILE; ++t) {
        const int mCol = t * TILE + tx;
        const int nRow = t * TILE + ty;
        Ms[tid] = (Row < Width && mCol < Width) ? M[Row * Width + mCol] : 0.0f;
        Ns[tid] = (nRow < Width && Col < Width) ? N[nRow * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += Ms[ty * TILE + k] * Ns[k * TILE + tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width) P[Row * Width + Col] = sum;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int tiles = (Width + TILE - 1) / TILE;
    dim3 dimGrid(tiles, tiles);
    MatrixMulKernel<<<dimGrid, THREADS>>>(M, N, P, Width);
}
