// Held-out kernel t07-gdirect-4w-2x2-trunc (stage 07-tensor-cores): 64x64 block tiles, 4 warps (2x2) of 2x2 fragments; a block whose tile lies inside P (K and L multiples of 4, pointers 32-byte aligned) loads its fragments straight from global memory for every whole k-step of 8, the rest (every k-step of an edge block, the last partial one of an inside block) staged through zero-padded 64x8 and 8x64 shared tiles (rows padded by 4) with two barriers; no TF32 conversion (the tensor cores truncate); inside blocks store straight to P, edge blocks per fragment, through a per-warp scratch where it crosses P's edge.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

#define BT 64       // block tile: 64 x 64 of P
#define WT 32       // warp tile: 32 x 32, 2 x 2 fragments
#define SK 8        // depth of a staged k-step
#define PADS 4

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// Fragments from global memory where the whole block is inside the matrices; shared memory only where
// it is not. The floats go to the tensor cores as they are: the hardware keeps their top 19 bits
// (TF32 truncated), which the stage's rule accepts.
template <bool VEC>
__global__ void __launch_bounds__(128)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[BT][SK + PADS];
    __shared__ __align__(128) float Bs[SK][BT + PADS];
    __shared__ __align__(128) float Cs[4][16 * 16];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BT, bn = blockIdx.x * BT;
    const int wm = (warp / 2) * WT, wn = (warp % 2) * WT;
    const bool interior = VEC && bm + BT <= J && bn + BT <= L;  // the same for the whole block

    FragC acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    FragA a[2];
    FragB b[2];

    int k = 0;
    if (interior) {
        for (; k + 8 <= K; k += 8) {
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(a[i], M + (size_t)(bm + wm + 16 * i) * K + k, K);
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(b[j], N + (size_t)k * L + bn + wn + 16 * j, L);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }
    // What is left: all of K for an edge block, the last k-step (K % 8 == 4) for an inside one.
    for (; k < K; k += 8) {
        for (int e = tid; e < BT * SK; e += 128) {
            int r = e / SK, c = e % SK;
            As[r][c] = (bm + r < J && k + c < K) ? M[(size_t)(bm + r) * K + k + c] : 0.0f;
            int kr = e / BT, cc = e % BT;
            Bs[kr][cc] = (k + kr < K && bn + cc < L) ? N[(size_t)(k + kr) * L + bn + cc] : 0.0f;
        }
        __syncthreads();
        for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][0], SK + PADS);
        for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[0][wn + 16 * j], BT + PADS);
        __syncthreads();  // the tiles are in the fragments: the next k-step may overwrite them
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }

    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            if (interior) {
                wmma::store_matrix_sync(P + (size_t)row * L + col, acc[i][j], L, wmma::mem_row_major);
                continue;
            }
            // An edge block: every warp passes the same barriers, whatever its fragment needs.
            const bool whole = VEC && row + 16 <= J && col + 16 <= L;
            const bool part = !whole && row < J && col < L;
            if (whole) wmma::store_matrix_sync(P + (size_t)row * L + col, acc[i][j], L, wmma::mem_row_major);
            else if (part) wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncthreads();
            if (part)
                for (int e = lane; e < 256; e += 32) {
                    int r = row + e / 16, c = col + e % 16;
                    if (r < J && c < L) P[(size_t)r * L + c] = Cs[warp][e];
                }
            __syncthreads();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(128);
    dim3 dimGrid((L + BT - 1) / BT, (J + BT - 1) / BT);
    bool aligned = ((uintptr_t)M | (uintptr_t)N | (uintptr_t)P) % 32 == 0;
    if (K % 4 == 0 && L % 4 == 0 && aligned)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
