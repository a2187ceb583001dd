// Held-out kernel t4-rpf1-8w-2x4-64x256-bk16-trunc (stage 07-tensor-cores): 64x256 block tiles, 8 warps (2 down, 4 across) of 32x64 (2x4 fragments), BK 16: 64x16 and 16x256 tiles in one shared buffer, rows padded by 8, with register prefetching (the next phase's 1 float4 of the M tile and 4 of the N tile per thread loaded after the first barrier, before the products; two barriers per phase; the same segments element by element with zero fill when K or L is not a multiple of 4); no TF32 conversion anywhere (the tensor cores truncate); fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch array of their own.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 256
#define BK 16
#define SA_LD (BK + 8)    // 24
#define SB_LD (BN + 8)    // 264

struct Regs {
    float4 a;
    float4 b[4];
};

template <bool VEC>
__device__ inline float4 grab(const float* __restrict__ X, int rows, int cols, int r, int c) {
    float4 v = {0.f, 0.f, 0.f, 0.f};
    if (r < rows) {
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(&X[(size_t)r * cols + c]);
        } else {
            const size_t base = (size_t)r * cols;
            if (c < cols) v.x = X[base + c];
            if (c + 1 < cols) v.y = X[base + c + 1];
            if (c + 2 < cols) v.z = X[base + c + 2];
            if (c + 3 < cols) v.w = X[base + c + 3];
        }
    }
    return v;
}

template <bool VEC>
__device__ inline void fetch(Regs& g, const float* M, const float* N, int J, int K, int L, int bm, int bn, int k0) {
    const int t = threadIdx.x;
    g.a = grab<VEC>(M, J, K, bm + t / 4, k0 + (t % 4) * 4);         // 64 rows x 4 segments
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int id = t + q * 256;                                   // 16 rows x 64 segments
        g.b[q] = grab<VEC>(N, K, L, k0 + id / 64, bn + (id % 64) * 4);
    }
}

__device__ inline void deposit(const Regs& g, float (*sa)[SA_LD], float (*sb)[SB_LD]) {
    const int t = threadIdx.x;
    *reinterpret_cast<float4*>(&sa[t / 4][(t % 4) * 4]) = g.a;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int id = t + q * 256;
        *reinterpret_cast<float4*>(&sb[id / 64][(id % 64) * 4]) = g.b[q];
    }
}

template <bool VEC>
__global__ void __launch_bounds__(256)
mm_wide(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float sa[BM][SA_LD];
    __shared__ __align__(128) float sb[BK][SB_LD];
    __shared__ __align__(128) float spill[8][16 * 16];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wy = warp / 4, wx = warp % 4;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.f);

    Regs g;
    fetch<VEC>(g, M, N, J, K, L, bm, bn, 0);
    for (int k0 = 0; k0 < K; k0 += BK) {
        deposit(g, sa, sb);
        __syncthreads();
        if (k0 + BK < K) fetch<VEC>(g, M, N, J, K, L, bm, bn, k0 + BK);   // in flight during the products
        for (int kk = 0; kk < BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[4];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &sa[wy * 32 + i * 16][kk], SA_LD);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(fb[j], &sb[kk][wx * 64 + j * 16], SB_LD);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
            const int r = bm + wy * 32 + i * 16, c = bn + wx * 64 + j * 16;
            if (r >= J || c >= L) continue;
            if (VEC && r + 16 <= J && c + 16 <= L) {
                wmma::store_matrix_sync(&P[(size_t)r * L + c], acc[i][j], L, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(spill[warp], acc[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32) {
                    const int rr = r + e / 16, cc = c + e % 16;
                    if (rr < J && cc < L) P[(size_t)rr * L + cc] = spill[warp][e];
                }
                __syncwarp();
            }
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        mm_wide<true><<<grid, 256>>>(M, N, P, J, K, L);
    else
        mm_wide<false><<<grid, 256>>>(M, N, P, J, K, L);
}
