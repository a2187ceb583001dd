// Held-out kernel t07-smem-4w-4x4-acol-bk8 (stage 07-tensor-cores): 128x128 block tiles, 4 warps (2x2) of 64x64 (4x4 fragments), BK 8: the M tile stored transposed (AsT[8][128], unpadded; each thread one row of 8, two float4 loads) and read as col_major matrix_a fragments (ldm 128), the N tile [8][128] unpadded (two float4 per thread), both rounded to TF32 at staging; one buffer, two barriers per phase; output always through shared memory, a row of 4 fragments at a time into a per-warp 16x64 strip (rows padded by 4), copied to P row by row.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 8
#define WT 64          // warp tile 64 x 64: 4 x 4 fragments
#define NT 128         // 4 warps, 2 x 2
#define SROW (WT + 4)  // the output strip's row: 68 floats

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

__device__ __forceinline__ float tf(float x) { return wmma::__float_to_tf32(x); }

template <bool VEC>
__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float AsT[BK][BM];   // AsT[k][m] = M[bm + m][k0 + k]
    __shared__ __align__(128) float Bs[BK][BN];
    __shared__ __align__(128) float Strip[NT / 32][16][SROW];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 2) * WT, wn = (warp % 2) * WT;

    FragC acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        // M: thread tid takes row bm + tid, columns k0 .. k0 + 7, stored down column tid of AsT.
        {
            const int r = bm + tid;
            float v[8];
            if (VEC && r < J) {
                for (int h = 0; h < 2; ++h) {
                    float4 q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    if (k0 + 4 * h < K) q = *reinterpret_cast<const float4*>(&M[(size_t)r * K + k0 + 4 * h]);
                    v[4 * h] = q.x; v[4 * h + 1] = q.y; v[4 * h + 2] = q.z; v[4 * h + 3] = q.w;
                }
            } else {
                for (int c = 0; c < 8; ++c) v[c] = (r < J && k0 + c < K) ? M[(size_t)r * K + k0 + c] : 0.0f;
            }
            for (int c = 0; c < 8; ++c) AsT[c][tid] = tf(v[c]);
        }
        // N: 8 rows of 128, two 4-wide segments per thread.
        for (int l = 0; l < 2; ++l) {
            const int s = tid + l * NT, kr = s / (BN / 4), c = (s % (BN / 4)) * 4;
            const int gr = k0 + kr, gc = bn + c;
            float4 q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (gr < K) {
                const float* p = &N[(size_t)gr * L + gc];
                if (VEC) {
                    if (gc < L) q = *reinterpret_cast<const float4*>(p);
                } else {
                    if (gc < L) q.x = p[0];
                    if (gc + 1 < L) q.y = p[1];
                    if (gc + 2 < L) q.z = p[2];
                    if (gc + 3 < L) q.w = p[3];
                }
            }
            *reinterpret_cast<float4*>(&Bs[kr][c]) = make_float4(tf(q.x), tf(q.y), tf(q.z), tf(q.w));
        }
        __syncthreads();
        FragA a[4];
        FragB b[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &AsT[0][wm + 16 * i], BM);
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[0][wn + 16 * j], BN);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        __syncthreads();
    }

    // A row of 4 fragments (16 x 64) at a time through this warp's strip, then to P a row at a time.
    for (int i = 0; i < 4; ++i) {
        const int row = bm + wm + 16 * i, col = bn + wn;
        const bool live = row < J && col < L;
        if (live)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                wmma::store_matrix_sync(&Strip[warp][0][16 * j], acc[i][j], SROW, wmma::mem_row_major);
        __syncthreads();
        if (live)
            for (int e = lane; e < 16 * WT; e += 32) {
                const int r = row + e / WT, c = col + e % WT;
                if (r < J && c < L) P[(size_t)r * L + c] = Strip[warp][e / WT][e % WT];
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
