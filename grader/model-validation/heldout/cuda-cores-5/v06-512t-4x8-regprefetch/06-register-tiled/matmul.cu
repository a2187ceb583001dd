// Held-out kernel v06-512t-4x8-regprefetch (stage 06-register-tiled): 128x128 block tiles, 512 threads of 4x8 outputs (4 contiguous rows, columns in two 4-wide strips 64 apart), BK 16: one float4 of each tile per thread, M transposed and padded by 4, float4 shared reads; one shared buffer with two barriers per phase, the next phase's two float4 loaded into registers after the first barrier, before the products.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 16
#define TM 4
#define TN 8
#define NTHREADS 512   // (BM / TM) * (BN / TN)
#define PAD 4

// 128x128 block tiles, 512 threads of 4x8 outputs (4 contiguous rows ty*4 .., columns in two 4-wide
// strips tx*4 and 64 + tx*4), BK 16. One float4 of each tile per thread, the M tile stored
// transposed (Ms[k][row], rows padded by 4); float4 shared reads. One shared buffer with two barriers
// per phase and register prefetching: the next phase's two float4 are loaded after the first
// barrier, before the products, and stored after the second.
template <bool VEC>
__device__ __forceinline__ float4 get4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows) return v;
    const float* p = A + (size_t)r * cols;
    if (VEC) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c < cols) v.x = p[c];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

template <bool VEC>
__global__ void __launch_bounds__(NTHREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    __shared__ __align__(16) float Ms[BK][BM + PAD];
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int mr = tid / (BK / 4), mc = (tid % (BK / 4)) * 4;   // M tile: 128 rows of 4 float4
    const int nr = tid / (BN / 4), nc = (tid % (BN / 4)) * 4;   // N tile: 16 rows of 32 float4

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    float4 ma = get4<VEC>(M, J, K, bm + mr, mc);
    float4 nb = get4<VEC>(N, K, L, nr, bn + nc);

    for (int k0 = 0; k0 < K; k0 += BK) {
        Ms[mc + 0][mr] = ma.x;
        Ms[mc + 1][mr] = ma.y;
        Ms[mc + 2][mr] = ma.z;
        Ms[mc + 3][mr] = ma.w;
        *reinterpret_cast<float4*>(&Ns[nr][nc]) = nb;
        __syncthreads();

        if (k0 + BK < K) {
            ma = get4<VEC>(M, J, K, bm + mr, k0 + BK + mc);
            nb = get4<VEC>(N, K, L, k0 + BK + nr, bn + nc);
        }

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Ms[k][ty * 4]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Ns[k][tx * 4]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Ns[k][64 + tx * 4]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + ty * 4 + i;
        if (row >= J) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = bn + h * 64 + tx * 4;
            if (VEC) {
                if (col < L)
                    *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) =
                        make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = acc[i][h * 4 + j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, NTHREADS>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
