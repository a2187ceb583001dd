// Held-out kernel c5-smem-1w-1x4-bk16 (stage 07-tensor-cores): one warp per block computing a 16x64 strip of P as 1x4 fragments, BK 16 (two k-steps of 8 per phase): 16x16 and 16x64 tiles, rows padded by 4, filled by scalar zero-filled loads (8 of the M tile and 32 of the N tile per lane, consecutive lanes on consecutive columns) rounded to TF32 as they are stored; per k-step one matrix_a fragment, each matrix_b fragment loaded just before its product; one buffer, two barriers per phase; fragments inside P stored straight to it (L a multiple of 4, tested in the kernel), the others through a 16x16 scratch in shared memory.
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

#define BN 64
#define BK 16
#define PAD 4

// One warp per block computing a 16x64 strip of P as 1x4 fragments, BK 16 (two k-steps per phase):
// 16x16 and 16x64 tiles, rows padded by 4, filled by scalar zero-filled loads (8 of the M tile and
// 32 of the N tile per lane, consecutive lanes on consecutive columns) rounded to TF32 as they are
// stored; one buffer, two barriers per phase; fragments inside P stored straight to it (L a multiple
// of 4), the others through a 16x16 scratch in shared memory.
__global__ void __launch_bounds__(32)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[16][BK + PAD];
    __shared__ __align__(128) float Bs[BK][BN + PAD];
    __shared__ __align__(128) float scratch[256];
    const int lane = threadIdx.x;
    const int bm = blockIdx.y * 16, bn = blockIdx.x * BN;

    FragC acc[4];
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = lane; e < 16 * BK; e += 32) {
            int r = e / BK, c = e % BK;
            float v = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
            As[r][c] = wmma::__float_to_tf32(v);
        }
        for (int e = lane; e < BK * BN; e += 32) {
            int r = e / BN, c = e % BN;
            float v = (k0 + r < K && bn + c < L) ? N[(size_t)(k0 + r) * L + bn + c] : 0.0f;
            Bs[r][c] = wmma::__float_to_tf32(v);
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            FragA a;
            wmma::load_matrix_sync(a, &As[0][kk], BK + PAD);
            for (int j = 0; j < 4; ++j) {
                FragB b;
                wmma::load_matrix_sync(b, &Bs[kk][16 * j], BN + PAD);
                wmma::mma_sync(acc[j], a, b, acc[j]);
            }
        }
        __syncthreads();
    }
    const bool direct = (L % 4) == 0;
    for (int j = 0; j < 4; ++j)
        store_frag(acc[j], P, J, L, bm, bn + 16 * j, direct, scratch, lane);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(32);
    dim3 grid((L + BN - 1) / BN, (J + 15) / 16);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
