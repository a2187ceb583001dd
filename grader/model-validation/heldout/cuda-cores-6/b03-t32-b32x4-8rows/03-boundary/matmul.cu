// Held-out kernel b03-t32-b32x4-8rows (stage 03-boundary): 32x4 blocks (128 threads), each a 32x32 tile of P: every thread loads rows ty + 4i of both 32x32 tiles (if/else zero fill) and computes the 8 outputs of those rows, sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32
#define BY 4
#define RPT (TILE_WIDTH / BY)   // rows per thread: 8

// 32x4 blocks (128 threads), each a 32x32 tile of P: every thread loads rows ty + 4i of both tiles
// and computes the 8 outputs of those rows (8 sums in an array).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * TILE_WIDTH;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float acc[RPT];
    for (int i = 0; i < RPT; ++i) acc[i] = 0.0f;
    int phases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < phases; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        for (int i = 0; i < RPT; ++i) {
            int r = ty + i * BY;
            int Row = rowBase + r;
            if (Row < Width && mCol < Width) Mds[r][tx] = M[Row * Width + mCol];
            else Mds[r][tx] = 0.0f;
            int nRow = ph * TILE_WIDTH + r;
            if (nRow < Width && Col < Width) Nds[r][tx] = N[nRow * Width + Col];
            else Nds[r][tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k][tx];
            for (int i = 0; i < RPT; ++i)
                acc[i] += Mds[ty + i * BY][k] * n;
        }
        __syncthreads();
    }
    for (int i = 0; i < RPT; ++i) {
        int Row = rowBase + ty + i * BY;
        if (Row < Width && Col < Width) P[Row * Width + Col] = acc[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, BY);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
