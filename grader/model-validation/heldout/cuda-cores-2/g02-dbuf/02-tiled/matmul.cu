// Held-out kernel g02-dbuf (stage 02-tiled): 16x16 tiles with shared-memory double buffering: two pairs of tiles, the next phase loaded into one while the other is multiplied, one barrier per phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Two pairs of tiles: while the block multiplies one pair, it loads the next phase's tiles into the
// other, so one __syncthreads() per phase is enough.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[2][TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[2][TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = Width / TILE_WIDTH;

    Mds[0][ty][tx] = M[Row * Width + tx];
    Nds[0][ty][tx] = N[ty * Width + Col];
    __syncthreads();

    float Pvalue = 0;
    for (int ph = 0; ph < phases; ++ph) {
        int cur = ph % 2, nxt = 1 - cur;
        if (ph + 1 < phases) {
            Mds[nxt][ty][tx] = M[Row * Width + (ph + 1) * TILE_WIDTH + tx];
            Nds[nxt][ty][tx] = N[((ph + 1) * TILE_WIDTH + ty) * Width + Col];
        }
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[cur][ty][k] * Nds[cur][k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
