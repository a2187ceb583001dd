// Held-out kernel q06-warp32x64 (stage 06-register-tiled): warp tiling: 128x128 block tiles as 4x2 warp tiles of 32x64, each lane 8x8 outputs in 4-wide strips (rows 16 apart, columns 32 apart within the warp tile); BK 16, float4 global loads (2 of each tile per thread), M transposed, float4 shared reads and P stores; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 16
#define NTHREADS 256
#define WM 32        // rows of a warp tile
#define WN 64        // columns of a warp tile
#define MPAD 4

// Warp tiling: the 128x128 block tile is 4x2 warp tiles of 32x64; lane (lr, lc) = (lane / 8,
// lane % 8) of a warp owns rows s*16 + lr*4 + 0..3 (s = 0, 1) and columns t*32 + lc*4 + 0..3
// (t = 0, 1) of its warp tile: 8x8 outputs. BK 16, float4 global loads (2 of M and 2 of N per
// thread) when K and L are multiples of 4, M stored transposed, float4 shared reads; one buffer.
template <bool VEC>
__device__ __forceinline__ float4 fetch4(const float* A, int rows, int cols, int r, int c) {
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
    __shared__ __align__(16) float As[BK][BM + MPAD];
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wr = warp / (BN / WN), wc = warp % (BN / WN);   // 4 x 2 warps
    const int lr = lane / 8, lc = lane % 8;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int rowOff = wr * WM + lr * 4;    // + s*16 + i
    const int colOff = wc * WN + lc * 4;    // + t*32 + j

    float acc[8][8] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            int idx = tid + l * NTHREADS;
            int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
            float4 v = fetch4<VEC>(M, J, K, bm + r, k0 + c);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < 2; ++l) {
            int idx = tid + l * NTHREADS;
            int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[r][c]) = fetch4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[k][rowOff]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[k][rowOff + 16]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[k][colOff]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[k][colOff + 32]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = bm + rowOff + (i / 4) * 16 + (i % 4);
        if (row >= J) continue;
#pragma unroll
        for (int t = 0; t < 2; ++t) {
            const int col = bn + colOff + t * 32;
            const float* v = &acc[i][t * 4];
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
    dim3 block(NTHREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
