// Held-out kernel t2-gdirect-2w-2x1-bk8 (stage 07-tensor-cores): 32x32 block tiles, 2 warps (64 threads, side by side) of 32x16 (2x1 fragments); a block whose tile lies inside P, when K and L are multiples of 4, loads its fragments straight from global memory (ldm K and L) for every whole k-step of 8, with no shared memory; the last partial k-step of such a block and every k-step of an edge block are staged through 32x8 and 8x32 zero-padded, unpadded shared tiles (scalar loads, 4 of each tile per thread; one buffer, two barriers); TF32 conversion in the fragment after every load; inside blocks store straight to P, edge blocks through a per-warp 16x16 scratch.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 32
#define KS 8

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

template <typename Frag>
__device__ void to_tf32(Frag& f) {
    for (int t = 0; t < f.num_elements; t++) f.x[t] = wmma::__float_to_tf32(f.x[t]);
}

__global__ void tc_direct(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(32) float sA[TILE][KS];
    __shared__ __align__(32) float sB[KS][TILE];
    __shared__ __align__(32) float sC[2][16][16];

    const int warp = threadIdx.x / 32;   // 0: columns 0-15 of the tile, 1: columns 16-31
    const int lane = threadIdx.x % 32;
    const int row0 = blockIdx.y * TILE;
    const int col0 = blockIdx.x * TILE + warp * 16;

    // The whole block takes the same branch (it depends on the block only), so the barriers below
    // are reached by both warps.
    const bool aligned = (K % 4 == 0) && (L % 4 == 0);
    const bool inside = aligned && (blockIdx.y * TILE + TILE <= J) && (blockIdx.x * TILE + TILE <= L);

    FragC c[2];
    wmma::fill_fragment(c[0], 0.0f);
    wmma::fill_fragment(c[1], 0.0f);

    int k = 0;
    if (inside) {
        // Straight from global: 32-byte aligned since rows are 16 apart, k-steps 8 apart, K, L % 4 == 0.
        for (; k + KS <= K; k += KS) {
            FragA a0, a1;
            FragB b;
            wmma::load_matrix_sync(a0, M + (size_t)row0 * K + k, K);
            wmma::load_matrix_sync(a1, M + (size_t)(row0 + 16) * K + k, K);
            wmma::load_matrix_sync(b, N + (size_t)k * L + col0, L);
            to_tf32(a0);
            to_tf32(a1);
            to_tf32(b);
            wmma::mma_sync(c[0], a0, b, c[0]);
            wmma::mma_sync(c[1], a1, b, c[1]);
        }
    }

    // Whatever is left (all of K for an edge block), through shared memory with zeros outside.
    for (; k < K; k += KS) {
        for (int e = threadIdx.x; e < TILE * KS; e += 64) {
            int r = e / KS, kc = e % KS;
            int gr = blockIdx.y * TILE + r, gk = k + kc;
            sA[r][kc] = (gr < J && gk < K) ? M[(size_t)gr * K + gk] : 0.0f;
            int kr = e / TILE, cc = e % TILE;
            int gk2 = k + kr, gc = blockIdx.x * TILE + cc;
            sB[kr][cc] = (gk2 < K && gc < L) ? N[(size_t)gk2 * L + gc] : 0.0f;
        }
        __syncthreads();
        FragA a0, a1;
        FragB b;
        wmma::load_matrix_sync(a0, &sA[0][0], KS);
        wmma::load_matrix_sync(a1, &sA[16][0], KS);
        wmma::load_matrix_sync(b, &sB[0][warp * 16], TILE);
        to_tf32(a0);
        to_tf32(a1);
        to_tf32(b);
        wmma::mma_sync(c[0], a0, b, c[0]);
        wmma::mma_sync(c[1], a1, b, c[1]);
        __syncthreads();
    }

    for (int i = 0; i < 2; i++) {
        int r0 = row0 + 16 * i;
        if (inside) {
            wmma::store_matrix_sync(P + (size_t)r0 * L + col0, c[i], L, wmma::mem_row_major);
        } else {
            if (r0 >= J || col0 >= L) continue;   // uniform over the warp
            wmma::store_matrix_sync(&sC[warp][0][0], c[i], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = r0 + e / 16, cc = col0 + e % 16;
                if (r < J && cc < L) P[(size_t)r * L + cc] = sC[warp][e / 16][e % 16];
            }
            __syncwarp();
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(64);
    dim3 grid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    tc_direct<<<grid, block>>>(M, N, P, J, K, L);
}
