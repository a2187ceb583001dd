// Held-out kernel g06-128x64-t8x8 (stage 06-register-tiled): 128x64 block tiles, 8x8 contiguous outputs per thread (128 threads), BK 16, scalar loads by loops, the M tile not transposed (Ms[row][k]), one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128   // rows of P per block
#define BN 64    // columns of P per block
#define BK 16    // depth of a phase
#define TM 8     // rows of P per thread
#define TN 8     // columns of P per thread
#define THREADS ((BM / TM) * (BN / TN))   // 128

// 128 x 64 block tiles, 8 x 8 contiguous outputs per thread (128 threads). Scalar loads by loops over the
// tiles, the M tile kept as it is in M (Ms[row][k]), one buffer.
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[BM][BK];
    __shared__ float Ns[BK][BN];
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK, c = e % BK;
            Ms[r][c] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += THREADS) {
            int r = e / BN, c = e % BN;
            Ns[r][c] = (k0 + r < K && bn + c < L) ? N[(size_t)(k0 + r) * L + bn + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = Ms[ty * TM + i][k];
            for (int j = 0; j < TN; ++j) b[j] = Ns[k][tx * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        int row = bm + ty * TM + i;
        if (row < J) {
            for (int j = 0; j < TN; ++j) {
                int col = bn + tx * TN + j;
                if (col < L) P[(size_t)row * L + col] = acc[i][j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
