// Held-out kernel t3-gdirect-4w-1x1 (stage 07-tensor-cores): 32x32 block tiles, 4 warps (2x2) of one 16x16 fragment each, no shared tiles and no block barriers: a warp whose fragment lies inside P (K and L multiples of 4, M, N and P 32-byte aligned) loads its fragments straight from global memory (ldm K and L) for every whole k-step of 8; its last partial k-step and every k-step of an edge warp are built in the warp's own 16x8 and 8x16 zero-filled shared scratch (scalar loads, 4 of each per lane, __syncwarp); TF32 conversion in the fragment after every load; warps outside P return at once; inside warps store straight to P, edge ones through a per-warp 16x16 scratch.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

// 32 x 32 block tiles, 4 warps (2 x 2), one 16 x 16 fragment each, no shared tiles for the block:
// each warp loads its fragments straight from global memory when it can, and otherwise builds
// them in its own small zero-padded scratch.
#define WARPS 4

__global__ void __launch_bounds__(WARPS * 32)
wmma_global(const float* M, const float* N, float* P, int J, int K, int L, bool aligned4) {
    __shared__ __align__(32) float aS[WARPS][16 * 8];
    __shared__ __align__(32) float bS[WARPS][8 * 16];
    __shared__ __align__(32) float cS[WARPS][16 * 16];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = blockIdx.y * 32 + (warp / 2) * 16;
    const int col = blockIdx.x * 32 + (warp % 2) * 16;
    if (row >= J || col >= L) return;   // no block barrier below: a warp outside P just leaves
    const bool whole = aligned4 && row + 16 <= J && col + 16 <= L;

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.0f);

    for (int k = 0; k < K; k += 8) {
        if (whole && k + 8 <= K) {
            wmma::load_matrix_sync(a, M + (size_t)row * K + k, K);
            wmma::load_matrix_sync(b, N + (size_t)k * L + col, L);
        } else {
            __syncwarp();   // the previous k-step's loads from the scratch are done
            for (int e = lane; e < 128; e += 32) {
                int ar = e / 8, ac = e % 8;
                aS[warp][e] = (row + ar < J && k + ac < K) ? M[(size_t)(row + ar) * K + k + ac] : 0.0f;
                int br = e / 16, bc = e % 16;
                bS[warp][e] = (k + br < K && col + bc < L) ? N[(size_t)(k + br) * L + col + bc] : 0.0f;
            }
            __syncwarp();
            wmma::load_matrix_sync(a, aS[warp], 8);
            wmma::load_matrix_sync(b, bS[warp], 16);
        }
        for (int t = 0; t < a.num_elements; t++) a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b.num_elements; t++) b.x[t] = wmma::__float_to_tf32(b.x[t]);
        wmma::mma_sync(c, a, b, c);
    }

    if (whole) {
        wmma::store_matrix_sync(P + (size_t)row * L + col, c, L, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(cS[warp], c, 16, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            int r = row + e / 16, cc = col + e % 16;
            if (r < J && cc < L) P[(size_t)r * L + cc] = cS[warp][e];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + 31) / 32, (J + 31) / 32);
    bool aligned4 = (K % 4 == 0) && (L % 4 == 0) && ((size_t)M % 32 == 0) && ((size_t)N % 32 == 0) &&
                    ((size_t)P % 32 == 0);
    wmma_global<<<grid, WARPS * 32>>>(M, N, P, J, K, L, aligned4);
}
