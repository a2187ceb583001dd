// Held-out kernel t3-smem-2w-4x4-bk16 (stage 07-tensor-cores): 128x64 block tiles, 2 warps (64 threads, one above the other) of 64x64 (4x4 fragments), BK 16: 128x16 and 16x64 tiles, rows padded by 4, filled by scalar zero-filled loads (32 of the M tile and 16 of the N tile per thread, consecutive threads on consecutive columns), stored unconverted and rounded to TF32 in each fragment after load_matrix_sync; one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

// Two warps per block, one above the other, each owning a 64x64 piece of a 128x64 block tile.
#define BLOCK_ROWS 128
#define BLOCK_COLS 64
#define KSTEP 16
#define SA (KSTEP + 4)
#define SB (BLOCK_COLS + 4)

__global__ void __launch_bounds__(64)
wmma_two_warps(const float* M, const float* N, float* P, int J, int K, int L, bool direct_store) {
    __shared__ __align__(32) float tileA[BLOCK_ROWS][SA];
    __shared__ __align__(32) float tileB[KSTEP][SB];

    int tx = threadIdx.x;
    int warp = tx / 32;
    int lane = tx % 32;
    int rowStart = blockIdx.y * BLOCK_ROWS;
    int colStart = blockIdx.x * BLOCK_COLS;
    int myRow = warp * 64;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> sum[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) wmma::fill_fragment(sum[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += KSTEP) {
        // 128 x 16 elements of M, 32 per thread, consecutive threads on consecutive columns
        for (int idx = tx; idx < BLOCK_ROWS * KSTEP; idx += 64) {
            int r = idx / KSTEP, c = idx % KSTEP;
            int gr = rowStart + r, gc = k0 + c;
            tileA[r][c] = (gr < J && gc < K) ? M[(size_t)gr * K + gc] : 0.0f;
        }
        // 16 x 64 elements of N, 16 per thread
        for (int idx = tx; idx < KSTEP * BLOCK_COLS; idx += 64) {
            int r = idx / BLOCK_COLS, c = idx % BLOCK_COLS;
            int gr = k0 + r, gc = colStart + c;
            tileB[r][c] = (gr < K && gc < L) ? N[(size_t)gr * L + gc] : 0.0f;
        }
        __syncthreads();

        for (int kk = 0; kk < KSTEP; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> af[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> bf[4];
            for (int i = 0; i < 4; i++) {
                wmma::load_matrix_sync(af[i], &tileA[myRow + i * 16][kk], SA);
                for (int t = 0; t < af[i].num_elements; t++) af[i].x[t] = wmma::__float_to_tf32(af[i].x[t]);
            }
            for (int j = 0; j < 4; j++) {
                wmma::load_matrix_sync(bf[j], &tileB[kk][j * 16], SB);
                for (int t = 0; t < bf[j].num_elements; t++) bf[j].x[t] = wmma::__float_to_tf32(bf[j].x[t]);
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) wmma::mma_sync(sum[i][j], af[i], bf[j], sum[i][j]);
        }
        __syncthreads();
    }

    float* stage = &tileA[0][0] + warp * 256;   // free after the loop's last barrier
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            int r = rowStart + myRow + i * 16;
            int c = colStart + j * 16;
            if (r >= J || c >= L) continue;
            if (direct_store && r + 16 <= J && c + 16 <= L) {
                wmma::store_matrix_sync(&P[(size_t)r * L + c], sum[i][j], L, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(stage, sum[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int gr = r + e / 16, gc = c + e % 16;
                if (gr < J && gc < L) P[(size_t)gr * L + gc] = stage[e];
            }
            __syncwarp();
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BLOCK_COLS - 1) / BLOCK_COLS, (J + BLOCK_ROWS - 1) / BLOCK_ROWS);
    wmma_two_warps<<<grid, 64>>>(M, N, P, J, K, L, L % 4 == 0);
}
