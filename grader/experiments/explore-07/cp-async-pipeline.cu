// Walkthrough 07, section 7: the reference with its tiles copied global -> shared by cp.async
// (__pipeline_memcpy_async, zero fill past the edges) into STAGES buffers, one barrier per phase.
// CONV 1: each fragment rounded to TF32 after load_matrix_sync; 0: none (the tensor cores truncate).
// FDB 1: the next k-step's fragments loaded before this one's products (two sets in registers).
// HYBRID 1 (issue #45.3's candidates A and B): shapes with K or L not a multiple of 4, where every copy
// would be a 4-byte one, go to the current reference (reference-scalar-path.cuh) instead.
#ifndef HYBRID
#define HYBRID 0
#endif
#if HYBRID
#include "reference-scalar-path.cuh"
#endif
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef CONV
#define CONV 1
#endif
#ifndef PAD_A
#define PAD_A 4
#endif
#ifndef PAD_B
#define PAD_B 8
#endif
#ifndef FDB
#define FDB 0
#endif
#ifndef MINB
#define MINB 1
#endif
#define FM (WM / 16)
#define FN (WN / 16)
#define THREADS ((BM / WM) * (BN / WN) * 32)
#define LDA (BK + PAD_A)
#define LDB (BN + PAD_B)
#define STAGE_FLOATS (BM * LDA + BK * LDB)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

template <bool VEC>
__device__ __forceinline__ void copy_tile(float* dst, int ldd, const float* __restrict__ A, int rows, int cols,
                                          int r0, int c0, int tr, int tc) {
    if (VEC) {
        const int segs = tr * tc / 4;
#pragma unroll
        for (int s = threadIdx.x; s < segs; s += THREADS) {
            const int r = s / (tc / 4), c = (s % (tc / 4)) * 4;
            const bool in = r0 + r < rows && c0 + c < cols;
            const float* src = in ? &A[(size_t)(r0 + r) * cols + c0 + c] : A;
            __pipeline_memcpy_async(&dst[r * ldd + c], src, 16, in ? 0 : 16);
        }
    } else {
        for (int s = threadIdx.x; s < tr * tc; s += THREADS) {
            const int r = s / tc, c = s % tc;
            const bool in = r0 + r < rows && c0 + c < cols;
            const float* src = in ? &A[(size_t)(r0 + r) * cols + c0 + c] : A;
            __pipeline_memcpy_async(&dst[r * ldd + c], src, 4, in ? 0 : 4);
        }
    }
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS, MINB)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    extern __shared__ __align__(128) float smem[];
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int warp = threadIdx.x / 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int phases = (K + BK - 1) / BK;
    auto issue = [&](int ph) {
        if (ph < phases) {
            float* s = smem + (ph % STAGES) * STAGE_FLOATS;
            copy_tile<VEC>(s, LDA, M, J, K, bm, ph * BK, BM, BK);
            copy_tile<VEC>(s + BM * LDA, LDB, N, K, L, ph * BK, bn, BK, BN);
        }
        __pipeline_commit();
    };
    FragC acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) issue(s);
    for (int ph = 0; ph < phases; ++ph) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        issue(ph + STAGES - 1);
        const float* a_s = smem + (ph % STAGES) * STAGE_FLOATS;
        const float* b_s = a_s + BM * LDA;
        FragA a[2][FM];
        FragB b[2][FN];
        auto load_frags = [&](int kk, FragA (&fa)[FM], FragB (&fb)[FN]) {
#pragma unroll
            for (int i = 0; i < FM; ++i) {
                wmma::load_matrix_sync(fa[i], a_s + (wm + 16 * i) * LDA + kk, LDA);
#if CONV
#pragma unroll
                for (int t = 0; t < fa[i].num_elements; ++t) fa[i].x[t] = wmma::__float_to_tf32(fa[i].x[t]);
#endif
            }
#pragma unroll
            for (int j = 0; j < FN; ++j) {
                wmma::load_matrix_sync(fb[j], b_s + kk * LDB + wn + 16 * j, LDB);
#if CONV
#pragma unroll
                for (int t = 0; t < fb[j].num_elements; ++t) fb[j].x[t] = wmma::__float_to_tf32(fb[j].x[t]);
#endif
            }
        };
#if FDB
        load_frags(0, a[0], b[0]);
#endif
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            const int cur = FDB ? (kk / 8) % 2 : 0;
#if FDB
            if (kk + 8 < BK) load_frags(kk + 8, a[1 - cur], b[1 - cur]);
#else
            load_frags(kk, a[0], b[0]);
#endif
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[cur][i], b[cur][j], acc[i][j]);
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    float* stage = smem + warp * 16 * 16;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            if (row >= J || col >= L) continue;
            if (VEC && row + 16 <= J && col + 16 <= L) {
                wmma::store_matrix_sync(&P[(size_t)row * L + col], acc[i][j], L, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 16 * 16; e += 32) {
                const int r = row + e / 16, c = col + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = stage[e];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
#if HYBRID
    if (K % 4 != 0 || L % 4 != 0) {
        ref::launch_matmul(M, N, P, J, K, L);
        return;
    }
#endif
    const size_t bytes = STAGES * STAGE_FLOATS * sizeof(float);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) {
        cudaFuncSetAttribute(MatrixMulKernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        MatrixMulKernel<true><<<dimGrid, THREADS, bytes>>>(M, N, P, J, K, L);
    } else {
        cudaFuncSetAttribute(MatrixMulKernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        MatrixMulKernel<false><<<dimGrid, THREADS, bytes>>>(M, N, P, J, K, L);
    }
}
