// Held-out kernel t07-smem-1w-4x4-bk8 (stage 07-tensor-cores): one warp per block computing a 64x64 tile of P as 4x4 fragments, BK 8 (one k-step per phase): 64x8 and 8x64 tiles in unpadded shared memory, scalar zero-filled loads (16 of each tile per lane), one buffer with two barriers per phase; TF32 conversion in the fragment after load_matrix_sync; every fragment stored to P through a 16x16 scratch in shared memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 64     // block tile = warp tile: 64 x 64 of P, 4 x 4 fragments
#define KSTEP 8

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// A block of a single warp: the barriers are the warp's, every fragment of the tile is its own.
__global__ void __launch_bounds__(32)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[TILE][KSTEP];
    __shared__ __align__(128) float Bs[KSTEP][TILE];
    __shared__ __align__(128) float Cs[16][16];

    const int lane = threadIdx.x;
    const int bm = blockIdx.y * TILE, bn = blockIdx.x * TILE;

    FragC acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += KSTEP) {
        for (int e = lane; e < TILE * KSTEP; e += 32) {
            int r = e / KSTEP, c = e % KSTEP;
            As[r][c] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
            int kr = e / TILE, cc = e % TILE;
            Bs[kr][cc] = (k0 + kr < K && bn + cc < L) ? N[(size_t)(k0 + kr) * L + bn + cc] : 0.0f;
        }
        __syncthreads();
        FragA a[4];
        FragB b[4];
        for (int i = 0; i < 4; ++i) {
            wmma::load_matrix_sync(a[i], &As[16 * i][0], KSTEP);
            for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
        }
        for (int j = 0; j < 4; ++j) {
            wmma::load_matrix_sync(b[j], &Bs[0][16 * j], TILE);
            for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
        }
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        __syncthreads();
    }

    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const int row = bm + 16 * i, col = bn + 16 * j;
            if (row >= J || col >= L) continue;  // the whole warp (the whole block) skips it
            wmma::store_matrix_sync(&Cs[0][0], acc[i][j], 16, wmma::mem_row_major);
            __syncthreads();
            for (int e = lane; e < 256; e += 32) {
                int r = row + e / 16, c = col + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = Cs[e / 16][e % 16];
            }
            __syncthreads();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(32);
    dim3 dimGrid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
