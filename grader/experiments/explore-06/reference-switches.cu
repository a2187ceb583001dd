// 06 explorer, second round (walkthrough 06, section 6b; run-reference-switches.sh builds the table's rows). The
// reference's design with each change behind a macro:
//   VEC kernel chosen on the host (always): predicated vector loads, no branch in the phase loop
//   FRAG2=1   step k+1's values read from shared memory while step k is multiplied
//   PAD=4     Mds rows padded, so the transposed stores spread over the banks
//   LAYOUT=1  a warp as 8 x 4 threads, lanes n, n^1 on one column strip and n, n^2 on one row strip
//   ORDER     the outer product's order: 0 rows of 8; 1 2 x 2 blocks by rows; 2 2 x 2 blocks by
//             columns, snaking; 3 by 4 x 4 quadrants; 9 generic (BI x BJ blocks, OC columns
//             outer, SNK snaking, IC inside a block by columns)
//   PEEL      the last phase after the loop, so the loop has no test; PTR also tile pointers once
//   BM BN BK TM TN MINB: the tiles and __launch_bounds__'s blocks per SM
#include <cuda_runtime.h>

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef MINB
#define MINB 2
#endif
#ifndef PAD
#define PAD 4
#endif
#ifndef FRAG2
#define FRAG2 1
#endif
#ifndef LAYOUT
#define LAYOUT 1
#endif
#define THREADS ((BM / TM) * (BN / TN))
#define TX (BN / TN)  // threads along a row of the tile
#define LOADS_M (BM * BK / 4 / THREADS)
#define LOADS_N (BK * BN / 4 / THREADS)
#define SM (TM / 4)  // 4-row strips per thread, BM / SM rows apart
#define SN (TN / 4)

struct Fragment {
    float4 m[LOADS_M], n[LOADS_N];
};

__device__ __forceinline__ int seg_row(int l, int cols) { return (threadIdx.x + l * THREADS) / (cols / 4); }
__device__ __forceinline__ int seg_col(int l, int cols) { return ((threadIdx.x + l * THREADS) % (cols / 4)) * 4; }
#ifdef MROWS
__device__ __forceinline__ int mrow(int l) { return (threadIdx.x + l * THREADS) % BM; }
__device__ __forceinline__ int mcol(int l) { return (threadIdx.x + l * THREADS) / BM * 4; }
#else
__device__ __forceinline__ int mrow(int l) { return seg_row(l, BK); }
__device__ __forceinline__ int mcol(int l) { return seg_col(l, BK); }
#endif

template <bool VEC>
__device__ __forceinline__ float4 load4(const float* __restrict__ A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (VEC) {
        if (r < rows && c < cols) v = *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);
    } else if (r < rows) {
        const float* row = &A[(size_t)r * cols];
        if (c + 0 < cols) v.x = row[c + 0];
        if (c + 1 < cols) v.y = row[c + 1];
        if (c + 2 < cols) v.z = row[c + 2];
        if (c + 3 < cols) v.w = row[c + 3];
    }
    return v;
}

template <bool VEC>
__device__ __forceinline__ Fragment load_phase(const float* __restrict__ M, const float* __restrict__ N,
                                               int J, int K, int L, int bm, int bn, int k0) {
    Fragment f;
#pragma unroll
    for (int l = 0; l < LOADS_M; ++l) f.m[l] = load4<VEC>(M, J, K, bm + mrow(l), k0 + mcol(l));
#pragma unroll
    for (int l = 0; l < LOADS_N; ++l) f.n[l] = load4<VEC>(N, K, L, k0 + seg_row(l, BN), bn + seg_col(l, BN));
    return f;
}

__device__ __forceinline__ void store_phase(const Fragment& f, float (*Mds)[BM + PAD], float (*Nds)[BN]) {
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
}

// Column k of the M tile (this thread's TM rows) and row k of the N tile (its TN columns).
__device__ __forceinline__ void load_frag(float* a, float* b, const float (*Mds)[BM + PAD], const float (*Nds)[BN],
                                          int k, int ty, int tx) {
#pragma unroll
    for (int s = 0; s < SM; ++s)
        *reinterpret_cast<float4*>(&a[4 * s]) = *reinterpret_cast<const float4*>(&Mds[k][s * (BM / SM) + ty * 4]);
#pragma unroll
    for (int s = 0; s < SN; ++s)
        *reinterpret_cast<float4*>(&b[4 * s]) = *reinterpret_cast<const float4*>(&Nds[k][s * (BN / SN) + tx * 4]);
}

