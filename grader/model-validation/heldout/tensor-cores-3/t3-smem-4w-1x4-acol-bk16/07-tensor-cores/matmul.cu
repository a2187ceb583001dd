// Held-out kernel t3-smem-4w-1x4-acol-bk16 (stage 07-tensor-cores): 64x64 block tiles, 4 warps (stacked) of 16x64 (1x4 fragments), BK 16: the M tile stored transposed (AsT[16][68]: scalar loads along M's rows, 8 per thread, stored down its columns) and read as col_major matrix_a fragments (ldm 68), the N tile [16][68] (scalar loads, 8 per thread), both zero-filled and rounded to TF32 as they are stored; one buffer, two barriers per phase, no prefetch; per k-step one matrix_a fragment, each of the four matrix_b fragments loaded just before its product; every fragment stored to P through a per-warp 16x16 scratch array, copied with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 64           // 64 x 64 block tile of P
#define DEPTH 16          // k per phase
#define LD 68             // both shared tiles: 64 + 4 floats per row
#define NWARPS 4          // warp w: rows 16w..16w+15 of the tile, all 64 columns (1 x 4 fragments)

__global__ void __launch_bounds__(NWARPS * 32)
matmul_wmma_acol(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    // the M tile is kept transposed: AsT[k][m] = M[row m][col k], read as a column-major matrix_a
    __shared__ __align__(128) float AsT[DEPTH][LD];
    __shared__ __align__(128) float Bs[DEPTH][LD];
    __shared__ __align__(128) float cbuf[NWARPS][16 * 16];

    const int tid = threadIdx.x;
    const int w = tid >> 5, lane = tid & 31;
    const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4];
    for (int j = 0; j < 4; j++) wmma::fill_fragment(acc[j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += DEPTH) {
        for (int i = 0; i < (TILE * DEPTH) / (NWARPS * 32); i++) {   // 8 each
            int idx = tid + i * NWARPS * 32;
            int m = idx / DEPTH, k = idx % DEPTH;      // read M along its rows (k fastest)
            float v = 0.0f;
            if (r0 + m < J && k0 + k < K) v = M[(size_t)(r0 + m) * K + k0 + k];
            AsT[k][m] = wmma::__float_to_tf32(v);
        }
        for (int i = 0; i < (TILE * DEPTH) / (NWARPS * 32); i++) {
            int idx = tid + i * NWARPS * 32;
            int k = idx / TILE, n = idx % TILE;
            float v = 0.0f;
            if (k0 + k < K && c0 + n < L) v = N[(size_t)(k0 + k) * L + c0 + n];
            Bs[k][n] = wmma::__float_to_tf32(v);
        }
        __syncthreads();

        for (int kk = 0; kk < DEPTH; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> a;
            wmma::load_matrix_sync(a, &AsT[kk][w * 16], LD);
            for (int j = 0; j < 4; j++) {
                wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
                wmma::load_matrix_sync(b, &Bs[kk][j * 16], LD);
                wmma::mma_sync(acc[j], a, b, acc[j]);
            }
        }
        __syncthreads();
    }

    // every fragment through the warp's own 16 x 16 buffer, copied with bounds tests
    const int pr = r0 + w * 16;
    if (pr >= J) return;
    for (int j = 0; j < 4; j++) {
        const int pc = c0 + j * 16;
        if (pc >= L) break;
        wmma::store_matrix_sync(cbuf[w], acc[j], 16, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            int r = pr + e / 16, c = pc + e % 16;
            if (r < J && c < L) P[(size_t)r * L + c] = cbuf[w][e];
        }
        __syncwarp();
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    matmul_wmma_acol<<<grid, NWARPS * 32>>>(M, N, P, J, K, L);
}
