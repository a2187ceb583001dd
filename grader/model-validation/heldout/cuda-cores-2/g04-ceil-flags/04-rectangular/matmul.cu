// Held-out kernel g04-ceil-flags (stage 04-rectangular): 16x16 tiles, the phase count from ceilf(K / (float)TILE_WIDTH), the bounds tests kept in bools, each tile element zeroed and then conditionally loaded.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <math.h>

#define TILE_WIDTH 16

// The phase count from float math (ceil(K / (float)TILE_WIDTH)) computed once, and each bounds test
// kept in a bool before the loads.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    bool rowOk = Row < J, colOk = Col < L;
    int numPhases = (int)ceilf(K / (float)TILE_WIDTH);
    float Pvalue = 0;
    for (int ph = 0; ph < numPhases; ++ph) {
        bool mOk = rowOk && (ph * TILE_WIDTH + tx < K);
        bool nOk = colOk && (ph * TILE_WIDTH + ty < K);
        Mds[ty][tx] = 0.0f;
        Nds[ty][tx] = 0.0f;
        if (mOk) Mds[ty][tx] = M[Row * K + ph * TILE_WIDTH + tx];
        if (nOk) Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * L + Col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (rowOk && colOk)
        P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((int)ceilf(L / (float)TILE_WIDTH), (int)ceilf(J / (float)TILE_WIDTH));
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
