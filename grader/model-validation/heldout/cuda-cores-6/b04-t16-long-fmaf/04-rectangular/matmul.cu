// Held-out kernel b04-t16-long-fmaf (stage 04-rectangular): 16x16 tiles, const float* __restrict__ arguments, every index a 64-bit long, the phase loop stepping k0 by 16, the 16 products of a phase #pragma unroll'd into fmaf.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles, const __restrict__ pointers, every index a 64-bit long, the 16 products of a phase
// #pragma unroll'd into fmaf.
__global__ void MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N,
                                float* __restrict__ P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    const long tx = threadIdx.x, ty = threadIdx.y;
    const long Row = (long)blockIdx.y * TILE_WIDTH + ty;
    const long Col = (long)blockIdx.x * TILE_WIDTH + tx;
    const long KK = K, LL = L, JJ = J;
    float Pvalue = 0.0f;
    for (long k0 = 0; k0 < KK; k0 += TILE_WIDTH) {
        Mds[ty][tx] = (Row < JJ && k0 + tx < KK) ? M[Row * KK + k0 + tx] : 0.0f;
        Nds[ty][tx] = (k0 + ty < KK && Col < LL) ? N[(k0 + ty) * LL + Col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue = fmaf(Mds[ty][k], Nds[k][tx], Pvalue);
        __syncthreads();
    }
    if (Row < JJ && Col < LL) P[Row * LL + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
