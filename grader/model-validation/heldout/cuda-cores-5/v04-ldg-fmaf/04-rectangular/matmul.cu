// Held-out kernel v04-ldg-fmaf (stage 04-rectangular): 16x16 tiles, const float* __restrict__ arguments, __ldg tile loads behind ternary bounds tests, the 16 products of a phase #pragma unroll'd into fmaf.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles, const float* __restrict__ arguments, __ldg tile loads, the 16 products of a phase
// unrolled into fmaf.
__global__ void MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N,
                                float* __restrict__ P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Row = blockIdx.y * TILE_WIDTH + ty;
    const int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0.0f;
    const int phases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < phases; ++ph) {
        const int mc = ph * TILE_WIDTH + tx;
        const int nr = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < J && mc < K) ? __ldg(&M[Row * K + mc]) : 0.0f;
        Nds[ty][tx] = (nr < K && Col < L) ? __ldg(&N[nr * L + Col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue = fmaf(Mds[ty][k], Nds[k][tx], Pvalue);
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
