// Held-out kernel t07-dbuf-16w-1x1-bk16 (stage 07-tensor-cores): 64x64 block tiles, 16 warps (512 threads, 4x4) of one fragment each, BK 16: 64x16 and 16x64 tiles, rows padded by 4, double-buffered in shared memory (the next phase's scalar zero-filled loads, rounded to TF32, stored straight into the other buffer before the current one is multiplied; one barrier per phase); fragments inside P stored straight to it (L a multiple of 4, P 32-byte aligned), edge ones through a per-warp scratch array after one barrier.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

#define BT 64        // block tile 64 x 64
#define BK 16
#define PAD 4
#define NWARPS 16    // 4 x 4 warps, one 16 x 16 fragment each
#define NT (NWARPS * 32)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// The tiles of the phase starting at k0, zero outside M and N, rounded to TF32: 2 elements of each per thread.
__device__ __forceinline__ void load_tiles(float (*As)[BK + PAD], float (*Bs)[BT + PAD], const float* M,
                                           const float* N, int J, int K, int L, int bm, int bn, int k0) {
    for (int e = threadIdx.x; e < BT * BK; e += NT) {
        int r = e / BK, c = e % BK;
        float v = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
        As[r][c] = wmma::__float_to_tf32(v);
        int kr = e / BT, cc = e % BT;
        float w = (k0 + kr < K && bn + cc < L) ? N[(size_t)(k0 + kr) * L + bn + cc] : 0.0f;
        Bs[kr][cc] = wmma::__float_to_tf32(w);
    }
}

__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L, bool direct) {
    __shared__ __align__(128) float As[2][BT][BK + PAD];
    __shared__ __align__(128) float Bs[2][BK][BT + PAD];
    __shared__ __align__(128) float Cs[NWARPS][16 * 16];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int bm = blockIdx.y * BT, bn = blockIdx.x * BT;
    const int wr = (warp / 4) * 16, wc = (warp % 4) * 16;

    FragC acc;
    wmma::fill_fragment(acc, 0.0f);

    const int phases = (K + BK - 1) / BK;
    load_tiles(As[0], Bs[0], M, N, J, K, L, bm, bn, 0);
    __syncthreads();
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph & 1;
        // The other buffer was last read in the previous phase, before its barrier.
        if (ph + 1 < phases) load_tiles(As[cur ^ 1], Bs[cur ^ 1], M, N, J, K, L, bm, bn, (ph + 1) * BK);
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a;
            FragB b;
            wmma::load_matrix_sync(a, &As[cur][wr][kk], BK + PAD);
            wmma::load_matrix_sync(b, &Bs[cur][kk][wc], BT + PAD);
            wmma::mma_sync(acc, a, b, acc);
        }
        __syncthreads();
    }

    const int row = bm + wr, col = bn + wc;
    const bool whole = direct && row + 16 <= J && col + 16 <= L;
    const bool part = !whole && row < J && col < L;
    if (whole) wmma::store_matrix_sync(P + (size_t)row * L + col, acc, L, wmma::mem_row_major);
    else if (part) wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
    __syncthreads();
    if (part)
        for (int e = lane; e < 256; e += 32) {
            int r = row + e / 16, c = col + e % 16;
            if (r < J && c < L) P[(size_t)r * L + c] = Cs[warp][e];
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(NT);
    dim3 dimGrid((L + BT - 1) / BT, (J + BT - 1) / BT);
    bool direct = L % 4 == 0 && (uintptr_t)P % 32 == 0;
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L, direct);
}
