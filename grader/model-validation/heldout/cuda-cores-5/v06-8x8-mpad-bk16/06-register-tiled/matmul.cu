// Held-out kernel v06-8x8-mpad-bk16 (stage 06-register-tiled): 128x128 block tiles, 256 threads of 8x8 contiguous outputs, BK 16: scalar global loads by strided loops (8 of each tile per thread), the M tile not transposed and padded to 17 columns, scalar shared reads into a[8], b[8]; one buffer, no prefetch.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 16
#define TM 8
#define TN 8
#define NTHREADS 256

// 128x128 block tiles, 256 threads of 8x8 contiguous outputs (rows ty*8 .., columns tx*8 ..), BK 16.
// Scalar global loads by loops (8 of each tile per thread, a warp reading whole rows), the M tile
// not transposed and padded to 17 columns (Ms[row][k]), scalar shared reads into a[8], b[8]; one
// buffer, no prefetch.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[BM][BK + 1];
    __shared__ float Ns[BK][BN];

    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += NTHREADS) {
            int r = e / BK, c = e % BK;
            Ms[r][c] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += NTHREADS) {
            int r = e / BN, c = e % BN;
            Ns[r][c] = (k0 + r < K && bn + c < L) ? N[(size_t)(k0 + r) * L + bn + c] : 0.0f;
        }
        __syncthreads();

        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; i++) a[i] = Ms[ty * TM + i][k];
            for (int j = 0; j < TN; j++) b[j] = Ns[k][tx * TN + j];
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; i++) {
        int r = bm + ty * TM + i;
        if (r >= J) break;
        for (int j = 0; j < TN; j++) {
            int c = bn + tx * TN + j;
            if (c < L) P[(size_t)r * L + c] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
