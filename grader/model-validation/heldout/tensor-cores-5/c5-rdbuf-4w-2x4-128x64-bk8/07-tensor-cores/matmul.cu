// Held-out kernel c5-rdbuf-4w-2x4-128x64-bk8 (stage 07-tensor-cores): 128x64 block tiles, 4 warps (stacked) of 32x64 (2x4 fragments), BK 8 (one k-step per phase): 128x8 and 8x64 tiles, rows padded by 4, double-buffered through registers (2 float4 of the M tile and 1 of the N tile per thread loaded before the current buffer is multiplied, rounded to TF32 and stored into the other after; one barrier per phase; element by element with zero fill when K or L is not a multiple of 4); fragments inside P stored straight to it (K and L multiples of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
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

#define BM 128
#define BN 64
#define BK 8
#define THREADS 128   // 4 warps stacked, each 32x64 (2x4 fragments)
#define PAD 4

// 128x64 block tiles, 4 warps (stacked) of 32x64 (2x4 fragments), BK 8 (one k-step per phase):
// 128x8 and 8x64 tiles, rows padded by 4, double-buffered through registers (2 float4 of the M tile
// and 1 of the N tile per thread loaded before the current buffer is multiplied, rounded to TF32
// and stored into the other buffer after; one barrier per phase; element by element with zero fill
// when K or L is not a multiple of 4).
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[2][BM][BK + PAD];
    __shared__ __align__(128) float Bs[2][BK][BN + PAD];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = warp * 32;

    FragC acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // Segment s of the M tile: row s / 2, columns (s % 2) * 4 ..; of the N tile: row t / 16, columns (t % 16) * 4 ..
    float4 ra[2], rb;
    ra[0] = load4<VEC>(M, J, K, bm + t / 2, (t % 2) * 4);
    ra[1] = load4<VEC>(M, J, K, bm + (t + THREADS) / 2, ((t + THREADS) % 2) * 4);
    rb = load4<VEC>(N, K, L, t / 16, bn + (t % 16) * 4);
    *reinterpret_cast<float4*>(&As[0][t / 2][(t % 2) * 4]) = tf32x4(ra[0]);
    *reinterpret_cast<float4*>(&As[0][(t + THREADS) / 2][((t + THREADS) % 2) * 4]) = tf32x4(ra[1]);
    *reinterpret_cast<float4*>(&Bs[0][t / 16][(t % 16) * 4]) = tf32x4(rb);
    __syncthreads();

    const int phases = (K + BK - 1) / BK;
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph & 1;
        const bool more = ph + 1 < phases;
        if (more) {
            const int k0 = (ph + 1) * BK;
            ra[0] = load4<VEC>(M, J, K, bm + t / 2, k0 + (t % 2) * 4);
            ra[1] = load4<VEC>(M, J, K, bm + (t + THREADS) / 2, k0 + ((t + THREADS) % 2) * 4);
            rb = load4<VEC>(N, K, L, k0 + t / 16, bn + (t % 16) * 4);
        }
        FragA a[2];
        FragB b[4];
#pragma unroll
        for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[cur][wm + 16 * i][0], BK + PAD);
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[cur][0][16 * j], BN + PAD);
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        if (more) {
            *reinterpret_cast<float4*>(&As[1 - cur][t / 2][(t % 2) * 4]) = tf32x4(ra[0]);
            *reinterpret_cast<float4*>(&As[1 - cur][(t + THREADS) / 2][((t + THREADS) % 2) * 4]) = tf32x4(ra[1]);
            *reinterpret_cast<float4*>(&Bs[1 - cur][t / 16][(t % 16) * 4]) = tf32x4(rb);
        }
        __syncthreads();
    }

    float* scratch = &As[0][0][0] + warp * 256;   // free after the loop's last barrier
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            store_frag(acc[i][j], P, J, L, bm + wm + 16 * i, bn + 16 * j, VEC, scratch, lane);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
