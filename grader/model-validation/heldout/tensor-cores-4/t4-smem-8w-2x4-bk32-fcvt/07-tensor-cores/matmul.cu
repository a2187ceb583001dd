// Held-out kernel t4-smem-8w-2x4-bk32-fcvt (stage 07-tensor-cores): 128x128 block tiles, 8 warps (256 threads, 4 down, 2 across) of 32x64 (2x4 fragments), BK 32 (four k-steps of 8 per phase): 128x32 and 32x128 tiles, rows padded by 8, filled when K and L are multiples of 4 by float4 loads copied straight from global to shared memory (4 of each tile per thread, no registers held across the barrier), else element by element with zero fill (16 of each tile per thread); stored unconverted and rounded to TF32 in each fragment after load_matrix_sync; one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TILE_M 128
#define TILE_N 128
#define TILE_K 32
#define PAD 8
#define NTHREADS 256

__global__ void __launch_bounds__(NTHREADS)
wmma_bk32(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
          int J, int K, int L, bool vec) {
    __shared__ __align__(128) float sA[TILE_M][TILE_K + PAD];   // ldm 40
    __shared__ __align__(128) float sB[TILE_K][TILE_N + PAD];   // ldm 136

    const int tid = threadIdx.x;
    const int warpId = tid >> 5, lane = tid & 31;
    const int warpRow = (warpId >> 1) * 32;   // 4 warps down
    const int warpCol = (warpId & 1) * 64;    // 2 warps across
    const int blockRow = blockIdx.y * TILE_M, blockCol = blockIdx.x * TILE_N;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c[2][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) wmma::fill_fragment(c[i][j], 0.0f);

    for (int kBase = 0; kBase < K; kBase += TILE_K) {
        if (vec) {
            // 128 x 32 = 1024 float4 of M, 32 x 128 = 1024 of N: 4 of each per thread
            for (int t = 0; t < 4; t++) {
                int id = tid + t * NTHREADS;
                int r = id / (TILE_K / 4), col = (id % (TILE_K / 4)) * 4;
                int gr = blockRow + r, gc = kBase + col;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (gr < J && gc < K) v = *reinterpret_cast<const float4*>(M + (size_t)gr * K + gc);
                *reinterpret_cast<float4*>(&sA[r][col]) = v;
            }
            for (int t = 0; t < 4; t++) {
                int id = tid + t * NTHREADS;
                int r = id / (TILE_N / 4), col = (id % (TILE_N / 4)) * 4;
                int gr = kBase + r, gc = blockCol + col;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (gr < K && gc < L) v = *reinterpret_cast<const float4*>(N + (size_t)gr * L + gc);
                *reinterpret_cast<float4*>(&sB[r][col]) = v;
            }
        } else {
            for (int id = tid; id < TILE_M * TILE_K; id += NTHREADS) {
                int r = id / TILE_K, col = id % TILE_K;
                int gr = blockRow + r, gc = kBase + col;
                sA[r][col] = (gr < J && gc < K) ? M[(size_t)gr * K + gc] : 0.0f;
            }
            for (int id = tid; id < TILE_K * TILE_N; id += NTHREADS) {
                int r = id / TILE_N, col = id % TILE_N;
                int gr = kBase + r, gc = blockCol + col;
                sB[r][col] = (gr < K && gc < L) ? N[(size_t)gr * L + gc] : 0.0f;
            }
        }
        __syncthreads();

        for (int kk = 0; kk < TILE_K; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[4];
            for (int i = 0; i < 2; i++) {
                wmma::load_matrix_sync(a[i], &sA[warpRow + i * 16][kk], TILE_K + PAD);
                for (int e = 0; e < a[i].num_elements; e++) a[i].x[e] = wmma::__float_to_tf32(a[i].x[e]);
            }
            for (int j = 0; j < 4; j++) {
                wmma::load_matrix_sync(b[j], &sB[kk][warpCol + j * 16], TILE_N + PAD);
                for (int e = 0; e < b[j].num_elements; e++) b[j].x[e] = wmma::__float_to_tf32(b[j].x[e]);
            }
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++) wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
        }
        __syncthreads();
    }

    // The last barrier of the loop is passed: the M tile's memory is free for the edge scratch.
    float* scratch = &sA[0][0] + warpId * 256;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            int r0 = blockRow + warpRow + i * 16, c0 = blockCol + warpCol + j * 16;
            if (r0 >= J || c0 >= L) continue;
            if (vec && r0 + 16 <= J && c0 + 16 <= L) {
                wmma::store_matrix_sync(P + (size_t)r0 * L + c0, c[i][j], L, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(scratch, c[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32) {
                    int r = r0 + e / 16, cc = c0 + e % 16;
                    if (r < J && cc < L) P[(size_t)r * L + cc] = scratch[e];
                }
                __syncwarp();
            }
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    bool vec = (K % 4 == 0) && (L % 4 == 0);
    dim3 block(NTHREADS);
    dim3 grid((L + TILE_N - 1) / TILE_N, (J + TILE_M - 1) / TILE_M);
    wmma_bk32<<<grid, block>>>(M, N, P, J, K, L, vec);
}