#ifndef ORDER
#define ORDER 0
#endif
__device__ __forceinline__ void outer(float (*acc)[TN], const float* a, const float* b) {
#if ORDER == 0
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
#elif ORDER == 1
    // 2 x 2 blocks of acc, each a0b0 a0b1 a1b0 a1b1, row by row of blocks
#pragma unroll
    for (int i = 0; i < TM; i += 2)
#pragma unroll
        for (int j = 0; j < TN; j += 2) {
            acc[i][j] += a[i] * b[j];
            acc[i][j + 1] += a[i] * b[j + 1];
            acc[i + 1][j] += a[i + 1] * b[j];
            acc[i + 1][j + 1] += a[i + 1] * b[j + 1];
        }
#elif ORDER == 3
    // 2 x 2 blocks, quadrant by quadrant of the 4-wide strips, rows of blocks inside each
#pragma unroll
    for (int qi = 0; qi < TM; qi += 4)
#pragma unroll
        for (int qj = 0; qj < TN; qj += 4)
#pragma unroll
            for (int i = qi; i < qi + 4; i += 2)
#pragma unroll
                for (int j = qj; j < qj + 4; j += 2) {
                    acc[i][j] += a[i] * b[j];
                    acc[i][j + 1] += a[i] * b[j + 1];
                    acc[i + 1][j] += a[i + 1] * b[j];
                    acc[i + 1][j + 1] += a[i + 1] * b[j + 1];
                }
#elif ORDER == 9
    // generic: BI x BJ blocks; blocks by rows (or columns when OC), snaking when SN; inside a block
    // by rows (or columns when IC)
#pragma unroll
    for (int o = 0; o < (OC ? TN / BJ : TM / BI); ++o)
#pragma unroll
        for (int p = 0; p < (OC ? TM / BI : TN / BJ); ++p) {
            const int q = (SNK && o % 2) ? (OC ? TM / BI : TN / BJ) - 1 - p : p;
            const int i0 = (OC ? q : o) * BI, j0 = (OC ? o : q) * BJ;
#pragma unroll
            for (int x = 0; x < BI * BJ; ++x) {
                const int i = i0 + (IC ? x % BI : x / BJ), j = j0 + (IC ? x / BI : x % BJ);
                acc[i][j] += a[i] * b[j];
            }
        }
#else
    // 2 x 2 blocks, column pairs outer, row pairs snaking up and down (as cuBLAS's SASS orders them)
#pragma unroll
    for (int j = 0; j < TN; j += 2)
#pragma unroll
        for (int ii = 0; ii < TM; ii += 2) {
            const int i = (j / 2) % 2 ? TM - 2 - ii : ii;
            acc[i][j] += a[i] * b[j];
            acc[i][j + 1] += a[i] * b[j + 1];
            acc[i + 1][j] += a[i + 1] * b[j];
            acc[i + 1][j + 1] += a[i + 1] * b[j + 1];
        }
#endif
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS, MINB)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(16) float Mds[2][BK][BM + PAD];
    __shared__ __align__(16) float Nds[2][BK][BN];
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
#if LAYOUT == 1
    // A warp is 8 x 4 threads with lanes n, n^1 on one column strip and n, n^2 on one row strip,
    // so both fragment reads are of lanes in pairs (half the shared-memory wavefronts).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tx = (warp % (TX / 8)) * 8 + (lane / 2) % 8;
    const int ty = (warp / (TX / 8)) * 4 + (lane / 16) * 2 + lane % 2;
#else
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
#endif
    float acc[TM][TN] = {};

    store_phase(load_phase<VEC>(M, N, J, K, L, bm, bn, 0), Mds[0], Nds[0]);
    __syncthreads();
    const int phases = (K + BK - 1) / BK;
#if FRAG2
    float a[2][TM], b[2][TN];
    load_frag(a[0], b[0], Mds[0], Nds[0], 0, ty, tx);
#ifdef PTR
    // VEC only: per-thread tile pointers and row tests computed once; a phase adds k0
    const float* mp[LOADS_M]; const float* np[LOADS_N]; bool mok[LOADS_M], nok[LOADS_N];
#pragma unroll
    for (int l = 0; l < LOADS_M; ++l) { mok[l] = bm + seg_row(l, BK) < J; mp[l] = M + (size_t)(mok[l] ? bm + seg_row(l, BK) : 0) * K + seg_col(l, BK); }
