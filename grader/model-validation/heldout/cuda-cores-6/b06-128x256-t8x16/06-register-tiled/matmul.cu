// Held-out kernel b06-128x256-t8x16 (stage 06-register-tiled): 128x256 block tiles, 256 threads of 8x16 outputs (128 accumulators: 8 contiguous rows, 16 columns in four 4-wide strips 64 apart), BK 8: one float4 of the M tile (stored transposed, rows padded by 4) and two of the N tile per thread, float4 shared reads; one buffer, two barriers per phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 256
#define BK 8
#define TM 8
#define TN 16
#define THREADS 256   // (BM / TM) x (BN / TN) = 16 x 16

// A[r][c .. c+3] as a float4, 0 outside A: one 16-byte load when VEC (rows 16-byte aligned,
// c a multiple of 4, so c < cols means all four are inside), else element by element.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows) return v;
    const float* p = A + (size_t)r * cols;
    if (VEC) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c + 0 < cols) v.x = p[c + 0];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

// Stores 4 values of a row of P at column c (float4 when VEC), only those inside P.
template <bool VEC>
__device__ __forceinline__ void store4(float* P, int J, int L, int r, int c, float x, float y, float z, float w) {
    if (r >= J) return;
    float* p = P + (size_t)r * L;
    if (VEC) {
        if (c < L) *reinterpret_cast<float4*>(p + c) = make_float4(x, y, z, w);
    } else {
        if (c + 0 < L) p[c + 0] = x;
        if (c + 1 < L) p[c + 1] = y;
        if (c + 2 < L) p[c + 2] = z;
        if (c + 3 < L) p[c + 3] = w;
    }
}

// 128x256 block tiles, 256 threads of 8x16 outputs (128 accumulators per thread): 8 contiguous
// rows, 16 columns in four 4-wide strips 64 apart. BK 8: one float4 of the M tile (stored
// transposed, rows padded by 4) and two of the N tile per thread; one buffer, two barriers.
template <bool VEC>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[BK][BM + 4];
    __shared__ __align__(16) float Ns[BK][BN];
    const int t = threadIdx.x;
    const int tx = t % 16, ty = t / 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        {   // M tile: 128 rows x 2 float4
            int r = t / 2, c = (t % 2) * 4;
            float4 v = load4<VEC>(M, J, K, bm + r, k0 + c);
            Ms[c + 0][r] = v.x; Ms[c + 1][r] = v.y; Ms[c + 2][r] = v.z; Ms[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < 2; ++l) {   // N tile: 8 rows x 64 float4
            int s = t + l * THREADS;
            int r = s / 64, c = (s % 64) * 4;
            *reinterpret_cast<float4*>(&Ns[r][c]) = load4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Ms[k][ty * 8]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Ms[k][ty * 8 + 4]);
#pragma unroll
            for (int s = 0; s < 4; ++s)
                *reinterpret_cast<float4*>(&b[4 * s]) = *reinterpret_cast<const float4*>(&Ns[k][s * 64 + tx * 4]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int s = 0; s < 4; ++s)
            store4<VEC>(P, J, L, bm + ty * 8 + i, bn + s * 64 + tx * 4,
                        acc[i][4 * s], acc[i][4 * s + 1], acc[i][4 * s + 2], acc[i][4 * s + 3]);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
