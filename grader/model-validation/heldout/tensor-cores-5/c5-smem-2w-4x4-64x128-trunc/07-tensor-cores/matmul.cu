// Held-out kernel c5-smem-2w-4x4-64x128-trunc (stage 07-tensor-cores): 64x128 block tiles, 2 warps (64 threads, side by side) of 64x64 (4x4 fragments), BK 16: 64x16 and 16x128 tiles, rows padded by 4, filled straight from global memory by float4 loads (4 of the M tile and 8 of the N tile per thread) when K and L are multiples of 4, else the same segments element by element with zero fill; no TF32 conversion anywhere (the tensor cores truncate); one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (K and L multiples of 4), the others through a per-warp 16x16 scratch array of their own.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-5/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// A[r][c .. c+3] as a float4, 0 outside A: one 16-byte load when VEC (K and L multiples of 4), else
// element by element.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* __restrict__ A, int rows, int cols, int r, int c) {
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

__device__ __forceinline__ float4 tf32x4(float4 v) {
    return make_float4(wmma::__float_to_tf32(v.x), wmma::__float_to_tf32(v.y), wmma::__float_to_tf32(v.z),
                       wmma::__float_to_tf32(v.w));
}

// Stores one accumulator fragment whose top-left corner is (row, col) of P: straight to P when
// allowed and the fragment lies wholly inside P, else through the warp's 16x16 scratch, element by
// element with bounds tests.
__device__ __forceinline__ void store_frag(const FragC& acc, float* P, int J, int L, int row, int col,
                                           bool direct, float* scratch, int lane) {
    if (row >= J || col >= L) return;   // the same for the whole warp
    if (direct && row + 16 <= J && col + 16 <= L) {
        wmma::store_matrix_sync(&P[(size_t)row * L + col], acc, L, wmma::mem_row_major);
        return;
    }
    wmma::store_matrix_sync(scratch, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        int r = row + e / 16, c = col + e % 16;
        if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
    }
    __syncwarp();
}

#define BM 64
#define BN 128
#define BK 16
#define THREADS 64    // 2 warps side by side, each 64x64 (4x4 fragments)
#define PAD 4

// 64x128 block tiles, 2 warps (64 threads, side by side) of 64x64 (4x4 fragments), BK 16: 64x16
// and 16x128 tiles, rows padded by 4, filled straight from global memory (4 float4 of the M tile and
// 8 of the N tile per thread when K and L are multiples of 4, else the same segments element by
// element with zero fill); no TF32 conversion anywhere (the tensor cores truncate); one buffer,
// two barriers per phase, no prefetch. Edge fragments go through a per-warp 16x16 scratch array of
// their own.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[BM][BK + PAD];
    __shared__ __align__(128) float Bs[BK][BN + PAD];
    __shared__ __align__(128) float scratch[2][256];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wn = warp * 64;

    FragC acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {           // 64 rows x 4 float4
            int s = t + l * THREADS;
            int r = s / 4, c = (s % 4) * 4;
            *reinterpret_cast<float4*>(&As[r][c]) = load4<VEC>(M, J, K, bm + r, k0 + c);
        }
#pragma unroll
        for (int l = 0; l < 8; ++l) {           // 16 rows x 32 float4
            int s = t + l * THREADS;
            int r = s / 32, c = (s % 32) * 4;
            *reinterpret_cast<float4*>(&Bs[r][c]) = load4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a[4];
            FragB b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[16 * i][kk], BK + PAD);
#pragma unroll
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], BN + PAD);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            store_frag(acc[i][j], P, J, L, bm + 16 * i, bn + wn + 16 * j, VEC, scratch[warp], lane);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
