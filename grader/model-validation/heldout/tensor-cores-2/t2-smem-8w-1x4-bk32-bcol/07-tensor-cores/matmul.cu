// Held-out kernel t2-smem-8w-1x4-bk32-bcol (stage 07-tensor-cores): 128x64 block tiles, 8 warps (256 threads, stacked) of 16x64 (1x4 fragments), BK 32 (four k-steps of 8 per phase): the M tile 128x32 (rows padded by 4) and the N tile stored transposed (BsT[64][36]) and read as col_major matrix_b fragments (ldm 36), both filled by scalar zero-filled loads (16 of the M tile and 8 of the N tile per thread, a warp reading one row of the M tile or half a row of the N tile) rounded to TF32 as they are stored; one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TM 128
#define TN 64
#define TK 32
#define LDA 36     // TK + 4
#define LDBT 36    // TK + 4: BsT[n][k]

__global__ void __launch_bounds__(256)
tc_bcol(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[TM][LDA];
    __shared__ __align__(128) float BsT[TN][LDBT];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    const int wrow = warp * 16;   // each warp: 16 rows, all 64 columns

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4];
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int q = 0; q < 16; ++q) {
            int e = tid + 256 * q;
            int r = e / TK, c = e % TK;   // a warp: one row of 32
            float v = 0.0f;
            if (row0 + r < J && k0 + c < K) v = M[(size_t)(row0 + r) * K + k0 + c];
            As[r][c] = wmma::__float_to_tf32(v);
        }
        for (int q = 0; q < 8; ++q) {
            int e = tid + 256 * q;
            int kr = e / TN, n = e % TN;  // a warp: half a row of the N tile, coalesced
            float v = 0.0f;
            if (k0 + kr < K && col0 + n < L) v = N[(size_t)(k0 + kr) * L + col0 + n];
            BsT[n][kr] = wmma::__float_to_tf32(v);
        }
        __syncthreads();

        for (int kk = 0; kk < TK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
            wmma::load_matrix_sync(a, &As[wrow][kk], LDA);
            for (int j = 0; j < 4; ++j) {
                // element (k, n) of the fragment at BsT[16j + n][kk + k]: column-major, ldm LDBT
                wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b;
                wmma::load_matrix_sync(b, &BsT[16 * j][kk], LDBT);
                wmma::mma_sync(acc[j], a, b, acc[j]);
            }
        }
        __syncthreads();
    }

    float* scratch = &As[0][0] + warp * 256;
    const int r0 = row0 + wrow;
    if (r0 >= J) return;   // nothing of this warp's in P; no barrier follows
    for (int j = 0; j < 4; ++j) {
        int c0 = col0 + 16 * j;
        if (c0 >= L) break;
        if (L % 4 == 0 && r0 + 16 <= J && c0 + 16 <= L) {
            wmma::store_matrix_sync(&P[(size_t)r0 * L + c0], acc[j], L, wmma::mem_row_major);
        } else {
            wmma::store_matrix_sync(scratch, acc[j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = r0 + e / 16, c = c0 + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
            }
            __syncwarp();
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + TN - 1) / TN, (J + TM - 1) / TM);
    tc_bcol<<<grid, 256>>>(M, N, P, J, K, L);
}
