// Held-out kernel b03-t16-regprefetch (stage 03-boundary): 16x16 tiles with register prefetching: the next phase's bounds-tested elements of M and N loaded into registers after the first barrier, before the products, and stored into the tiles at the start of the next phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles with register prefetching: the next phase's element of M and of N are loaded
// (bounds-tested, 0 outside) into registers before this phase's products, and stored into the
// tiles at the start of the next phase.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x; int ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    float mNext = (Row < Width && tx < Width) ? M[Row * Width + tx] : 0.0f;
    float nNext = (ty < Width && Col < Width) ? N[ty * Width + Col] : 0.0f;
    float Pvalue = 0;
    for (int ph = 0; ph < phases; ++ph) {
        Mds[ty][tx] = mNext;
        Nds[ty][tx] = nNext;
        __syncthreads();
        if (ph + 1 < phases) {
            int mc = (ph + 1) * TILE_WIDTH + tx;
            int nr = (ph + 1) * TILE_WIDTH + ty;
            mNext = (Row < Width && mc < Width) ? M[Row * Width + mc] : 0.0f;
            nNext = (nr < Width && Col < Width) ? N[nr * Width + Col] : 0.0f;
        }
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width) P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
