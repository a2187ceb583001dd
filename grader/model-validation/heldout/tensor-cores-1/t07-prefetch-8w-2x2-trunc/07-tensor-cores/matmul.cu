// Held-out kernel t07-prefetch-8w-2x2-trunc (stage 07-tensor-cores): 128x64 block tiles, 8 warps (4 down, 2 across) of 32x32 (2x2 fragments), BK 16: 128x16 and 16x64 tiles, rows padded by 8, one shared buffer with register prefetching (the next phase's 3 float4 per thread loaded after the first barrier, before the products; two barriers per phase); no TF32 conversion anywhere (the tensor cores truncate); fragments inside P stored straight to it when K and L are multiples of 4 and P 32-byte aligned, the others through a per-warp scratch in the tiles' memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

#define BM 128
#define BN 64
#define BK 16
#define NT 256     // 8 warps: 4 x 2, each 32 x 32
#define PADA 8     // As rows of 24 floats
#define PADB 8     // Bs rows of 72 floats

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

template <bool VEC>
__device__ __forceinline__ float4 ld4(const float* A, int rows, int cols, int r, int c) {
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
    return v;
}

// VEC: K and L multiples of 4 (16-byte loads) and P 32-byte aligned (fragments stored straight to P).
template <bool VEC>
__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[BM][BK + PADA];
    __shared__ __align__(128) float Bs[BK][BN + PADB];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    // This thread's segments: two of the M tile (4 per row), one of the N tile (16 per row).
    const int ar0 = tid / 4, ar1 = (tid + NT) / 4, ac = (tid % 4) * 4;
    const int br = tid / 16, bc = (tid % 16) * 4;

    FragC acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    float4 ra0 = ld4<VEC>(M, J, K, bm + ar0, ac);
    float4 ra1 = ld4<VEC>(M, J, K, bm + ar1, ac);
    float4 rb = ld4<VEC>(N, K, L, br, bn + bc);
    for (int k0 = 0; k0 < K; k0 += BK) {
        *reinterpret_cast<float4*>(&As[ar0][ac]) = ra0;
        *reinterpret_cast<float4*>(&As[ar1][ac]) = ra1;
        *reinterpret_cast<float4*>(&Bs[br][bc]) = rb;
        __syncthreads();
        if (k0 + BK < K) {  // the next phase's loads, in flight during the products
            ra0 = ld4<VEC>(M, J, K, bm + ar0, k0 + BK + ac);
            ra1 = ld4<VEC>(M, J, K, bm + ar1, k0 + BK + ac);
            rb = ld4<VEC>(N, K, L, k0 + BK + br, bn + bc);
        }
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a[2];
            FragB b[2];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], BK + PADA);
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], BN + PADB);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    float* scratch = &As[0][0] + warp * 256;  // free after the loop's last barrier
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            const bool whole = VEC && row + 16 <= J && col + 16 <= L;
            const bool part = !whole && row < J && col < L;
            if (whole) wmma::store_matrix_sync(&P[(size_t)row * L + col], acc[i][j], L, wmma::mem_row_major);
            if (part) wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
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
    if (K % 4 == 0 && L % 4 == 0 && reinterpret_cast<uintptr_t>(P) % 32 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
