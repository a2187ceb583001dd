// Held-out kernel v06-1d-tm16-1024t (stage 06-register-tiled): 1-D register tiling: 128x128 block tiles, 1024 threads each computing 16 contiguous rows of one column, BK 8: one scalar load of each tile per thread, the M tile not transposed (Ms[row][k], read as a warp-wide broadcast), one N value per step; one buffer, no prefetch.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 16                              // rows of P per thread, one column
#define NTHREADS ((BM / TM) * BN)          // 1024

// 1-D register tiling: 128x128 block tiles, 1024 threads each computing 16 contiguous rows of one
// column (column tid % 128, rows (tid / 128) * 16 ..), BK 8. One element of each tile per thread by
// scalar loads, the M tile not transposed (Ms[row][k]); per step one N value and 16 M values
// (the same for a whole warp) from shared memory; one buffer, no prefetch.
__global__ void __launch_bounds__(NTHREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[BM][BK];
    __shared__ float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int col = tid % BN;
    const int rg = tid / BN;              // row group 0..7
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    const int mr = tid / BK, mc = tid % BK;   // this thread's element of the M tile
    const int nr = tid / BN, nc = tid % BN;   // and of the N tile

    float acc[TM];
    for (int i = 0; i < TM; ++i) acc[i] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        Ms[mr][mc] = (bm + mr < J && k0 + mc < K) ? M[(size_t)(bm + mr) * K + k0 + mc] : 0.0f;
        Ns[nr][nc] = (k0 + nr < K && bn + nc < L) ? N[(size_t)(k0 + nr) * L + bn + nc] : 0.0f;
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float b = Ns[k][col];
            for (int i = 0; i < TM; ++i)
                acc[i] += Ms[rg * TM + i][k] * b;
        }
        __syncthreads();
    }

    const int c = bn + col;
    if (c < L) {
        for (int i = 0; i < TM; ++i) {
            int r = bm + rg * TM + i;
            if (r < J) P[(size_t)r * L + c] = acc[i];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
