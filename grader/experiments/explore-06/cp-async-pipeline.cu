// 06 with cp.async multistage pipeline (exploration).
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#define BM 128
#define BN 128
#ifndef BK
#define BK 16
#endif
#ifndef STAGES
#define STAGES 3
#endif
#define TM 8
#define TN 8
#define THREADS 256
#define MPAD 4
#ifndef WTR
#define WTR 2
#endif
#define WTC (32 / WTR)
#define WM (WTR * TM)
#define WN (WTC * TN)
#define WARPS_N (BN / WN)

// Issue the copies of phase k0's tiles into one stage: M element by element, transposed into
// Mds[k][row] (rows padded by MPAD so the 16 k of one row fall in different banks); N in 16-byte
// segments where aligned and inside N, element by element otherwise. Outside a matrix: zeros.
__device__ __forceinline__ void issue_phase(const float* __restrict__ M, const float* __restrict__ N,
                                            int J, int K, int L, int bm, int bn, int k0, bool vec,
                                            float (*Mds)[BM + MPAD], float (*Nds)[BN]) {
#pragma unroll
    for (int i = 0; i < BM * BK / THREADS; ++i) {
        const int e = threadIdx.x + i * THREADS, r = e / BK, k = e % BK;
        const bool in = bm + r < J && k0 + k < K;
        __pipeline_memcpy_async(&Mds[k][r], in ? &M[(size_t)(bm + r) * K + k0 + k] : M, 4, in ? 0 : 4);
    }
#pragma unroll
    for (int i = 0; i < BK * BN / 4 / THREADS; ++i) {
        const int s = threadIdx.x + i * THREADS, k = s / (BN / 4), c = (s % (BN / 4)) * 4;
        const int gk = k0 + k, gc = bn + c;
        if (vec && gk < K && gc + 3 < L) {
            __pipeline_memcpy_async(&Nds[k][c], &N[(size_t)gk * L + gc], 16);
        } else {
            for (int j = 0; j < 4; ++j) {
                const bool in = gk < K && gc + j < L;
                __pipeline_memcpy_async(&Nds[k][c + j], in ? &N[(size_t)gk * L + gc + j] : N, 4, in ? 0 : 4);
            }
        }
    }
}

__global__ void __launch_bounds__(THREADS, 2)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    extern __shared__ __align__(16) float smem[];
    float (*Mds)[BK][BM + MPAD] = reinterpret_cast<float (*)[BK][BM + MPAD]>(smem);
    float (*Nds)[BK][BN] = reinterpret_cast<float (*)[BK][BN]>(smem + STAGES * BK * (BM + MPAD));
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = (warp / WARPS_N) * WM, wc = (warp % WARPS_N) * WN;
    const int r0 = wr + (lane / WTC) * 4, c0 = wc + (lane % WTC) * 4;
    const bool vec = (K % 4 == 0) && (L % 4 == 0);
    float acc[TM][TN] = {};
    const int phases = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < phases) issue_phase(M, N, J, K, L, bm, bn, s * BK, vec, Mds[s], Nds[s]);
        __pipeline_commit();
    }
    for (int ph = 0; ph < phases; ++ph) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        const int nxt = ph + STAGES - 1;
        if (nxt < phases) issue_phase(M, N, J, K, L, bm, bn, nxt * BK, vec, Mds[nxt % STAGES], Nds[nxt % STAGES]);
        __pipeline_commit();
        const int cur = ph % STAGES;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Mds[cur][k][r0]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Mds[cur][k][r0 + WM / 2]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Nds[cur][k][c0]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Nds[cur][k][c0 + WN / 2]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + r0 + (i < 4 ? i : WM / 2 + i - 4);
        if (row >= J) continue;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int col = bn + c0 + half * (WN / 2);
            const float* v = &acc[i][half * 4];
            if (vec && col + 3 < L) {
                *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = v[j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    const int bytes = STAGES * BK * (BM + MPAD + BN) * sizeof(float);
    cudaFuncSetAttribute(MatrixMulKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    MatrixMulKernel<<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
}
