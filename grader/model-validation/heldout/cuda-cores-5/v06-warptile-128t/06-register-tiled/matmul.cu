// Held-out kernel v06-warptile-128t (stage 06-register-tiled): warp tiling: 128x128 block tiles as 2x2 warp tiles of 64x64 (128 threads), each lane 8 contiguous rows x 4 columns in each of 4 sub-tiles 16 columns apart (8x16 outputs per thread); BK 16, float4 global loads (4 of each tile per thread), M transposed without padding, float4 shared reads; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 16
#define WM 64        // warp tile: 64 x 64, 4 warps per block
#define WN 64
#define WNITER 4     // the warp tile walked in 4 sub-tiles of 64 x 16 across
#define WSUBN (WN / WNITER)   // 16
#define TM 8
#define TN 4
#define NTHREADS 128

// Warp tiling: 128x128 block tiles as 2x2 warp tiles of 64x64 (128 threads); within a warp tile each
// lane (row lane / 4, column lane % 4) computes 8x4 outputs in each of 4 sub-tiles 16 columns apart:
// 8x16 outputs per thread. BK 16, float4 global loads (4 of each tile per thread), the M tile stored
// transposed without padding, float4 shared reads; one buffer, two barriers per phase.
template <bool VEC>
__device__ __forceinline__ float4 ld4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        const float* p = A + (size_t)r * cols + c;
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(p);
        } else {
            if (c < cols) v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    return v;
}

template <bool VEC>
__global__ void __launch_bounds__(NTHREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    __shared__ __align__(16) float As[BK][BM];   // transposed: As[k][row]
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warpRow = warp / (BN / WN), warpCol = warp % (BN / WN);
    const int tRow = lane / (WSUBN / TN), tCol = lane % (WSUBN / TN);   // 8 x 4 lanes
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][WNITER * TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < BM * BK / 4 / NTHREADS; ++l) {
            const int idx = tid + l * NTHREADS;
            const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
            const float4 v = ld4<VEC>(M, J, K, bm + r, k0 + c);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < BK * BN / 4 / NTHREADS; ++l) {
            const int idx = tid + l * NTHREADS;
            const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[r][c]) = ld4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[WNITER * TN];
            const int ar = warpRow * WM + tRow * TM;
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[k][ar]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[k][ar + 4]);
#pragma unroll
            for (int w = 0; w < WNITER; ++w)
                *reinterpret_cast<float4*>(&b[w * TN]) =
                    *reinterpret_cast<const float4*>(&Bs[k][warpCol * WN + w * WSUBN + tCol * TN]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < WNITER * TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + warpRow * WM + tRow * TM + i;
        if (row >= J) continue;
#pragma unroll
        for (int w = 0; w < WNITER; ++w) {
            const int col = bn + warpCol * WN + w * WSUBN + tCol * TN;
            if (VEC) {
                if (col < L)
                    *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) =
                        make_float4(acc[i][w * TN], acc[i][w * TN + 1], acc[i][w * TN + 2], acc[i][w * TN + 3]);
            } else {
                for (int j = 0; j < TN; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = acc[i][w * TN + j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, NTHREADS>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
