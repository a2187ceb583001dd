// Held-out kernel t3-sdbuf-4w-2x4-bk16-cstage (stage 07-tensor-cores): 64x128 block tiles, 4 warps (2x2) of 32x64 (2x4 fragments), BK 16: 64x16 and 16x128 tiles, rows padded by 8, double-buffered in shared memory (the next phase's float4 loads, 2 of the M tile and 4 of the N tile per thread, stored straight into the other buffer before the current one is multiplied; one barrier per phase; element by element with zero fill when K or L is not a multiple of 4); no TF32 conversion anywhere (the tensor cores truncate); the whole 64x128 block tile of P stored through a padded shared array (ldm 132) over the tiles' memory and written to P by all threads, row-contiguous, as float4 when K and L are multiples of 4, with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

namespace {
constexpr int BM = 64, BN = 128, BK = 16;
constexpr int LDA = BK + 8;          // 24: rows padded by 8
constexpr int LDB = BN + 8;          // 136
constexpr int LDC = BN + 4;          // 132: the output staging tile
constexpr int THREADS = 128;         // 4 warps, 2 x 2, each 32 x 64 (2 x 4 fragments)
constexpr int A_SIZE = BM * LDA;
constexpr int B_SIZE = BK * LDB;
constexpr int TILE_FLOATS = 2 * (A_SIZE + B_SIZE);   // 7424
constexpr int C_FLOATS = BM * LDC;                   // 8448
constexpr int SMEM_FLOATS = TILE_FLOATS > C_FLOATS ? TILE_FLOATS : C_FLOATS;
}

// Copy one BK-deep phase of the M and N tiles from global memory straight into shared buffers.
template <bool VEC>
__device__ void load_tiles(float* As, float* Bs, const float* __restrict__ M, const float* __restrict__ N,
                           int J, int K, int L, int bm, int bn, int k0) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < 2; ++i) {                      // 64 x 16: 256 segments of 4
        int id = tid + i * THREADS;
        int r = id >> 2, c = (id & 3) << 2;
        int gr = bm + r, gc = k0 + c;
        float* dst = As + r * LDA + c;
        if (VEC) {
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (gr < J && gc < K) v = *reinterpret_cast<const float4*>(M + (size_t)gr * K + gc);
            *reinterpret_cast<float4*>(dst) = v;
        } else {
            for (int q = 0; q < 4; ++q) dst[q] = (gr < J && gc + q < K) ? M[(size_t)gr * K + gc + q] : 0.f;
        }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {                      // 16 x 128: 512 segments of 4
        int id = tid + i * THREADS;
        int r = id >> 5, c = (id & 31) << 2;
        int gr = k0 + r, gc = bn + c;
        float* dst = Bs + r * LDB + c;
        if (VEC) {
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (gr < K && gc < L) v = *reinterpret_cast<const float4*>(N + (size_t)gr * L + gc);
            *reinterpret_cast<float4*>(dst) = v;
        } else {
            for (int q = 0; q < 4; ++q) dst[q] = (gr < K && gc + q < L) ? N[(size_t)gr * L + gc + q] : 0.f;
        }
    }
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
tc_matmul_db(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float smem[SMEM_FLOATS];
    float* As[2] = {smem, smem + A_SIZE};
    float* Bs[2] = {smem + 2 * A_SIZE, smem + 2 * A_SIZE + B_SIZE};

    const int warp = threadIdx.x / 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 64;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.f);

    const int phases = (K + BK - 1) / BK;
    load_tiles<VEC>(As[0], Bs[0], M, N, J, K, L, bm, bn, 0);
    __syncthreads();

    for (int p = 0; p < phases; ++p) {
        const int cur = p & 1;
        // the next phase goes straight into the other buffer (last read before the previous barrier)
        if (p + 1 < phases) load_tiles<VEC>(As[cur ^ 1], Bs[cur ^ 1], M, N, J, K, L, bm, bn, (p + 1) * BK);

        for (int kk = 0; kk < BK; kk += 8) {
            // values go to the tensor cores as they are (no __float_to_tf32)
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[4];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], As[cur] + (wm + 16 * i) * LDA + kk, LDA);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], Bs[cur] + kk * LDB + wn + 16 * j, LDB);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    // the whole 64 x 128 result tile through shared memory, then written out by all threads
    float* Cs = smem;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
            wmma::store_matrix_sync(Cs + (wm + 16 * i) * LDC + wn + 16 * j, acc[i][j], LDC, wmma::mem_row_major);
    __syncthreads();

    if (VEC) {
        for (int id = threadIdx.x; id < BM * BN / 4; id += THREADS) {
            int r = id / (BN / 4), c = (id % (BN / 4)) * 4;
            int gr = bm + r, gc = bn + c;
            if (gr < J && gc < L)
                *reinterpret_cast<float4*>(P + (size_t)gr * L + gc) = *reinterpret_cast<const float4*>(Cs + r * LDC + c);
        }
    } else {
        for (int id = threadIdx.x; id < BM * BN; id += THREADS) {
            int r = id / BN, c = id % BN;
            int gr = bm + r, gc = bn + c;
            if (gr < J && gc < L) P[(size_t)gr * L + gc] = Cs[r * LDC + c];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        tc_matmul_db<true><<<grid, THREADS>>>(M, N, P, J, K, L);
    else
        tc_matmul_db<false><<<grid, THREADS>>>(M, N, P, J, K, L);
}