#pragma unroll
    for (int l = 0; l < LOADS_N; ++l) { nok[l] = bn + seg_col(l, BN) < L; np[l] = N + (size_t)seg_row(l, BN) * L + (nok[l] ? bn + seg_col(l, BN) : 0); }
    auto fetch = [&](int k0) {
        Fragment f;
#pragma unroll
        for (int l = 0; l < LOADS_M; ++l) {
            f.m[l] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (mok[l] && k0 + seg_col(l, BK) < K) f.m[l] = *reinterpret_cast<const float4*>(mp[l] + k0);
        }
#pragma unroll
        for (int l = 0; l < LOADS_N; ++l) {
            f.n[l] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (nok[l] && k0 + seg_row(l, BN) < K) f.n[l] = *reinterpret_cast<const float4*>(np[l] + (size_t)k0 * L);
        }
        return f;
    };
    for (int ph = 0; ph < phases - 1; ++ph) {
        const int cur = ph % 2;
        const Fragment next = VEC ? fetch((ph + 1) * BK) : load_phase<VEC>(M, N, J, K, L, bm, bn, (ph + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK - 1; ++k) {
            load_frag(a[(k + 1) % 2], b[(k + 1) % 2], Mds[cur], Nds[cur], k + 1, ty, tx);
            outer(acc, a[k % 2], b[k % 2]);
        }
        store_phase(next, Mds[1 - cur], Nds[1 - cur]);
        __syncthreads();
        load_frag(a[BK % 2], b[BK % 2], Mds[1 - cur], Nds[1 - cur], 0, ty, tx);
        outer(acc, a[(BK - 1) % 2], b[(BK - 1) % 2]);
    }
    {
        const int cur = (phases - 1) % 2;
#pragma unroll
        for (int k = 0; k < BK - 1; ++k) {
            load_frag(a[(k + 1) % 2], b[(k + 1) % 2], Mds[cur], Nds[cur], k + 1, ty, tx);
            outer(acc, a[k % 2], b[k % 2]);
        }
        outer(acc, a[(BK - 1) % 2], b[(BK - 1) % 2]);
    }
    if (false)
#endif
#ifdef PEEL
    // every phase but the last loads, stores and waits unconditionally; the last one alone after it
    for (int ph = 0; ph < phases - 1; ++ph) {
        const int cur = ph % 2;
        const Fragment next = load_phase<VEC>(M, N, J, K, L, bm, bn, (ph + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK - 1; ++k) {
            load_frag(a[(k + 1) % 2], b[(k + 1) % 2], Mds[cur], Nds[cur], k + 1, ty, tx);
            outer(acc, a[k % 2], b[k % 2]);
        }
        store_phase(next, Mds[1 - cur], Nds[1 - cur]);
        __syncthreads();
        load_frag(a[BK % 2], b[BK % 2], Mds[1 - cur], Nds[1 - cur], 0, ty, tx);
        outer(acc, a[(BK - 1) % 2], b[(BK - 1) % 2]);
    }
    {
        const int cur = (phases - 1) % 2;
#pragma unroll
        for (int k = 0; k < BK - 1; ++k) {
            load_frag(a[(k + 1) % 2], b[(k + 1) % 2], Mds[cur], Nds[cur], k + 1, ty, tx);
            outer(acc, a[k % 2], b[k % 2]);
        }
        outer(acc, a[(BK - 1) % 2], b[(BK - 1) % 2]);
    }
    if (false)
#endif
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph % 2;
        const bool more = ph + 1 < phases;
        Fragment next;
        if (more) next = load_phase<VEC>(M, N, J, K, L, bm, bn, (ph + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK - 1; ++k) {
            load_frag(a[(k + 1) % 2], b[(k + 1) % 2], Mds[cur], Nds[cur], k + 1, ty, tx);
            outer(acc, a[k % 2], b[k % 2]);
        }
        if (more) {
            store_phase(next, Mds[1 - cur], Nds[1 - cur]);
            __syncthreads();
            load_frag(a[BK % 2], b[BK % 2], Mds[1 - cur], Nds[1 - cur], 0, ty, tx);
        }
        outer(acc, a[(BK - 1) % 2], b[(BK - 1) % 2]);
    }
#else
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph % 2;
        Fragment next;
        if (ph + 1 < phases) next = load_phase<VEC>(M, N, J, K, L, bm, bn, (ph + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            load_frag(a, b, Mds[cur], Nds[cur], k, ty, tx);
            outer(acc, a, b);
        }
        if (ph + 1 < phases) store_phase(next, Mds[1 - cur], Nds[1 - cur]);
        __syncthreads();
    }
#endif
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + (i / 4) * (BM / SM) + ty * 4 + i % 4;
        if (row >= J) continue;
#pragma unroll
        for (int s = 0; s < SN; ++s) {
            const int col = bn + s * (BN / SN) + tx * 4;
            const float* v = &acc[i][s * 4];
            if (VEC && col < L) {
                *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) = make_float4(v[0], v[1], v[2], v[3]);
            } else if (!VEC) {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = v[j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
