// Held-out kernel b06-64x256-t8x8-bk16 (stage 06-register-tiled): 64x256 block tiles, 256 threads of 8x8 outputs (8 contiguous rows, columns in two 4-wide strips 128 apart), BK 16: one float4 of the M tile (stored transposed, padded by 4) and four of the N tile per thread, float4 shared reads, fmaf; one buffer, two barriers per phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 64
#define BN 256
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

// 64x256 block tiles, 256 threads of 8x8 outputs: 8 contiguous rows (ty*8), columns in two 4-wide
// strips 128 apart (tx*4 and 128 + tx*4). BK 16: one float4 of the 64x16 M tile (stored transposed,
// rows padded by 4) and four of the 16x256 N tile per thread; float4 shared reads; one buffer, two
// barriers per phase.
template <bool VEC>
__global__ void MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                                int J, int K, int L) {
    __shared__ __align__(16) float Ms[BK][BM + 4];
    __shared__ __align__(16) float Ns[BK][BN];
    const int t = threadIdx.x;
    const int tx = t % 32, ty = t / 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        {
            int r = t / 4, c = (t % 4) * 4;
            float4 v = load4<VEC>(M, J, K, bm + r, k0 + c);
            Ms[c + 0][r] = v.x; Ms[c + 1][r] = v.y; Ms[c + 2][r] = v.z; Ms[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            int s = t + l * THREADS;
            int r = s / 64, c = (s % 64) * 4;
            *reinterpret_cast<float4*>(&Ns[r][c]) = load4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&Ms[k][ty * 8]);
            float4 a1 = *reinterpret_cast<const float4*>(&Ms[k][ty * 8 + 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&Ns[k][tx * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&Ns[k][128 + tx * 4]);
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int row = bm + ty * 8 + i;
        store4<VEC>(P, J, L, row, bn + tx * 4, acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        store4<VEC>(P, J, L, row, bn + 128 + tx * 4, acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
