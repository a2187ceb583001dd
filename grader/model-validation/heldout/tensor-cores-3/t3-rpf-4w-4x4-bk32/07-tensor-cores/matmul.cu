// Held-out kernel t3-rpf-4w-4x4-bk32 (stage 07-tensor-cores): 128x128 block tiles, 4 warps (2x2) of 64x64 (4x4 fragments), BK 32 (four k-steps of 8 per phase): 128x32 and 32x128 tiles in one shared buffer, rows padded by 4 (35,328 bytes), with register prefetching (the next phase's 8 float4 of each tile per thread loaded after the first barrier, before the products; two barriers per phase), rounded to TF32 as they are stored; scalar zero-filled loads when K or L is not a multiple of 4; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define NTHREADS 128            // 4 warps, 2 x 2, each 64 x 64
#define WTM 64
#define WTN 64
#define FM 4
#define FN 4
#define APAD 4
#define BPAD 4
#define A_SEGS (BM * BK / 4 / NTHREADS)   // 8 float4 of the M tile per thread
#define B_SEGS (BK * BN / 4 / NTHREADS)   // 8 float4 of the N tile per thread

template <bool V4>
__device__ __forceinline__ float4 fetch4(const float* __restrict__ X, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r >= rows) return v;
    const float* p = X + (size_t)r * cols;
    if (V4) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c < cols) v.x = p[c];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

__device__ __forceinline__ void put_tf32(float* dst, float4 v) {
    v.x = wmma::__float_to_tf32(v.x);
    v.y = wmma::__float_to_tf32(v.y);
    v.z = wmma::__float_to_tf32(v.z);
    v.w = wmma::__float_to_tf32(v.w);
    *reinterpret_cast<float4*>(dst) = v;
}

template <bool V4>
__global__ void __launch_bounds__(NTHREADS)
tc_gemm_bk32(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float sA[BM][BK + APAD];   // 128 x 36
    __shared__ __align__(128) float sB[BK][BN + BPAD];   // 32 x 132

    const int t = threadIdx.x;
    const int warpId = t / 32, lane = t % 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wRow = (warpId / 2) * WTM, wCol = (warpId % 2) * WTN;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c[FM][FN];
    for (int i = 0; i < FM; i++)
        for (int j = 0; j < FN; j++) wmma::fill_fragment(c[i][j], 0.0f);

    float4 ra[A_SEGS], rb[B_SEGS];
#pragma unroll
    for (int s = 0; s < A_SEGS; s++) {
        int id = t + s * NTHREADS;                        // 8 segments per row of the M tile
        ra[s] = fetch4<V4>(M, J, K, row0 + id / (BK / 4), (id % (BK / 4)) * 4);
    }
#pragma unroll
    for (int s = 0; s < B_SEGS; s++) {
        int id = t + s * NTHREADS;                        // 32 segments per row of the N tile
        rb[s] = fetch4<V4>(N, K, L, id / (BN / 4), col0 + (id % (BN / 4)) * 4);
    }

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int s = 0; s < A_SEGS; s++) {
            int id = t + s * NTHREADS;
            put_tf32(&sA[id / (BK / 4)][(id % (BK / 4)) * 4], ra[s]);
        }
#pragma unroll
        for (int s = 0; s < B_SEGS; s++) {
            int id = t + s * NTHREADS;
            put_tf32(&sB[id / (BN / 4)][(id % (BN / 4)) * 4], rb[s]);
        }
        __syncthreads();

        // next phase's tiles into registers while this one is multiplied
        if (k0 + BK < K) {
            const int kn = k0 + BK;
#pragma unroll
            for (int s = 0; s < A_SEGS; s++) {
                int id = t + s * NTHREADS;
                ra[s] = fetch4<V4>(M, J, K, row0 + id / (BK / 4), kn + (id % (BK / 4)) * 4);
            }
#pragma unroll
            for (int s = 0; s < B_SEGS; s++) {
                int id = t + s * NTHREADS;
                rb[s] = fetch4<V4>(N, K, L, kn + id / (BN / 4), col0 + (id % (BN / 4)) * 4);
            }
        }

#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; i++) wmma::load_matrix_sync(a[i], &sA[wRow + 16 * i][kk], BK + APAD);
#pragma unroll
            for (int j = 0; j < FN; j++) wmma::load_matrix_sync(b[j], &sB[kk][wCol + 16 * j], BN + BPAD);
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
        }
        __syncthreads();
    }

    // the loop ended on a barrier: sA is free, each warp takes 256 floats of it for edge fragments
    float* scratch = &sA[0][0] + warpId * 256;
    for (int i = 0; i < FM; i++)
        for (int j = 0; j < FN; j++) {
            const int r = row0 + wRow + 16 * i, cc = col0 + wCol + 16 * j;
            if (r >= J || cc >= L) continue;
            if (V4 && r + 16 <= J && cc + 16 <= L) {
                wmma::store_matrix_sync(P + (size_t)r * L + cc, c[i][j], L, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(scratch, c[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32) {
                    int rr = r + e / 16, c2 = cc + e % 16;
                    if (rr < J && c2 < L) P[(size_t)rr * L + c2] = scratch[e];
                }
                __syncwarp();
            }
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        tc_gemm_bk32<true><<<grid, NTHREADS>>>(M, N, P, J, K, L);
    else
        tc_gemm_bk32<false><<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
