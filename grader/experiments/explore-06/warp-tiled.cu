// Stage 06-register-tiled: toward cuBLAS with FP32 CUDA cores only.
//
// P = M N with M J x K, N K x L, P J x L, row-major float, any sizes >= 1. Each block computes a
// BM x BN tile of P; each of its 256 threads computes TM x TN = 8 x 8 elements held in registers
// (2-D register blocking), so every value loaded from shared memory feeds 8 multiply-adds instead
// of one. Tiles of M and N travel from global memory in 16-byte vectors, the M tile is stored
// transposed so a thread reads its 8 M values as two float4, and the next tiles are loaded into
// registers while the current ones are used (double buffering, one barrier per step).
#include <cuda_runtime.h>

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WTR
#define WTR 4
#endif
#define WTC (32 / WTR)
#define WM (WTR * TM)
#define WN (WTC * TN)
#define WARPS_N (BN / WN)
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#define THREADS 256  // (BM / TM) * (BN / TN)

#define LOADS_M (BM * BK / 4 / THREADS)  // float4 loads per thread per phase, M tile
#define LOADS_N (BK * BN / 4 / THREADS)  // and N tile

// One phase's share of the tiles in registers: LOADS_M row segments of 4 elements of M, LOADS_N of N.
struct Fragment {
    float4 m[LOADS_M], n[LOADS_N];
};

// Load l of this thread: element offset (row, col) of a 4-wide segment in a tile with `cols` columns.
__device__ __forceinline__ int seg_row(int l, int cols) { return (threadIdx.x + l * THREADS) / (cols / 4); }
__device__ __forceinline__ int seg_col(int l, int cols) { return ((threadIdx.x + l * THREADS) % (cols / 4)) * 4; }

#ifdef MROWS
// M segments by rows: a warp's 32 threads take 32 consecutive rows at one k, so the transposed
// scalar stores into Mds[k][row] hit 32 different banks.
__device__ __forceinline__ int mrow(int l) { return (threadIdx.x + l * THREADS) % BM; }
__device__ __forceinline__ int mcol(int l) { return (threadIdx.x + l * THREADS) / BM * 4; }
#else
__device__ __forceinline__ int mrow(int l) { return seg_row(l, BK); }
__device__ __forceinline__ int mcol(int l) { return seg_col(l, BK); }
#endif
#ifndef MINB
#define MINB 2
#endif
// Four elements of row r of a rows x cols matrix A from column c on, as one 16-byte load when
// they are all in range and aligned (vec), element by element otherwise; 0 outside A.
__device__ __forceinline__ float4 load4(const float* __restrict__ A, int rows, int cols, int r, int c, bool vec) {
    // BEGIN SOLUTION: return A[r][c .. c+3] as a float4: one vector load when vec and all four lie inside A, else element by element with 0.0f outside
    if (vec && r < rows && c + 3 < cols) return *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);
    float4 v;
    v.x = (r < rows && c + 0 < cols) ? A[(size_t)r * cols + c + 0] : 0.0f;
    v.y = (r < rows && c + 1 < cols) ? A[(size_t)r * cols + c + 1] : 0.0f;
    v.z = (r < rows && c + 2 < cols) ? A[(size_t)r * cols + c + 2] : 0.0f;
    v.w = (r < rows && c + 3 < cols) ? A[(size_t)r * cols + c + 3] : 0.0f;
    return v;
    // STARTER: return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    // END SOLUTION
}

// This thread's share of the phase starting at k0. vec: rows are 16-byte aligned (K and L are
// multiples of 4), so whole vectors may be read.
__device__ __forceinline__ Fragment load_phase(const float* __restrict__ M, const float* __restrict__ N,
                                               int J, int K, int L, int bm, int bn, int k0, bool vec) {
    Fragment f;
#pragma unroll
    for (int l = 0; l < LOADS_M; ++l) f.m[l] = load4(M, J, K, bm + mrow(l), k0 + mcol(l), vec);
#pragma unroll
    for (int l = 0; l < LOADS_N; ++l) f.n[l] = load4(N, K, L, k0 + seg_row(l, BN), bn + seg_col(l, BN), vec);
    return f;
}

// Stores a fragment into shared memory: M transposed (Mds[k][row]) so the compute loop reads a
// column of the M tile as contiguous float4s; N as it is (Nds[k][col]).
__device__ __forceinline__ void store_phase(const Fragment& f, float (*Mds)[BM], float (*Nds)[BN]) {
    // BEGIN SOLUTION: store the fragment: each M segment transposed into Mds[k][row] (4 stores), each N segment as one float4 into Nds[k][col]
#pragma unroll
    for (int l = 0; l < LOADS_M; ++l) {
        const int r = mrow(l), c = mcol(l);
        Mds[c + 0][r] = f.m[l].x;
        Mds[c + 1][r] = f.m[l].y;
        Mds[c + 2][r] = f.m[l].z;
        Mds[c + 3][r] = f.m[l].w;
    }
#pragma unroll
    for (int l = 0; l < LOADS_N; ++l)
        *reinterpret_cast<float4*>(&Nds[seg_row(l, BN)][seg_col(l, BN)]) = f.n[l];
    // STARTER: (void)f; (void)Mds; (void)Nds;
    // END SOLUTION
}



#define SMS (TM / 4)   // 4-row strips per thread
#define SNS (TN / 4)   // 4-column strips per thread
__global__ void __launch_bounds__(THREADS, MINB)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    __shared__ __align__(16) float Mds[2][BK][BM];
    __shared__ __align__(16) float Nds[2][BK][BN];
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = (warp / WARPS_N) * WM, wc = (warp % WARPS_N) * WN;
    const int r0 = wr + (lane / WTC) * 4, c0 = wc + (lane % WTC) * 4;
    const bool vec = (K % 4 == 0) && (L % 4 == 0);
    float acc[TM][TN] = {};
    store_phase(load_phase(M, N, J, K, L, bm, bn, 0, vec), Mds[0], Nds[0]);
    __syncthreads();
    const int phases = (K + BK - 1) / BK;
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph % 2;
        Fragment next;
        if (ph + 1 < phases) next = load_phase(M, N, J, K, L, bm, bn, (ph + 1) * BK, vec);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int s = 0; s < SMS; ++s)
                *reinterpret_cast<float4*>(&a[4 * s]) = *reinterpret_cast<const float4*>(&Mds[cur][k][r0 + s * (WM / SMS)]);
#pragma unroll
            for (int s = 0; s < SNS; ++s)
                *reinterpret_cast<float4*>(&b[4 * s]) = *reinterpret_cast<const float4*>(&Nds[cur][k][c0 + s * (WN / SNS)]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        if (ph + 1 < phases) store_phase(next, Mds[1 - cur], Nds[1 - cur]);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + r0 + (i / 4) * (WM / SMS) + i % 4;
        if (row >= J) continue;
#pragma unroll
        for (int s = 0; s < SNS; ++s) {
            const int col = bn + c0 + s * (WN / SNS);
            const float* v = &acc[i][s * 4];
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
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
