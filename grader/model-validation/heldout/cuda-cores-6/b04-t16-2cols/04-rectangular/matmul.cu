// Held-out kernel b04-t16-2cols (stage 04-rectangular): 16x16 threads computing a 16x32 tile of P, two columns per thread 16 apart (Col, Col + 16): one 16x16 M tile and two 16x16 N tiles (two arrays) per phase, the M value read once for both sums, ternary zero fill.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 threads computing a 16x32 tile of P: each thread two columns, Col and Col + 16, from one
// 16x16 M tile and two 16x16 N tiles per phase; the M value of a step read once for both sums.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds0[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds1[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col0 = blockIdx.x * 2 * TILE_WIDTH + tx;
    int Col1 = Col0 + TILE_WIDTH;
    float p0 = 0.0f, p1 = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mc = ph * TILE_WIDTH + tx;
        int nr = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < J && mc < K) ? M[Row * K + mc] : 0.0f;
        Nds0[ty][tx] = (nr < K && Col0 < L) ? N[nr * L + Col0] : 0.0f;
        Nds1[ty][tx] = (nr < K && Col1 < L) ? N[nr * L + Col1] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty][k];
            p0 += m * Nds0[k][tx];
            p1 += m * Nds1[k][tx];
        }
        __syncthreads();
    }
    if (Row < J) {
        if (Col0 < L) P[Row * L + Col0] = p0;
        if (Col1 < L) P[Row * L + Col1] = p1;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + 2 * TILE_WIDTH - 1) / (2 * TILE_WIDTH), (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
