// Held-out kernel q04-t16x64-k64 (stage 04-rectangular): 64x16 blocks (1024 threads), each a 16-row x 64-column tile of P, phases 64 deep: the 16x64 M tile one element per thread, the 64x64 N tile four rows per thread (ty + 16i).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TM 16   // rows of P per block
#define TN 64   // columns of P per block
#define TK 64   // depth of a phase

// 64x16 blocks (1024 threads), each a 16-row x 64-column tile of P, phases 64 deep: the 16x64 M
// tile one element per thread, the 64x64 N tile four rows per thread (ty + 16i).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TM][TK];
    __shared__ float Nds[TK][TN];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TM + ty;
    int Col = blockIdx.x * TN + tx;

    float Pvalue = 0.0f;
    int phases = (K + TK - 1) / TK;
    for (int ph = 0; ph < phases; ++ph) {
        int kBase = ph * TK;
        if (Row < J && kBase + tx < K)
            Mds[ty][tx] = M[(size_t)Row * K + kBase + tx];
        else
            Mds[ty][tx] = 0.0f;
        for (int i = 0; i < TK / TM; ++i) {
            int r = ty + i * TM;
            if (kBase + r < K && Col < L)
                Nds[r][tx] = N[(size_t)(kBase + r) * L + Col];
            else
                Nds[r][tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TK; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[(size_t)Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TN, TM);
    dim3 dimGrid((L + TN - 1) / TN, (J + TM - 1) / TM);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
