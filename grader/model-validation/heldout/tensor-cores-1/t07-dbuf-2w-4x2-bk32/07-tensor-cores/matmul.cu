// Held-out kernel t07-dbuf-2w-4x2-bk32 (stage 07-tensor-cores): 64x64 block tiles, 2 warps (64 threads, side by side) of 64x32 (4x2 fragments), BK 32: 64x32 and 32x64 tiles, rows padded by 4, double-buffered through registers (8 float4 of each tile per thread loaded before the current buffer is multiplied, stored into the other after; one barrier per phase), stored unconverted and rounded to TF32 in each fragment after load_matrix_sync; every fragment stored to P through a per-warp scratch in the tiles' memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define WN 32        // each warp: all 64 rows, 32 columns: 4 x 2 fragments
#define NT 64        // 2 warps
#define PAD 4
#define SEGS_A (BM * BK / 4 / NT)   // 8 float4 per thread
#define SEGS_B (BK * BN / 4 / NT)   // 8

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

struct Regs {
    float4 a[SEGS_A], b[SEGS_B];
};

template <bool VEC>
__device__ __forceinline__ float4 fetch4(const float* A, int rows, int cols, int r, int c) {
    if (r >= rows) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float* p = A + (size_t)r * cols + c;
    if (VEC) return c < cols ? *reinterpret_cast<const float4*>(p) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return make_float4(c < cols ? p[0] : 0.0f, c + 1 < cols ? p[1] : 0.0f, c + 2 < cols ? p[2] : 0.0f,
                       c + 3 < cols ? p[3] : 0.0f);
}

template <bool VEC>
__device__ __forceinline__ void fetch(Regs& g, const float* M, const float* N, int J, int K, int L, int bm, int bn, int k0) {
#pragma unroll
    for (int l = 0; l < SEGS_A; ++l) {
        int s = threadIdx.x + l * NT;
        g.a[l] = fetch4<VEC>(M, J, K, bm + s / (BK / 4), k0 + (s % (BK / 4)) * 4);
    }
#pragma unroll
    for (int l = 0; l < SEGS_B; ++l) {
        int s = threadIdx.x + l * NT;
        g.b[l] = fetch4<VEC>(N, K, L, k0 + s / (BN / 4), bn + (s % (BN / 4)) * 4);
    }
}

__device__ __forceinline__ void put(const Regs& g, float (*As)[BK + PAD], float (*Bs)[BN + PAD]) {
#pragma unroll
    for (int l = 0; l < SEGS_A; ++l) {
        int s = threadIdx.x + l * NT;
        *reinterpret_cast<float4*>(&As[s / (BK / 4)][(s % (BK / 4)) * 4]) = g.a[l];
    }
#pragma unroll
    for (int l = 0; l < SEGS_B; ++l) {
        int s = threadIdx.x + l * NT;
        *reinterpret_cast<float4*>(&Bs[s / (BN / 4)][(s % (BN / 4)) * 4]) = g.b[l];
    }
}

template <bool VEC>
__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[2][BM][BK + PAD];
    __shared__ __align__(128) float Bs[2][BK][BN + PAD];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wn = warp * WN;

    FragC acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    Regs g;
    fetch<VEC>(g, M, N, J, K, L, bm, bn, 0);
    put(g, As[0], Bs[0]);
    __syncthreads();
    const int phases = (K + BK - 1) / BK;
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph & 1;
        const bool more = ph + 1 < phases;
        if (more) fetch<VEC>(g, M, N, J, K, L, bm, bn, (ph + 1) * BK);
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a[4];
            FragB b[2];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                wmma::load_matrix_sync(a[i], &As[cur][16 * i][kk], BK + PAD);
#pragma unroll
                for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
            }
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                wmma::load_matrix_sync(b[j], &Bs[cur][kk][wn + 16 * j], BN + PAD);
#pragma unroll
                for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (more) put(g, As[cur ^ 1], Bs[cur ^ 1]);  // read last in the previous phase, before its barrier
        __syncthreads();
    }

    // Every fragment through shared memory: each warp's 16 x 16 scratch is a piece of As, free after
    // the last barrier of the loop.
    float* scratch = &As[0][0][0] + warp * 256;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = bm + 16 * i, col = bn + wn + 16 * j;
            const bool inside = row < J && col < L;
            if (inside) wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncthreads();
            if (inside)
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
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
