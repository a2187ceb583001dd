// Held-out kernel c5-smem-16w-2x2-acol-bk16 (stage 07-tensor-cores): 128x128 block tiles, 16 warps (512 threads, 4x4) of 32x32 (2x2 fragments), BK 16: the M tile stored transposed (AsT[16][132]: one float4 along a row of M per thread, stored down a column) and read as col_major matrix_a fragments (ldm 132), the N tile [16][132] (one float4 per thread), both rounded to TF32 as they are stored (element by element with zero fill when K or L is not a multiple of 4); one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (K and L multiples of 4), the others through a per-warp 16x16 scratch in the tiles' memory.
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

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> FragACol;

#define BM 128
#define BN 128
#define BK 16
#define THREADS 512   // 16 warps, 4x4, each 32x32 (2x2 fragments)
#define LD (BM + 4)   // = BN + 4: both tiles' rows

// 128x128 block tiles, 16 warps (512 threads, 4x4) of 32x32 (2x2 fragments), BK 16: the M tile
// stored transposed (AsT[16][132]: each thread one float4 along a row of M, stored down a column)
// and read as col_major matrix_a fragments (ldm 132), the N tile [16][132] (one float4 per thread);
// both rounded to TF32 as they are stored, zero-filled element by element when K or L is not a
// multiple of 4; one buffer, two barriers per phase, no prefetch.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float smem[2 * BK * LD];
    float (*AsT)[LD] = reinterpret_cast<float (*)[LD]>(smem);
    float (*Bs)[LD] = reinterpret_cast<float (*)[LD]>(smem + BK * LD);
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 4) * 32, wn = (warp % 4) * 32;

    FragC acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int ar = t / 4, ac = (t % 4) * 4;     // M: 128 rows x 4 float4
    const int br = t / 32, bc = (t % 32) * 4;   // N: 16 rows x 32 float4
    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 va = tf32x4(load4<VEC>(M, J, K, bm + ar, k0 + ac));
        AsT[ac + 0][ar] = va.x;
        AsT[ac + 1][ar] = va.y;
        AsT[ac + 2][ar] = va.z;
        AsT[ac + 3][ar] = va.w;
        *reinterpret_cast<float4*>(&Bs[br][bc]) = tf32x4(load4<VEC>(N, K, L, k0 + br, bn + bc));
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            FragACol a[2];
            FragB b[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &AsT[kk][wm + 16 * i], LD);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], LD);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    float* scratch = smem + warp * 256;   // 16 x 256 floats fit in the two tiles (4224)
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            store_frag(acc[i][j], P, J, L, bm + wm + 16 * i, bn + wn + 16 * j, VEC, scratch, lane);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
