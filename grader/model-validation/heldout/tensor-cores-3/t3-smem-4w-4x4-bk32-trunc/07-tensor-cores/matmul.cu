// Held-out kernel t3-smem-4w-4x4-bk32-trunc (stage 07-tensor-cores): 128x128 block tiles, 4 warps (2x2) of 64x64 (4x4 fragments), BK 32 (four k-steps of 8 per phase): 128x32 and 32x128 tiles, rows padded by 4, filled straight from global memory by float4 loads (8 of each tile per thread) when K and L are multiples of 4, else the same segments element by element with zero fill; no TF32 conversion anywhere (the tensor cores truncate); one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch array.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

// block tile 128 x 128, 4 warps in a 2 x 2 grid, each warp 64 x 64 = 4 x 4 fragments
static const int BLK = 128;
static const int KT = 32;
static const int LDS_A = KT + 4;     // 36
static const int LDS_B = BLK + 4;    // 132
static const int THREADS = 128;

template <bool FAST>
__global__ void __launch_bounds__(THREADS)
mm_tc(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float a_s[BLK * LDS_A];
    __shared__ __align__(128) float b_s[KT * LDS_B];
    __shared__ __align__(128) float out_s[4][16 * 16];   // one per warp, for fragments on P's edge

    int tid = threadIdx.x;
    int wid = tid >> 5;
    int lane = tid & 31;
    int by = blockIdx.y * BLK;
    int bx = blockIdx.x * BLK;
    int wy = (wid >> 1) * 64;
    int wx = (wid & 1) * 64;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int kb = 0; kb < K; kb += KT) {
        // M tile: 128 rows x 32 cols = 1024 float4, 8 per thread
        for (int q = tid; q < BLK * KT / 4; q += THREADS) {
            int r = q >> 3, c = (q & 7) << 2;
            int gr = by + r, gc = kb + c;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (gr < J) {
                if (FAST) {
                    if (gc < K) v = *(const float4*)(M + (size_t)gr * K + gc);
                } else {
                    const float* src = M + (size_t)gr * K;
                    if (gc < K) v.x = src[gc];
                    if (gc + 1 < K) v.y = src[gc + 1];
                    if (gc + 2 < K) v.z = src[gc + 2];
                    if (gc + 3 < K) v.w = src[gc + 3];
                }
            }
            *(float4*)(a_s + r * LDS_A + c) = v;
        }
        // N tile: 32 rows x 128 cols = 1024 float4, 8 per thread
        for (int q = tid; q < KT * BLK / 4; q += THREADS) {
            int r = q >> 5, c = (q & 31) << 2;
            int gr = kb + r, gc = bx + c;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (gr < K) {
                if (FAST) {
                    if (gc < L) v = *(const float4*)(N + (size_t)gr * L + gc);
                } else {
                    const float* src = N + (size_t)gr * L;
                    if (gc < L) v.x = src[gc];
                    if (gc + 1 < L) v.y = src[gc + 1];
                    if (gc + 2 < L) v.z = src[gc + 2];
                    if (gc + 3 < L) v.w = src[gc + 3];
                }
            }
            *(float4*)(b_s + r * LDS_B + c) = v;
        }
        __syncthreads();

        // no conversion to TF32: the tensor cores use the top bits of each float as they are
        for (int kk = 0; kk < KT; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[4];
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(fa[i], a_s + (wy + i * 16) * LDS_A + kk, LDS_A);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(fb[j], b_s + kk * LDS_B + wx + j * 16, LDS_B);
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            int r = by + wy + i * 16;
            int c = bx + wx + j * 16;
            if (r >= J || c >= L) continue;
            if (FAST && r + 16 <= J && c + 16 <= L) {
                wmma::store_matrix_sync(P + (size_t)r * L + c, acc[i][j], L, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(out_s[wid], acc[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32) {
                    int gr = r + e / 16, gc = c + e % 16;
                    if (gr < J && gc < L) P[(size_t)gr * L + gc] = out_s[wid][e];
                }
                __syncwarp();
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BLK - 1) / BLK, (J + BLK - 1) / BLK);
    bool fast = (K % 4 == 0) && (L % 4 == 0);
    if (fast)
        mm_tc<true><<<grid, THREADS>>>(M, N, P, J, K, L);
    else
        mm_tc<false><<<grid, THREADS>>>(M, N, P, J, K, L);
}
