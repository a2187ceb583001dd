// Held-out kernel q06-64x128-t8x8 (stage 06-register-tiled): 64x128 block tiles, 128 threads of 8x8 contiguous outputs, BK 8: scalar global loads by loops (4 of M, 8 of N per thread), the M tile transposed, scalar shared reads; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 64
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NTHREADS ((BM / TM) * (BN / TN))   // 128

// 64x128 block tiles, 128 threads of 8x8 contiguous outputs (rows ty*8.., columns tx*8..), BK 8.
// Scalar global loads by loops (4 of M, 8 of N per thread per phase, 0 outside the matrices), the
// M tile stored transposed (Ms[k][row]), scalar shared reads; one buffer.
__global__ void __launch_bounds__(NTHREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    __shared__ float Ms[BK][BM];
    __shared__ float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;

    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int idx = tid; idx < BM * BK; idx += NTHREADS) {
            int r = idx / BK, c = idx % BK;
            int gr = rowBase + r, gc = k0 + c;
            Ms[c][r] = (gr < J && gc < K) ? M[(size_t)gr * K + gc] : 0.0f;
        }
        for (int idx = tid; idx < BK * BN; idx += NTHREADS) {
            int r = idx / BN, c = idx % BN;
            int gr = k0 + r, gc = colBase + c;
            Ns[r][c] = (gr < K && gc < L) ? N[(size_t)gr * L + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = Ms[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Ns[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        int row = rowBase + ty * TM + i;
        if (row >= J) break;
        for (int j = 0; j < TN; ++j) {
            int col = colBase + tx * TN + j;
            if (col < L) P[(size_t)row * L + col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(NTHREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
