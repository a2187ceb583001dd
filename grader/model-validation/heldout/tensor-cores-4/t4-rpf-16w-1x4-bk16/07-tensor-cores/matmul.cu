// Held-out kernel t4-rpf-16w-1x4-bk16 (stage 07-tensor-cores): 128x128 block tiles, 16 warps (512 threads, 8 down, 2 across) of 16x64 (1x4 fragments), BK 16: 128x16 and 16x128 tiles, rows padded by 4, double-buffered through registers (1 float4 of the M tile and 1 of the N tile per thread, loaded before the current buffer is multiplied, stored into the other after; one barrier per phase; the same segments element by element with zero fill when K or L is not a multiple of 4), rounded to TF32 as they are stored; per k-step one matrix_a fragment and four matrix_b fragments; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

namespace {
constexpr int kBM = 128, kBN = 128, kBK = 16;
constexpr int kLdA = kBK + 4;    // 20
constexpr int kLdB = kBN + 4;    // 132
constexpr int kThreads = 512;
}

template <bool kVec>
__device__ __forceinline__ float4 load_seg(const float* __restrict__ src, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r < rows) {
        if (kVec) {
            if (c < cols) v = *reinterpret_cast<const float4*>(src + (size_t)r * cols + c);
        } else {
            const float* row = src + (size_t)r * cols;
            if (c < cols) v.x = row[c];
            if (c + 1 < cols) v.y = row[c + 1];
            if (c + 2 < cols) v.z = row[c + 2];
            if (c + 3 < cols) v.w = row[c + 3];
        }
    }
    return v;
}

__device__ __forceinline__ void store_seg(float* dst, const float4& v) {
    dst[0] = wmma::__float_to_tf32(v.x);
    dst[1] = wmma::__float_to_tf32(v.y);
    dst[2] = wmma::__float_to_tf32(v.z);
    dst[3] = wmma::__float_to_tf32(v.w);
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
gemm16w(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float sA[2][kBM][kLdA];
    __shared__ __align__(128) float sB[2][kBK][kLdB];

    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int wRow = (warp >> 1) * 16;   // 8 warps down
    const int wCol = (warp & 1) * 64;    // 2 warps across
    const int gRow = blockIdx.y * kBM, gCol = blockIdx.x * kBN;

    // one segment of each tile per thread
    const int aR = tid >> 2, aC = (tid & 3) << 2;    // 128 rows x 4 segments
    const int bR = tid >> 5, bC = (tid & 31) << 2;   // 16 rows x 32 segments

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[j], 0.0f);

    float4 va = load_seg<kVec>(M, J, K, gRow + aR, aC);
    float4 vb = load_seg<kVec>(N, K, L, bR, gCol + bC);
    store_seg(&sA[0][aR][aC], va);
    store_seg(&sB[0][bR][bC], vb);
    __syncthreads();

    const int numK = (K + kBK - 1) / kBK;
    for (int t = 0; t < numK; ++t) {
        const int buf = t & 1;
        const bool has_next = (t + 1) < numK;
        if (has_next) {
            const int k0 = (t + 1) * kBK;
            va = load_seg<kVec>(M, J, K, gRow + aR, k0 + aC);
            vb = load_seg<kVec>(N, K, L, k0 + bR, gCol + bC);
        }
#pragma unroll
        for (int kk = 0; kk < kBK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
            wmma::load_matrix_sync(a, &sA[buf][wRow][kk], kLdA);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
                wmma::load_matrix_sync(b, &sB[buf][kk][wCol + 16 * j], kLdB);
                wmma::mma_sync(acc[j], a, b, acc[j]);
            }
        }
        if (has_next) {
            store_seg(&sA[buf ^ 1][aR][aC], va);
            store_seg(&sB[buf ^ 1][bR][bC], vb);
        }
        __syncthreads();
    }

    float* stage = &sA[0][0][0] + warp * 256;   // 16 warps x 256 floats fit in sA
    const int r0 = gRow + wRow;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int c0 = gCol + wCol + 16 * j;
        if (r0 >= J || c0 >= L) continue;
        if (kVec && r0 + 16 <= J && c0 + 16 <= L) {
            wmma::store_matrix_sync(P + (size_t)r0 * L + c0, acc[j], L, wmma::mem_row_major);
            continue;
        }
        wmma::store_matrix_sync(stage, acc[j], 16, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            const int r = r0 + (e >> 4), c = c0 + (e & 15);
            if (r < J && c < L) P[(size_t)r * L + c] = stage[e];
        }
        __syncwarp();
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + kBN - 1) / kBN, (J + kBM - 1) / kBM);
    if (K % 4 == 0 && L % 4 == 0)
        gemm16w<true><<<grid, kThreads>>>(M, N, P, J, K, L);
    else
        gemm16w<false><<<grid, kThreads>>>(M, N, P, J, K, L);
}
