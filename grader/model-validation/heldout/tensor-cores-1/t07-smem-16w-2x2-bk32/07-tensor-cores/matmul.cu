// Held-out kernel t07-smem-16w-2x2-bk32 (stage 07-tensor-cores): 128x128 block tiles, 16 warps (512 threads, 4x4) of 32x32 (2x2 fragments), BK 32: 128x32 and 32x128 tiles in unpadded shared memory, filled by scalar __ldg loads (8 of each tile per thread, a warp reading one row of the M tile or a quarter row of the N tile) rounded to TF32 as they are stored; one buffer, two barriers per phase; fragments inside P stored straight to it (L a multiple of 4, P 32-byte aligned), the others through a per-warp scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define NT 512    // 16 warps: 4 x 4, each 32 x 32

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K,
                int L, bool direct) {
    __shared__ __align__(128) float As[BM][BK];
    __shared__ __align__(128) float Bs[BK][BN];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 4) * 32, wn = (warp % 4) * 32;

    FragC acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < BM * BK / NT; ++l) {
            const int e = tid + l * NT;
            const int r = e / BK, c = e % BK;
            const float v = (bm + r < J && k0 + c < K) ? __ldg(&M[(size_t)(bm + r) * K + k0 + c]) : 0.0f;
            As[r][c] = wmma::__float_to_tf32(v);
        }
#pragma unroll
        for (int l = 0; l < BK * BN / NT; ++l) {
            const int e = tid + l * NT;
            const int r = e / BN, c = e % BN;
            const float v = (k0 + r < K && bn + c < L) ? __ldg(&N[(size_t)(k0 + r) * L + bn + c]) : 0.0f;
            Bs[r][c] = wmma::__float_to_tf32(v);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a[2];
            FragB b[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], BK);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], BN);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    float* scratch = &As[0][0] + warp * 256;  // 16 warps x 256 floats: all of As, free after the last barrier
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            const bool whole = direct && row + 16 <= J && col + 16 <= L;
            const bool part = !whole && row < J && col < L;
            if (whole) wmma::store_matrix_sync(&P[(size_t)row * L + col], acc[i][j], L, wmma::mem_row_major);
            else if (part) wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncthreads();
            if (part)
                for (int e = lane; e < 256; e += 32) {
                    const int r = row + e / 16, c = col + e % 16;
                    if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
                }
            __syncthreads();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(NT);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    const bool direct = L % 4 == 0 && reinterpret_cast<uintptr_t>(P) % 32 == 0;
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L, direct);
}
