// Held-out kernel t4-gdirect-8w-2x2-fcvt (stage 07-tensor-cores): 128x64 block tiles, 8 warps (256 threads, 4 down, 2 across) of 32x32 (2x2 fragments), no shared tiles and no block barriers: a warp whose 32x32 tile lies inside P (K and L multiples of 4, M, N and P 32-byte aligned) loads its 2 matrix_a and 2 matrix_b fragments straight from global memory (ldm K and L) for every whole k-step of 8; its last partial k-step and every k-step of an edge warp are built in the warp's own 32x8 and 8x32 zero-filled shared scratch (scalar loads, 8 of each per lane, __syncwarp); TF32 conversion in the fragment after every load; warps outside P return at once; inside warps store straight to P, edge ones through a per-warp 16x16 scratch.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FC;

template <class F>
__device__ __forceinline__ void to_tf32(F& f) {
#pragma unroll
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = wmma::__float_to_tf32(f.x[i]);
}

__global__ void __launch_bounds__(256)
direct_wmma(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
            int J, int K, int L, bool aligned) {
    __shared__ __align__(128) float sa[8][32 * 8];    // per warp: 32 rows x 8 k
    __shared__ __align__(128) float sb[8][8 * 32];    // per warp: 8 k x 32 columns
    __shared__ __align__(128) float sc[8][16 * 16];   // per warp: an edge fragment of P

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int r0 = blockIdx.y * 128 + (warp / 2) * 32;
    const int c0 = blockIdx.x * 64 + (warp % 2) * 32;
    if (r0 >= J || c0 >= L) return;   // nothing of P here (no block barriers below)

    const bool inside = aligned && r0 + 32 <= J && c0 + 32 <= L;

    FC acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += 8) {
        FA a[2];
        FB b[2];
        if (inside && k0 + 8 <= K) {
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], M + (size_t)(r0 + 16 * i) * K + k0, K);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], N + (size_t)k0 * L + c0 + 16 * j, L);
        } else {
            for (int e = lane; e < 256; e += 32) {
                int r = e / 8, k = e % 8;   // M piece: 32 x 8
                sa[warp][e] = (r0 + r < J && k0 + k < K) ? M[(size_t)(r0 + r) * K + k0 + k] : 0.0f;
                int kr = e / 32, c = e % 32;   // N piece: 8 x 32
                sb[warp][e] = (k0 + kr < K && c0 + c < L) ? N[(size_t)(k0 + kr) * L + c0 + c] : 0.0f;
            }
            __syncwarp();
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &sa[warp][16 * i * 8], 8);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &sb[warp][16 * j], 32);
            __syncwarp();   // read before the next k-step overwrites the scratch
        }
#pragma unroll
        for (int i = 0; i < 2; ++i) to_tf32(a[i]);
#pragma unroll
        for (int j = 0; j < 2; ++j) to_tf32(b[j]);
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }

#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int rr = r0 + 16 * i, cc = c0 + 16 * j;
            if (rr >= J || cc >= L) continue;
            if (inside) {
                wmma::store_matrix_sync(P + (size_t)rr * L + cc, acc[i][j], L, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(sc[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int r = rr + e / 16, c = cc + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = sc[warp][e];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const bool aligned = K % 4 == 0 && L % 4 == 0 && ((uintptr_t)M % 32) == 0 && ((uintptr_t)N % 32) == 0 &&
                         ((uintptr_t)P % 32) == 0;
    dim3 grid((L + 63) / 64, (J + 127) / 128);
    direct_wmma<<<grid, 256>>>(M, N, P, J, K, L, aligned);
}
