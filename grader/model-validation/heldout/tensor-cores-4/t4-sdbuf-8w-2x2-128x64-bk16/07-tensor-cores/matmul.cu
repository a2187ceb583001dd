// Held-out kernel t4-sdbuf-8w-2x2-128x64-bk16 (stage 07-tensor-cores): 128x64 block tiles, 8 warps (4 down, 2 across) of 32x32 (2x2 fragments), BK 16: 128x16 and 16x64 tiles, rows padded by 4, double-buffered in shared memory (the next phase's scalar zero-filled loads, 8 of the M tile and 4 of the N tile per thread, a warp reading two rows of the M tile or half a row of the N tile, rounded to TF32 and stored straight into the other buffer before the current one is multiplied; one barrier per phase), whatever K and L; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the tiles' memory, free after the loop's last barrier.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BLK_M 128
#define BLK_N 64
#define BLK_K 16
#define LD_A (BLK_K + 4)   // 20
#define LD_B (BLK_N + 4)   // 68
#define THREADS 256

// Scalar loads of one phase straight into shared memory, rounded to TF32 on the way.
__device__ __forceinline__ void load_tiles(const float* __restrict__ M, const float* __restrict__ N,
                                           float (*As)[LD_A], float (*Bs)[LD_B],
                                           int J, int K, int L, int bRow, int bCol, int k0) {
    const int t = threadIdx.x;
#pragma unroll
    for (int i = 0; i < BLK_M * BLK_K / THREADS; ++i) {   // 8
        const int e = t + i * THREADS;
        const int r = e / BLK_K, c = e % BLK_K;
        const int gr = bRow + r, gc = k0 + c;
        const float v = (gr < J && gc < K) ? M[(size_t)gr * K + gc] : 0.0f;
        As[r][c] = wmma::__float_to_tf32(v);
    }
#pragma unroll
    for (int i = 0; i < BLK_K * BLK_N / THREADS; ++i) {   // 4
        const int e = t + i * THREADS;
        const int r = e / BLK_N, c = e % BLK_N;
        const int gr = k0 + r, gc = bCol + c;
        const float v = (gr < K && gc < L) ? N[(size_t)gr * L + gc] : 0.0f;
        Bs[r][c] = wmma::__float_to_tf32(v);
    }
}

__global__ void __launch_bounds__(THREADS)
sdbuf_kernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[2][BLK_M][LD_A];
    __shared__ __align__(128) float Bs[2][BLK_K][LD_B];

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
    const int bRow = blockIdx.y * BLK_M, bCol = blockIdx.x * BLK_N;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int phases = (K + BLK_K - 1) / BLK_K;
    load_tiles(M, N, As[0], Bs[0], J, K, L, bRow, bCol, 0);
    __syncthreads();

    for (int p = 0; p < phases; ++p) {
        const int cur = p & 1;
        // The other buffer was last read in phase p - 1, which ended with a barrier.
        if (p + 1 < phases) load_tiles(M, N, As[cur ^ 1], Bs[cur ^ 1], J, K, L, bRow, bCol, (p + 1) * BLK_K);
#pragma unroll
        for (int kk = 0; kk < BLK_K; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[cur][wm + 16 * i][kk], LD_A);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[cur][kk][wn + 16 * j], LD_B);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    const bool vec = (L % 4) == 0;
    float* scratch = &As[0][0][0] + warp * 256;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int r0 = bRow + wm + 16 * i, c0 = bCol + wn + 16 * j;
            if (r0 >= J || c0 >= L) continue;
            if (vec && r0 + 16 <= J && c0 + 16 <= L) {
                wmma::store_matrix_sync(&P[(size_t)r0 * L + c0], acc[i][j], L, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int r = r0 + e / 16, c = c0 + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BLK_N - 1) / BLK_N, (J + BLK_M - 1) / BLK_M);
    sdbuf_kernel<<<grid, THREADS>>>(M, N, P, J, K, L);
}
