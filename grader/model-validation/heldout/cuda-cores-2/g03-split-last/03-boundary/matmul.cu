// Held-out kernel g03-split-last (stage 03-boundary): 16x16 tiles: the full phases test only Row and Col, the partial last phase is a second copy of the body with every test.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// The Width / TILE_WIDTH full phases test only Row and Col (their k range lies inside M and N); the
// partial last phase, when there is one, is a second loop body with every test.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    int full = Width / TILE_WIDTH;
    for (int ph = 0; ph < full; ++ph) {
        Mds[ty][tx] = Row < Width ? M[Row * Width + ph * TILE_WIDTH + tx] : 0.0f;
        Nds[ty][tx] = Col < Width ? N[(ph * TILE_WIDTH + ty) * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Width % TILE_WIDTH != 0) {
        int k0 = full * TILE_WIDTH;
        Mds[ty][tx] = (Row < Width && k0 + tx < Width) ? M[Row * Width + k0 + tx] : 0.0f;
        Nds[ty][tx] = (k0 + ty < Width && Col < Width) ? N[(k0 + ty) * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
