// Held-out kernel k06-t2x8-1024 (stage 06-register-tiled): 128x128 block tiles, 1024 threads of 2x8 outputs (rows ty and ty + 64, 8 contiguous columns), BK 8: one float4 of each tile by each of the first 256 threads when K and L are multiples of 4 (one element per thread otherwise), the M tile not transposed, N read as two float4; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define THREADS 1024   // 64 rows x 16 columns of threads

// 1024 threads per 128 x 128 tile of P: thread (tx, ty) = (tid % 16, tid / 16) computes rows ty and
// ty + 64, columns tx*8 .. tx*8 + 7. The M tile is kept as it is in M (Ms[row][k]); its two values
// per step are plain reads, the 8 N values two float4 reads.
// VEC (K and L multiples of 4, decided on the host): the first 256 threads load one float4 of each
// tile; otherwise every thread loads one element of each.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[BM][BK];
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[2][8];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        if (VEC) {
            if (tid < 256) {
                const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                int r = tid / (BK / 4), c = (tid % (BK / 4)) * 4;       // 128 rows x 2 float4
                float4 v = zero;
                if (bm + r < J && k0 + c < K)
                    v = *reinterpret_cast<const float4*>(&M[(size_t)(bm + r) * K + k0 + c]);
                *reinterpret_cast<float4*>(&Ms[r][c]) = v;
                int nr = tid / (BN / 4), nc = (tid % (BN / 4)) * 4;     // 8 rows x 32 float4
                float4 w = zero;
                if (k0 + nr < K && bn + nc < L)
                    w = *reinterpret_cast<const float4*>(&N[(size_t)(k0 + nr) * L + bn + nc]);
                *reinterpret_cast<float4*>(&Ns[nr][nc]) = w;
            }
        } else {
            int r = tid / BK, c = tid % BK;
            Ms[r][c] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
            int nr = tid / BN, nc = tid % BN;
            Ns[nr][nc] = (k0 + nr < K && bn + nc < L) ? N[(size_t)(k0 + nr) * L + bn + nc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a0 = Ms[ty][k];
            float a1 = Ms[ty + 64][k];
            float4 b0 = *reinterpret_cast<const float4*>(&Ns[k][tx * 8]);
            float4 b1 = *reinterpret_cast<const float4*>(&Ns[k][tx * 8 + 4]);
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                acc[0][j] += a0 * b[j];
                acc[1][j] += a1 * b[j];
            }
        }
        __syncthreads();
    }

    for (int i = 0; i < 2; ++i) {
        int row = bm + ty + i * 64;
        if (row >= J) continue;
        for (int h = 0; h < 2; ++h) {
            int col = bn + tx * 8 + h * 4;
            const float* v = &acc[i][h * 4];
            if (VEC) {
                if (col < L)
                    *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = v[j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
