// Held-out kernel q06-colstride-bk4 (stage 06-register-tiled): 128x128 block tiles, BK 4, 256 threads of 8x8 outputs: 8 contiguous rows (two float4 reads of the transposed M tile) and columns tx + 16j (scalar reads); scalar global loads, 2 of each tile per thread; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 4
#define TM 8
#define TN 8
#define NT 256

// 128x128 block tiles, BK 4 (a short phase: 32 barriers per 128 of K), 256 threads of 8x8 outputs:
// rows ty*8 .. ty*8 + 7 (read from the transposed M tile as two float4) and columns tx + 16j
// (j = 0..7, read one float at a time). Scalar global loads: 2 elements of each tile per thread.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float sA[BK][BM];
    __shared__ float sB[BK][BN];

    int t = threadIdx.x;
    int tx = t % 16, ty = t / 16;
    int rowBlock = blockIdx.y * BM, colBlock = blockIdx.x * BN;

    float acc[TM][TN] = {{0.0f}};

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = t; e < BM * BK; e += NT) {
            int r = e / BK, c = e % BK;
            float v = 0.0f;
            if (rowBlock + r < J && k0 + c < K) v = M[(size_t)(rowBlock + r) * K + k0 + c];
            sA[c][r] = v;
        }
        for (int e = t; e < BK * BN; e += NT) {
            int r = e / BN, c = e % BN;
            float v = 0.0f;
            if (k0 + r < K && colBlock + c < L) v = N[(size_t)(k0 + r) * L + colBlock + c];
            sB[r][c] = v;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&sA[k][ty * TM]);
            float4 a1 = *reinterpret_cast<const float4*>(&sA[k][ty * TM + 4]);
            float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[TN];
            for (int j = 0; j < TN; ++j) b[j] = sB[k][tx + 16 * j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        int row = rowBlock + ty * TM + i;
        if (row < J) {
            for (int j = 0; j < TN; ++j) {
                int col = colBlock + tx + 16 * j;
                if (col < L) P[(size_t)row * L + col] = acc[i][j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<grid, NT>>>(M, N, P, J, K, L);
}
