// Held-out kernel b06-256x256-1024t (stage 06-register-tiled): 256x256 block tiles, 1024 threads of 8x8 outputs (rows and columns each in two 4-wide strips 128 apart; 64 accumulators where 1024-thread blocks allow 64 registers), BK 8: threads 0-511 one float4 of the M tile (stored transposed, padded by 4), threads 512-1023 one of the N tile; float4 shared reads; one buffer, two barriers per phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 256
#define BN 256
#define BK 8
#define THREADS 1024   // 32 x 32 threads of 8x8 outputs

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

// 256x256 block tiles, 1024 threads of 8x8 outputs (rows in two 4-wide strips 128 apart, columns
// likewise): at most 64 registers per thread for 64 accumulators. BK 8: threads 0-511 load one
// float4 of the M tile (stored transposed, rows padded by 4), threads 512-1023 one of the N tile;
// float4 shared reads; one buffer, two barriers per phase. __launch_bounds__(1024): without it the
// compiler may take more than 64 registers and the launch fails.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
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
        if (t < 512) {
            int r = t / 2, c = (t % 2) * 4;
            float4 v = load4<VEC>(M, J, K, bm + r, k0 + c);
            Ms[c + 0][r] = v.x; Ms[c + 1][r] = v.y; Ms[c + 2][r] = v.z; Ms[c + 3][r] = v.w;
        } else {
            int s = t - 512;
            int r = s / 64, c = (s % 64) * 4;
            *reinterpret_cast<float4*>(&Ns[r][c]) = load4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Ms[k][ty * 4]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Ms[k][128 + ty * 4]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Ns[k][tx * 4]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Ns[k][128 + tx * 4]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int row = bm + (i < 4 ? ty * 4 + i : 128 + ty * 4 + i - 4);
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
