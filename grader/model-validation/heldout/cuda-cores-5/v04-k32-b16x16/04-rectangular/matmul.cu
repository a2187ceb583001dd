// Held-out kernel v04-k32-b16x16 (stage 04-rectangular): 16x16 tiles of P with phases 32 deep: the 16x32 M tile and the 32x16 N tile, two elements of each per thread (columns tx, tx + 16 of M; rows ty, ty + 16 of N); half the barriers.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 16    // tile of P: 16x16, one element per thread
#define DEPTH 32   // phase depth

// 16x16 tiles of P with phases 32 deep: the 16x32 M tile and the 32x16 N tile, two elements of
// each per thread (columns tx and tx + 16 of M, rows ty and ty + 16 of N); half the barriers.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[TILE][DEPTH];
    __shared__ float Ns[DEPTH][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE + ty;
    int Col = blockIdx.x * TILE + tx;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (K + DEPTH - 1) / DEPTH; ++ph) {
        int k0 = ph * DEPTH;
        for (int h = 0; h < DEPTH / TILE; ++h) {
            int mc = k0 + tx + h * TILE;
            int nr = k0 + ty + h * TILE;
            if (Row < J && mc < K) Ms[ty][tx + h * TILE] = M[Row * K + mc];
            else Ms[ty][tx + h * TILE] = 0.0f;
            if (nr < K && Col < L) Ns[ty + h * TILE][tx] = N[nr * L + Col];
            else Ns[ty + h * TILE][tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < DEPTH; ++k)
            Pvalue += Ms[ty][k] * Ns[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE, TILE);
    dim3 dimGrid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
