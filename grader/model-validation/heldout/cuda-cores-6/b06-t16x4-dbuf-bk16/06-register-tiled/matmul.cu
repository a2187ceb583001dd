// Held-out kernel b06-t16x4-dbuf-bk16 (stage 06-register-tiled): 128x128 block tiles, 256 threads of 16x4 outputs (16 contiguous rows, 4 contiguous columns), BK 16, double-buffered through registers (2 float4 of each tile per thread loaded before the current buffer is multiplied, stored into the other after; one barrier per phase), M transposed and padded by 4, per step 4 float4 reads of the M tile and one of the N tile.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 16
#define THREADS 256   // 8 thread rows x 32 thread columns

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

// 128x128 block tiles, 256 threads of 16x4 outputs: thread (tx = t % 32, ty = t / 32) owns the 16
// contiguous rows ty*16 .. ty*16 + 15 and the 4 contiguous columns tx*4 .. tx*4 + 3. BK 16,
// double-buffered through registers: the next phase's 2 float4 of each tile loaded before the
// current buffer is multiplied and stored into the other buffer after; one barrier per phase. M
// stored transposed, rows padded by 4; per step 4 float4 reads of the M tile and one of the N tile.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[2][BK][BM + 4];
    __shared__ __align__(16) float Ns[2][BK][BN];
    const int t = threadIdx.x;
    const int tx = t % 32, ty = t / 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[16][4];
#pragma unroll
    for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

    float4 ma[2], nb[2];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            int s = t + l * THREADS;
            ma[l] = load4<VEC>(M, J, K, bm + s / 4, k0 + (s % 4) * 4);      // 128 rows x 4 float4
            nb[l] = load4<VEC>(N, K, L, k0 + s / 32, bn + (s % 32) * 4);    // 16 rows x 32 float4
        }
    };
    auto put = [&](int buf) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            int s = t + l * THREADS;
            int r = s / 4, c = (s % 4) * 4;
            Ms[buf][c + 0][r] = ma[l].x; Ms[buf][c + 1][r] = ma[l].y;
            Ms[buf][c + 2][r] = ma[l].z; Ms[buf][c + 3][r] = ma[l].w;
            *reinterpret_cast<float4*>(&Ns[buf][s / 32][(s % 32) * 4]) = nb[l];
        }
    };

    fetch(0);
    put(0);
    __syncthreads();
    const int phases = (K + BK - 1) / BK;
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph & 1;
        const bool more = ph + 1 < phases;
        if (more) fetch((ph + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[16];
#pragma unroll
            for (int q = 0; q < 4; ++q)
                *reinterpret_cast<float4*>(&a[4 * q]) = *reinterpret_cast<const float4*>(&Ms[cur][k][ty * 16 + 4 * q]);
            float4 b = *reinterpret_cast<const float4*>(&Ns[cur][k][tx * 4]);
#pragma unroll
            for (int i = 0; i < 16; ++i) {
                acc[i][0] += a[i] * b.x;
                acc[i][1] += a[i] * b.y;
                acc[i][2] += a[i] * b.z;
                acc[i][3] += a[i] * b.w;
            }
        }
        if (more) put(1 - cur);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 16; ++i)
        store4<VEC>(P, J, L, bm + ty * 16 + i, bn + tx * 4, acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
