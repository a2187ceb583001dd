// Held-out kernel b03-t16-size-t (stage 03-boundary): 16x16 tiles with ternary bounds tests, every index (thread, row, column, phase, k) a size_t.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles with bounds tests, every index a size_t.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    size_t tx = threadIdx.x, ty = threadIdx.y;
    size_t W = (size_t)Width;
    size_t Row = (size_t)blockIdx.y * TILE_WIDTH + ty;
    size_t Col = (size_t)blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    size_t phases = (W + TILE_WIDTH - 1) / TILE_WIDTH;
    for (size_t ph = 0; ph < phases; ++ph) {
        size_t mc = ph * TILE_WIDTH + tx;
        size_t nr = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < W && mc < W) ? M[Row * W + mc] : 0.0f;
        Nds[ty][tx] = (nr < W && Col < W) ? N[nr * W + Col] : 0.0f;
        __syncthreads();
        for (size_t k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < W && Col < W) P[Row * W + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
