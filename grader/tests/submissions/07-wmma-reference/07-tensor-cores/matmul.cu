// Known-good (issue #45.3): 07-tensor-cores on nvcuda::wmma, the stage's reference until the PTX
// mma.sync kernel replaced it (walkthrough 07, steps 1-2: the kernel a student writes with wmma
// alone). It must pass every correctness check; on a GPU it times at about 0.40 of the new
// reference, partial performance credit (stage.toml's [performance]), and the emulator's model puts
// it near the reference (both tensor-bound), full credit there: the model's known limit
// (docs/performance.md, "07: the model and plain wmma"). The base of the 07 wmma mutants.
//
// P = M N with M J x K, N K x L, P J x L, row-major float, any sizes >= 1, computed in TF32: each
// input keeps 10 of float32's 23 mantissa bits, the products are summed in float32. A tensor core
// multiplies whole tiles: one mma_sync of a warp is a 16 x 16 x 8 product (2048 multiply-adds), and
// the 32 lanes hold the tiles between them as fragments whose element-to-lane layout is the
// hardware's business. So the kernel is 06's with the register tile replaced by fragments:
// - a block computes BM x BN = 128 x 128 of P with 4 warps; warp w owns a 64 x 64 quarter of it,
//  4 x 4 accumulator fragments of 16 x 16 (128 floats per lane: each fragment of M read from
//  shared memory feeds 4 products, as a register tile's value does in 06);
// - phases BK = 16 deep, tiles of M and N staged in shared memory (zero outside the matrices, so
//  every fragment is whole), double buffered with the next tiles loaded into registers while the
//  current ones are multiplied (one barrier per phase, as in 06);
// - every value is rounded to TF32 once, as it is stored to shared memory (__float_to_tf32);
// - fragments inside P are stored straight to it; the edge ones through shared memory, element by
//  element, since store_matrix_sync writes all 16 x 16.
// What each step bought, measured on an H100: walkthrough 07.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128       // rows of P per block
#define BN 128       // columns of P per block
#define BK 16        // depth of one phase: two k-steps of 8, the TF32 fragment's depth
#define WM 64        // rows of P per warp: 4 fragments
#define WN 64        // columns of P per warp: 4 fragments
#define FM (WM / 16)
#define FN (WN / 16)
#define THREADS 128  // 4 warps: (BM / WM) x (BN / WN) = 2 x 2
#define PAD_A 4      // As rows are BK + 4 floats: 80 bytes, a multiple of 16 (ldm % 4 == 0)
#define PAD_B 4      // Bs rows are BN + 4 floats

#define LOADS_A (BM * BK / 4 / THREADS)  // float4 loads per thread per phase, M tile
#define LOADS_B (BK * BN / 4 / THREADS)  // and N tile

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

struct Staged {
    float4 a[LOADS_A], b[LOADS_B];
};

// Load l of this thread: element offset (row, col) of a 4-wide segment in a tile with `cols` columns.
__device__ __forceinline__ int seg_row(int l, int cols) { return (threadIdx.x + l * THREADS) / (cols / 4); }
__device__ __forceinline__ int seg_col(int l, int cols) { return ((threadIdx.x + l * THREADS) % (cols / 4)) * 4; }

// Four elements of row r of a rows x cols matrix A from column c on; 0 outside A. VEC: cols is a
// multiple of 4, so a segment lies wholly inside A or wholly outside it: one 16-byte load.
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
__device__ __forceinline__ Staged load_phase(const float* __restrict__ M, const float* __restrict__ N,
                                             int J, int K, int L, int bm, int bn, int k0) {
    Staged s;
#pragma unroll
    for (int l = 0; l < LOADS_A; ++l) s.a[l] = load4<VEC>(M, J, K, bm + seg_row(l, BK), k0 + seg_col(l, BK));
#pragma unroll
    for (int l = 0; l < LOADS_B; ++l) s.b[l] = load4<VEC>(N, K, L, k0 + seg_row(l, BN), bn + seg_col(l, BN));
    return s;
}

__device__ __forceinline__ float4 tf32(float4 v) {
    return make_float4(wmma::__float_to_tf32(v.x), wmma::__float_to_tf32(v.y), wmma::__float_to_tf32(v.z),
                       wmma::__float_to_tf32(v.w));
}

// The staged tiles into shared memory, each value rounded to TF32 once here rather than in every
// fragment that reads it.
__device__ __forceinline__ void store_phase(const Staged& s, float (*As)[BK + PAD_A], float (*Bs)[BN + PAD_B]) {
#pragma unroll
    for (int l = 0; l < LOADS_A; ++l)
        *reinterpret_cast<float4*>(&As[seg_row(l, BK)][seg_col(l, BK)]) = tf32(s.a[l]);
#pragma unroll
    for (int l = 0; l < LOADS_B; ++l)
        *reinterpret_cast<float4*>(&Bs[seg_row(l, BN)][seg_col(l, BN)]) = tf32(s.b[l]);
}

// One phase of this warp: for each k-step of 8, its 4 fragments of the M tile and 4 of the N tile
// from shared memory, and the 4 x 4 products into the accumulators.
__device__ __forceinline__ void multiply_phase(FragC (&acc)[FM][FN], const float (*As)[BK + PAD_A],
                                               const float (*Bs)[BN + PAD_B], int wm, int wn) {
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
        FragA a[FM];
        FragB b[FN];
#pragma unroll
        for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], BK + PAD_A);
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], BN + PAD_B);
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
}

// VEC (chosen on the host): K and L are multiples of 4, so every tile load is a vector and P's
// rows are whole 16-byte multiples, as store_matrix_sync's ldm must be.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    // 32-byte aligned: load_matrix_sync's pointer must be, and every fragment starts at a multiple
    // of 32 bytes from here (rows of 80 and 528 bytes, 16 rows or 8 columns apart).
    __shared__ __align__(128) float As[2][BM][BK + PAD_A];
    __shared__ __align__(128) float Bs[2][BK][BN + PAD_B];
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int warp = threadIdx.x / 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;  // the warp's piece of the tile

    FragC acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    store_phase(load_phase<VEC>(M, N, J, K, L, bm, bn, 0), As[0], Bs[0]);
    __syncthreads();
    const int phases = (K + BK - 1) / BK;
    for (int ph = 0; ph < phases - 1; ++ph) {
        const int cur = ph % 2;
        const Staged next = load_phase<VEC>(M, N, J, K, L, bm, bn, (ph + 1) * BK);
        multiply_phase(acc, As[cur], Bs[cur], wm, wn);
        // The other buffer was last read in the previous phase, before that phase's barrier.
        store_phase(next, As[1 - cur], Bs[1 - cur]);
        __syncthreads();
    }
    multiply_phase(acc, As[(phases - 1) % 2], Bs[(phases - 1) % 2], wm, wn);

    __syncthreads();  // every warp is done reading the tiles: their memory becomes the edge staging
    float* stage = &As[0][0][0] + warp * 16 * 16;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            if (row >= J || col >= L) continue;  // the same for the whole warp: no lane diverges
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
            __syncwarp();  // read before the next fragment overwrites it
        }
}

// M, N, P are device pointers. One block of THREADS threads per BM x BN tile of P.
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
