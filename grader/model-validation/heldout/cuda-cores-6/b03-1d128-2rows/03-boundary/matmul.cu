// Held-out kernel b03-1d128-2rows (stage 03-boundary): 1-D blocks of 128 threads computing 16x16 tiles of P: thread t loads and computes rows t / 16 and t / 16 + 8 of column t % 16, ternary zero fill, (Width - 1) / 16 + 1 phases, two scalar sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define THREADS 128

// 1-D blocks of 128 threads computing a 16x16 tile of P: thread t owns column t % 16 of rows
// t / 16 and t / 16 + 8; it loads those two rows' elements of each tile (ternary zero fill).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x % TILE_WIDTH;
    int ty = threadIdx.x / TILE_WIDTH;          // 0 .. 7
    int Row0 = blockIdx.y * TILE_WIDTH + ty;
    int Row1 = Row0 + 8;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float s0 = 0.0f, s1 = 0.0f;
    for (int ph = 0; ph < (Width - 1) / TILE_WIDTH + 1; ++ph) {
        int mc = ph * TILE_WIDTH + tx;
        int nr0 = ph * TILE_WIDTH + ty, nr1 = nr0 + 8;
        Mds[ty][tx]     = (Row0 < Width && mc < Width) ? M[Row0 * Width + mc] : 0.0f;
        Mds[ty + 8][tx] = (Row1 < Width && mc < Width) ? M[Row1 * Width + mc] : 0.0f;
        Nds[ty][tx]     = (nr0 < Width && Col < Width) ? N[nr0 * Width + Col] : 0.0f;
        Nds[ty + 8][tx] = (nr1 < Width && Col < Width) ? N[nr1 * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k][tx];
            s0 += Mds[ty][k] * n;
            s1 += Mds[ty + 8][k] * n;
        }
        __syncthreads();
    }
    if (Col < Width) {
        if (Row0 < Width) P[Row0 * Width + Col] = s0;
        if (Row1 < Width) P[Row1 * Width + Col] = s1;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
