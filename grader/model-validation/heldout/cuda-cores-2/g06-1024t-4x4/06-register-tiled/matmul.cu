// Held-out kernel g06-1024t-4x4 (stage 06-register-tiled): 128x128 block tiles with 4x4 contiguous outputs per thread: 1024 threads per block, BK 8, one element of each tile per thread, scalar shared reads.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 4
#define TN 4
#define THREADS ((BM / TM) * (BN / TN))   // 1024

// 128 x 128 block tiles with 4 x 4 contiguous outputs per thread: 1024 threads per block. Each thread
// loads one element of each tile per phase (the M tile stored transposed); scalar shared reads.
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[BK][BM];
    __shared__ float Ns[BK][BN];
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);   // 32 x 32 threads
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN] = {};
    int mr = tid / BK, mc = tid % BK;   // the element of the M tile this thread loads
    int nr = tid / BN, nc = tid % BN;   // and of the N tile

    for (int k0 = 0; k0 < K; k0 += BK) {
        Ms[mc][mr] = (bm + mr < J && k0 + mc < K) ? M[(size_t)(bm + mr) * K + k0 + mc] : 0.0f;
        Ns[nr][nc] = (k0 + nr < K && bn + nc < L) ? N[(size_t)(k0 + nr) * L + bn + nc] : 0.0f;
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = Ms[k][ty * TM + i];
            for (int j = 0; j < TN; ++j) b[j] = Ns[k][tx * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        int row = bm + ty * TM + i;
        for (int j = 0; j < TN; ++j) {
            int col = bn + tx * TN + j;
            if (row < J && col < L) P[(size_t)row * L + col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<dimGrid, THREADS>>>(M, N, P, J, K, L);
}
