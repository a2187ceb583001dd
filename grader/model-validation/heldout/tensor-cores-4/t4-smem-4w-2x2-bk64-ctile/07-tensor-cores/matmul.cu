// Held-out kernel t4-smem-4w-2x2-bk64-ctile (stage 07-tensor-cores): 64x64 block tiles, 4 warps (2x2) of 32x32 (2x2 fragments), BK 64 (eight k-steps of 8 per phase): 64x64 tiles of M and N, rows padded by 4, filled by scalar zero-filled loads (32 of each tile per thread, consecutive threads on consecutive columns) rounded to TF32 as they are stored, whatever K and L; one buffer, two barriers per phase, no prefetch; the whole 64x64 block tile of P stored through a padded shared array (ldm 68) over the M tile's memory after a barrier and written to P by all threads, row-contiguous, scalar, with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TS 64          // block tile: 64 x 64 of P
#define KT 64          // phase depth
#define LDS (TS + 4)   // 68: both tiles are 64 wide

__global__ void matmul_tc_bk64(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float tileM[TS][LDS];   // 64 rows x 64 k
    __shared__ __align__(128) float tileN[KT][LDS];   // 64 k x 64 columns

    int tx = threadIdx.x;   // 128 threads
    int warp = tx / 32;
    int wRow = (warp / 2) * 32, wCol = (warp % 2) * 32;
    int row0 = blockIdx.y * TS, col0 = blockIdx.x * TS;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += KT) {
        for (int idx = tx; idx < TS * KT; idx += 128) {
            int r = idx / KT, c = idx % KT;
            float v = 0.0f;
            if (row0 + r < J && k0 + c < K) v = M[(row0 + r) * K + k0 + c];
            tileM[r][c] = wmma::__float_to_tf32(v);
        }
        for (int idx = tx; idx < KT * TS; idx += 128) {
            int r = idx / TS, c = idx % TS;
            float v = 0.0f;
            if (k0 + r < K && col0 + c < L) v = N[(k0 + r) * L + col0 + c];
            tileN[r][c] = wmma::__float_to_tf32(v);
        }
        __syncthreads();

        for (int kk = 0; kk < KT; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(a[i], &tileM[wRow + 16 * i][kk], LDS);
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], &tileN[kk][wCol + 16 * j], LDS);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    // The M tile becomes the output tile: every warp writes its 32x32 corner, then all copy.
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&tileM[wRow + 16 * i][wCol + 16 * j], acc[i][j], LDS, wmma::mem_row_major);
    __syncthreads();
    for (int idx = tx; idx < TS * TS; idx += 128) {
        int r = idx / TS, c = idx % TS;
        if (row0 + r < J && col0 + c < L) P[(row0 + r) * L + col0 + c] = tileM[r][c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(128);
    dim3 grid((L + TS - 1) / TS, (J + TS - 1) / TS);
    matmul_tc_bk64<<<grid, block>>>(M, N, P, J, K, L);
}
