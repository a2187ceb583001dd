// Held-out kernel t07-smem-8w-2x4-bk32 (stage 07-tensor-cores): 128x128 block tiles, 8 warps (4 down, 2 across) of 32x64 (2x4 fragments), BK 32 (four k-steps of 8 per phase): 128x32 and 32x128 tiles in shared memory, rows padded by 4, float4 global loads (4 of each tile per thread) rounded to TF32 as they are stored; one buffer, two barriers per phase; fragments inside P stored straight to it (L a multiple of 4, P 32-byte aligned), the others through a per-warp scratch in the tiles' memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define WM 32        // 2 fragments down
#define WN 64        // 4 fragments across
#define NT 256       // 8 warps: (BM / WM) x (BN / WN) = 4 x 2
#define PAD 4

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// Four elements of row r of a rows x cols matrix from column c on, zero outside it, rounded to TF32.
template <bool VEC>
__device__ __forceinline__ float4 get4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        const float* p = A + (size_t)r * cols + c;
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(p);
        } else {
            if (c < cols) v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    v.x = wmma::__float_to_tf32(v.x);
    v.y = wmma::__float_to_tf32(v.y);
    v.z = wmma::__float_to_tf32(v.z);
    v.w = wmma::__float_to_tf32(v.w);
    return v;
}

template <bool VEC>
__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L, bool direct) {
    __shared__ __align__(128) float As[BM][BK + PAD];
    __shared__ __align__(128) float Bs[BK][BN + PAD];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;

    FragC acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            int s = tid + l * NT;
            int ra = s / (BK / 4), ca = (s % (BK / 4)) * 4;
            *reinterpret_cast<float4*>(&As[ra][ca]) = get4<VEC>(M, J, K, bm + ra, k0 + ca);
            int rb = s / (BN / 4), cb = (s % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[rb][cb]) = get4<VEC>(N, K, L, k0 + rb, bn + cb);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a[2];
            FragB b[4];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], BK + PAD);
#pragma unroll
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], BN + PAD);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    // The last barrier of the loop: the tiles are free, and each warp takes 16 x 16 of As as scratch.
    float* scratch = &As[0][0] + warp * 256;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            const bool whole = direct && row + 16 <= J && col + 16 <= L;
            const bool part = !whole && row < J && col < L;
            if (whole) wmma::store_matrix_sync(P + (size_t)row * L + col, acc[i][j], L, wmma::mem_row_major);
            else if (part) wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncthreads();
            if (part)
                for (int e = lane; e < 256; e += 32) {
                    int r = row + e / 16, c = col + e % 16;
                    if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
                }
            __syncthreads();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(NT);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    const bool direct = L % 4 == 0 && reinterpret_cast<uintptr_t>(P) % 32 == 0;  // store_matrix_sync's rules
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L, direct);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L, direct);
}
