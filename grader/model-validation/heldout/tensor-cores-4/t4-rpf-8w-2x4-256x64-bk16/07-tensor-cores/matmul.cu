// Held-out kernel t4-rpf-8w-2x4-256x64-bk16 (stage 07-tensor-cores): 256x64 block tiles, 8 warps (256 threads, stacked) of 32x64 (2x4 fragments), BK 16: a 256x16 M tile in unpadded shared memory (ldm 16) and a 16x64 N tile with rows padded by 4, double-buffered through registers (4 float4 of the M tile and 1 of the N tile per thread loaded before the current buffer is multiplied, stored into the other after; one barrier per phase; the same segments element by element with zero fill when K or L is not a multiple of 4), rounded to TF32 as they are stored; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the M tile's memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 256, BN = 64, BK = 16;
constexpr int LDA = BK;        // no padding
constexpr int LDB = BN + 4;    // 68
constexpr int NT = 256;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa_t;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb_t;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc_t;

template <bool VEC>
__device__ __forceinline__ float4 fetch4(const float* __restrict__ src, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r >= rows) return v;
    const float* p = src + (size_t)r * cols + c;
    if (VEC) {
        if (c < cols) v = __ldg(reinterpret_cast<const float4*>(p));
    } else {
        if (c < cols) v.x = p[0];
        if (c + 1 < cols) v.y = p[1];
        if (c + 2 < cols) v.z = p[2];
        if (c + 3 < cols) v.w = p[3];
    }
    return v;
}

__device__ __forceinline__ void put4(float* dst, float4 v) {
    v.x = wmma::__float_to_tf32(v.x);
    v.y = wmma::__float_to_tf32(v.y);
    v.z = wmma::__float_to_tf32(v.z);
    v.w = wmma::__float_to_tf32(v.w);
    *reinterpret_cast<float4*>(dst) = v;
}

template <bool VEC>
__global__ void __launch_bounds__(NT)
tall_tile_kernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[2][BM * LDA];
    __shared__ __align__(128) float Bs[2][BK * LDB];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wr = warp * 32;   // the warp's 32 rows; every warp spans all 64 columns

    // this thread's segments: M tile rows (tid + 256 l) / 4, N tile row tid / 16
    const int bR = tid / 16, bC = (tid % 16) * 4;

    fc_t acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    float4 ra[4], rb;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        int id = tid + l * NT;
        ra[l] = fetch4<VEC>(M, J, K, row0 + id / 4, (id % 4) * 4);
    }
    rb = fetch4<VEC>(N, K, L, bR, col0 + bC);
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        int id = tid + l * NT;
        put4(&As[0][(id / 4) * LDA + (id % 4) * 4], ra[l]);
    }
    put4(&Bs[0][bR * LDB + bC], rb);
    __syncthreads();

    const int nk = (K + BK - 1) / BK;
    for (int t = 0; t < nk; ++t) {
        const int cur = t & 1;
        const bool more = t + 1 < nk;
        if (more) {
            const int k0 = (t + 1) * BK;
#pragma unroll
            for (int l = 0; l < 4; ++l) {
                int id = tid + l * NT;
                ra[l] = fetch4<VEC>(M, J, K, row0 + id / 4, k0 + (id % 4) * 4);
            }
            rb = fetch4<VEC>(N, K, L, k0 + bR, col0 + bC);
        }
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            fa_t a[2];
            fb_t b[4];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[cur][(wr + 16 * i) * LDA + kk], LDA);
#pragma unroll
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[cur][kk * LDB + 16 * j], LDB);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (more) {
#pragma unroll
            for (int l = 0; l < 4; ++l) {
                int id = tid + l * NT;
                put4(&As[1 - cur][(id / 4) * LDA + (id % 4) * 4], ra[l]);
            }
            put4(&Bs[1 - cur][bR * LDB + bC], rb);
        }
        __syncthreads();
    }

    float* tmp = &As[0][0] + warp * 256;   // every warp is past the last barrier
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int r = row0 + wr + 16 * i, c = col0 + 16 * j;
            if (r >= J || c >= L) continue;
            if (VEC && r + 16 <= J && c + 16 <= L) {
                wmma::store_matrix_sync(P + (size_t)r * L + c, acc[i][j], L, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(tmp, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int rr = r + (e >> 4), cc = c + (e & 15);
                if (rr < J && cc < L) P[(size_t)rr * L + cc] = tmp[e];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if ((K & 3) == 0 && (L & 3) == 0)
        tall_tile_kernel<true><<<grid, NT>>>(M, N, P, J, K, L);
    else
        tall_tile_kernel<false><<<grid, NT>>>(M, N, P, J, K, L);
}
