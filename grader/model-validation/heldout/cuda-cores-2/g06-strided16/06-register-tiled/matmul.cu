// Held-out kernel g06-strided16 (stage 06-register-tiled): 128x128 block tiles, 8x8 outputs per thread strided by 16 (rows ty + 16i, columns tx + 16j), BK 8, scalar loads and shared reads.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define TPR (BN / TN)   // 16 threads across, 16 down
#define THREADS 256

// 128 x 128 block tiles, 8 x 8 outputs per thread strided by 16: thread (tx, ty) of the 16 x 16 block owns
// rows ty + 16 i and columns tx + 16 j, so neighbouring threads read neighbouring values of the N tile and
// store neighbouring elements of P. Scalar loads (4 of each tile per thread), M tile stored transposed.
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[BK][BM];
    __shared__ float Ns[BK][BN];
    const int tid = threadIdx.x;
    const int tx = tid % TPR, ty = tid / TPR;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            int e = tid + l * THREADS;
            int r = e / BK, c = e % BK;
            Ms[c][r] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
        }
#pragma unroll
        for (int l = 0; l < BK * BN / THREADS; ++l) {
            int e = tid + l * THREADS;
            int r = e / BN, c = e % BN;
            Ns[r][c] = (k0 + r < K && bn + c < L) ? N[(size_t)(k0 + r) * L + bn + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = Ms[k][ty + i * 16];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Ns[k][tx + j * 16];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = bm + ty + i * 16;
        if (row < J) {
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                int col = bn + tx + j * 16;
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
