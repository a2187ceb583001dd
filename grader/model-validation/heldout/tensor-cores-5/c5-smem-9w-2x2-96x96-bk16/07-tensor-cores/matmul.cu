// Held-out kernel c5-smem-9w-2x2-96x96-bk16 (stage 07-tensor-cores): 96x96 block tiles, 9 warps (288 threads, 3x3) of 32x32 (2x2 fragments), BK 16: 96x16 and 16x96 tiles, rows padded by 4 (ldm 20 and 100), filled by scalar zero-filled loads by strided loops (5 or 6 of each tile per thread, consecutive threads on consecutive columns) rounded to TF32 as they are stored, whatever K and L; one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4, tested in the kernel), the others through a per-warp 16x16 scratch array of their own.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-5/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// A[r][c .. c+3] as a float4, 0 outside A: one 16-byte load when VEC (K and L multiples of 4), else
// element by element.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* __restrict__ A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows) return v;
    const float* p = A + (size_t)r * cols;
    if (VEC) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c + 0 < cols) v.x = p[c + 0];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

__device__ __forceinline__ float4 tf32x4(float4 v) {
    return make_float4(wmma::__float_to_tf32(v.x), wmma::__float_to_tf32(v.y), wmma::__float_to_tf32(v.z),
                       wmma::__float_to_tf32(v.w));
}

// Stores one accumulator fragment whose top-left corner is (row, col) of P: straight to P when
// allowed and the fragment lies wholly inside P, else through the warp's 16x16 scratch, element by
// element with bounds tests.
__device__ __forceinline__ void store_frag(const FragC& acc, float* P, int J, int L, int row, int col,
                                           bool direct, float* scratch, int lane) {
    if (row >= J || col >= L) return;   // the same for the whole warp
    if (direct && row + 16 <= J && col + 16 <= L) {
        wmma::store_matrix_sync(&P[(size_t)row * L + col], acc, L, wmma::mem_row_major);
        return;
    }
    wmma::store_matrix_sync(scratch, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        int r = row + e / 16, c = col + e % 16;
        if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
    }
    __syncwarp();
}

#define BM 96
#define BN 96
#define BK 16
#define THREADS 288   // 9 warps, 3x3, each 32x32 (2x2 fragments)
#define PAD 4

// 96x96 block tiles (a width that is not a power of 2), 9 warps (288 threads, 3x3) of 32x32 (2x2
// fragments), BK 16: 96x16 and 16x96 tiles, rows padded by 4 (ldm 20 and 100), filled by scalar
// zero-filled loads by strided loops (1536 elements of each tile, 5 or 6 per thread, consecutive
// threads on consecutive columns) rounded to TF32 as they are stored, whatever K and L; one buffer,
// two barriers per phase, no prefetch; fragments inside P stored straight to it when L is a
// multiple of 4 (tested in the kernel), the others through a per-warp scratch array of their own.
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[BM][BK + PAD];
    __shared__ __align__(128) float Bs[BK][BN + PAD];
    __shared__ __align__(128) float scratch[THREADS / 32][256];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 3) * 32, wn = (warp % 3) * 32;

    FragC acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = t; e < BM * BK; e += THREADS) {
            int r = e / BK, c = e % BK;
            int gr = bm + r, gc = k0 + c;
            As[r][c] = wmma::__float_to_tf32((gr < J && gc < K) ? M[(size_t)gr * K + gc] : 0.0f);
        }
        for (int e = t; e < BK * BN; e += THREADS) {
            int r = e / BN, c = e % BN;
            int gr = k0 + r, gc = bn + c;
            Bs[r][c] = wmma::__float_to_tf32((gr < K && gc < L) ? N[(size_t)gr * L + gc] : 0.0f);
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a[2];
            FragB b[2];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], BK + PAD);
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], BN + PAD);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    const bool direct = (L % 4) == 0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            store_frag(acc[i][j], P, J, L, bm + wm + 16 * i, bn + wn + 16 * j, direct, scratch[warp], lane);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
