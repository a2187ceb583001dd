// Held-out kernel k06-t8x4-bk32 (stage 06-register-tiled): 128x128 block tiles, 512 threads of 8x4 contiguous outputs, BK 32: scalar global loads by loops (8 of each tile per thread), the M tile transposed with a 1-float pad and read one float at a time (a warp-wide broadcast), N read as float4; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128       // rows of P per block
#define BN 128       // columns of P per block
#define BK 32        // depth of a phase
#define TM 8         // rows of P per thread
#define TN 4         // columns of P per thread
#define THREADS 512  // (BM / TM) * (BN / TN)

// 512 threads, each an 8 x 4 block of P: rows ty*8 .. ty*8 + 7 and columns tx*4 .. tx*4 + 3 of the
// block's tile (tx = tid % 32, ty = tid / 32, so a warp shares its 8 rows). The tiles are loaded
// element by element by loops; the M tile is stored transposed, Mt[k][row], one float of padding per
// row so that a warp's transposed stores land on 32 banks.
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mt[BK][BM + 1];
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN);
    const int ty = tid / (BN / TN);
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int s = tid; s < BM * BK; s += THREADS) {
            int r = s / BK, c = s % BK;
            int gr = bm + r, gc = k0 + c;
            Mt[c][r] = (gr < J && gc < K) ? M[(size_t)gr * K + gc] : 0.0f;
        }
        for (int s = tid; s < BK * BN; s += THREADS) {
            int r = s / BN, c = s % BN;
            int gr = k0 + r, gc = bn + c;
            Ns[r][c] = (gr < K && gc < L) ? N[(size_t)gr * L + gc] : 0.0f;
        }
        __syncthreads();

        for (int k = 0; k < BK; ++k) {
            float a[TM];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = Mt[k][ty * TM + i];
            float4 b = *reinterpret_cast<const float4*>(&Ns[k][tx * TN]);
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                acc[i][0] += a[i] * b.x;
                acc[i][1] += a[i] * b.y;
                acc[i][2] += a[i] * b.z;
                acc[i][3] += a[i] * b.w;
            }
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        int row = bm + ty * TM + i;
        if (row >= J) break;
        for (int j = 0; j < TN; ++j) {
            int col = bn + tx * TN + j;
            if (col < L) P[(size_t)row * L + col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
