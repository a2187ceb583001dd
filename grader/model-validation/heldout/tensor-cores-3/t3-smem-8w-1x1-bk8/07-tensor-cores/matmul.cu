// Held-out kernel t3-smem-8w-1x1-bk8 (stage 07-tensor-cores): 32x64 block tiles, 8 warps (256 threads, 2 down, 4 across) of one 16x16 fragment each, BK 8 (one k-step per phase): 32x8 and 8x64 tiles, rows padded by 4, filled when K and L are multiples of 4 by one float4 per thread from threads 0-63 (M tile) and 64-191 (N tile), threads 192-255 idle, else by scalar zero-filled loads (1 of the M tile and 2 of the N tile per thread), rounded to TF32 and stored element by element; one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch array.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

const int BROWS = 32, BCOLS = 64, BDEPTH = 8;
const int A_LD = BDEPTH + 4;   // 12
const int B_LD = BCOLS + 4;    // 68

// 8 warps per block (2 rows x 4 columns), every warp computes exactly one 16x16 fragment of P.
template <bool VEC>
__global__ void __launch_bounds__(256)
tc_small_tiles(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[BROWS][A_LD];
    __shared__ __align__(128) float Bs[BDEPTH][B_LD];
    __shared__ __align__(128) float Cs[8][256];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int fr = (warp / 4) * 16, fc = (warp % 4) * 16;
    const int gRow = blockIdx.y * BROWS, gCol = blockIdx.x * BCOLS;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += BDEPTH) {
        if (VEC) {
            // threads 0-63: one float4 of the 32 x 8 M tile; threads 64-191: one of the 8 x 64 N tile
            if (tid < 64) {
                int r = tid / 2, c = (tid % 2) * 4;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (gRow + r < J && k0 + c < K) v = *reinterpret_cast<const float4*>(&M[(size_t)(gRow + r) * K + k0 + c]);
                As[r][c] = wmma::__float_to_tf32(v.x);
                As[r][c + 1] = wmma::__float_to_tf32(v.y);
                As[r][c + 2] = wmma::__float_to_tf32(v.z);
                As[r][c + 3] = wmma::__float_to_tf32(v.w);
            } else if (tid < 192) {
                int id = tid - 64;
                int r = id / 16, c = (id % 16) * 4;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (k0 + r < K && gCol + c < L) v = *reinterpret_cast<const float4*>(&N[(size_t)(k0 + r) * L + gCol + c]);
                Bs[r][c] = wmma::__float_to_tf32(v.x);
                Bs[r][c + 1] = wmma::__float_to_tf32(v.y);
                Bs[r][c + 2] = wmma::__float_to_tf32(v.z);
                Bs[r][c + 3] = wmma::__float_to_tf32(v.w);
            }
        } else {
            {
                int r = tid / 8, c = tid % 8;
                float v = (gRow + r < J && k0 + c < K) ? M[(size_t)(gRow + r) * K + k0 + c] : 0.f;
                As[r][c] = wmma::__float_to_tf32(v);
            }
            for (int id = tid; id < BDEPTH * BCOLS; id += 256) {
                int r = id / BCOLS, c = id % BCOLS;
                float v = (k0 + r < K && gCol + c < L) ? N[(size_t)(k0 + r) * L + gCol + c] : 0.f;
                Bs[r][c] = wmma::__float_to_tf32(v);
            }
        }
        __syncthreads();

        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
        wmma::load_matrix_sync(a, &As[fr][0], A_LD);
        wmma::load_matrix_sync(b, &Bs[0][fc], B_LD);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }

    const int r = gRow + fr, c = gCol + fc;
    if (r >= J || c >= L) return;
    if (VEC && r + 16 <= J && c + 16 <= L) {
        wmma::store_matrix_sync(&P[(size_t)r * L + c], acc, L, wmma::mem_row_major);
        return;
    }
    wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        int rr = r + e / 16, cc = c + e % 16;
        if (rr < J && cc < L) P[(size_t)rr * L + cc] = Cs[warp][e];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BCOLS - 1) / BCOLS, (J + BROWS - 1) / BROWS);
    if (K % 4 == 0 && L % 4 == 0)
        tc_small_tiles<true><<<grid, 256>>>(M, N, P, J, K, L);
    else
        tc_small_tiles<false><<<grid, 256>>>(M, N, P, J, K, L);
}
