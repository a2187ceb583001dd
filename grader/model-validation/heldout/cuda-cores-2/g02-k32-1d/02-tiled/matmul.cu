// Held-out kernel g02-k32-1d (stage 02-tiled): 1-D blocks of 256 threads, one element each of a 16x16 tile of P, phases 32 deep: the 16x32 M tile and the 32x16 N tile loaded by loops, 2 elements of each per thread.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 16    // rows and columns of P per block (one element per thread)
#define DEPTH 32   // depth of a phase: columns of the M tile, rows of the N tile

// 1-D blocks of TILE * TILE threads; each phase's tiles are 16x32 and 32x16, loaded by a loop in which
// each thread loads TILE * DEPTH / blockDim.x = 2 elements of each.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE][DEPTH];
    __shared__ float Nds[DEPTH][TILE];
    int t = threadIdx.x;
    int tx = t % TILE, ty = t / TILE;
    int rowBase = blockIdx.y * TILE, colBase = blockIdx.x * TILE;
    float Pvalue = 0;
    for (int ph = 0; ph < Width / DEPTH; ++ph) {
        for (int i = t; i < TILE * DEPTH; i += blockDim.x) {
            int r = i / DEPTH, c = i % DEPTH;
            Mds[r][c] = M[(rowBase + r) * Width + ph * DEPTH + c];
        }
        for (int i = t; i < DEPTH * TILE; i += blockDim.x) {
            int r = i / TILE, c = i % TILE;
            Nds[r][c] = N[(ph * DEPTH + r) * Width + colBase + c];
        }
        __syncthreads();
        for (int k = 0; k < DEPTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[(rowBase + ty) * Width + colBase + tx] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE * TILE);
    dim3 dimGrid(Width / TILE, Width / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
