// Held-out kernel t2-dbuf-2w-2x4-bk16 (stage 07-tensor-cores): 64x64 block tiles, 2 warps (64 threads, one above the other) of 32x64 (2x4 fragments), BK 16: 64x16 and 16x64 tiles, unpadded, double-buffered in shared memory (the next phase's scalar zero-filled loads, 16 of each tile per thread, stored straight into the other buffer before the current one is multiplied; one barrier per phase), stored unconverted and rounded to TF32 in each fragment after load_matrix_sync; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the tiles' memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BS 64      // block tile: 64 x 64
#define BK 16
#define NT 64      // two warps

__device__ void load_tiles(float (*a)[BK], float (*b)[BS], const float* M, const float* N, int J, int K, int L,
                           int r0, int c0, int k0) {
    const int t = threadIdx.x;
    // M tile: 64 rows x 16; thread t walks elements t, t+64, ... (a quarter row per step)
    for (int e = t; e < BS * BK; e += NT) {
        int r = e / BK, c = e % BK;
        a[r][c] = (r0 + r < J && k0 + c < K) ? M[(size_t)(r0 + r) * K + k0 + c] : 0.0f;
    }
    // N tile: 16 rows x 64; a warp reads half a row per step
    for (int e = t; e < BK * BS; e += NT) {
        int r = e / BS, c = e % BS;
        b[r][c] = (k0 + r < K && c0 + c < L) ? N[(size_t)(k0 + r) * L + c0 + c] : 0.0f;
    }
}

__global__ void tc_dbuf(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[2][BS][BK];
    __shared__ __align__(128) float Bs[2][BK][BS];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int r0 = blockIdx.y * BS, c0 = blockIdx.x * BS;
    const int wr = warp * 32;   // warp 0: rows 0-31, warp 1: rows 32-63; all 64 columns

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    const int nph = (K + BK - 1) / BK;
    load_tiles(As[0], Bs[0], M, N, J, K, L, r0, c0, 0);
    __syncthreads();

    for (int ph = 0; ph < nph; ph++) {
        const int cur = ph & 1;
        if (ph + 1 < nph)   // the other buffer: its last readers passed the previous barrier
            load_tiles(As[cur ^ 1], Bs[cur ^ 1], M, N, J, K, L, r0, c0, (ph + 1) * BK);

        for (int kk = 0; kk < BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[4];
            for (int i = 0; i < 2; i++) {
                wmma::load_matrix_sync(fa[i], &As[cur][wr + 16 * i][kk], BK);
                for (int t = 0; t < fa[i].num_elements; t++) fa[i].x[t] = wmma::__float_to_tf32(fa[i].x[t]);
            }
            for (int j = 0; j < 4; j++) {
                wmma::load_matrix_sync(fb[j], &Bs[cur][kk][16 * j], BS);
                for (int t = 0; t < fb[j].num_elements; t++) fb[j].x[t] = wmma::__float_to_tf32(fb[j].x[t]);
            }
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    float* scratch = &As[0][0][0] + warp * 256;   // free: every warp passed the last barrier
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            int gr = r0 + wr + 16 * i, gc = c0 + 16 * j;
            if (gr >= J || gc >= L) continue;
            if (L % 4 == 0 && gr + 16 <= J && gc + 16 <= L) {
                wmma::store_matrix_sync(&P[(size_t)gr * L + gc], acc[i][j], L, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32)
                    if (gr + e / 16 < J && gc + e % 16 < L) P[(size_t)(gr + e / 16) * L + gc + e % 16] = scratch[e];
                __syncwarp();
            }
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BS - 1) / BS, (J + BS - 1) / BS);
    tc_dbuf<<<grid, NT>>>(M, N, P, J, K, L);
}
