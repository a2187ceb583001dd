// Stage 07-tensor-cores: the 06 kernel's tiles, multiplied by tensor cores.
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
// When K and L are multiples of 4 (16-byte rows: the shapes a GPU likes), a second kernel takes
// over, with the tiles copied by the hardware (MatrixMulKernelAsync):
// - cp.async (__pipeline_memcpy_async) copies each 16-byte segment from global to shared memory
//  without passing through registers, zeros past the edges; ASYNC_STAGES buffers of ASYNC_BK = 32,
//  ASYNC_STAGES - 1 phases in flight while one is multiplied, one barrier per phase;
// - no TF32 rounding: a copy never passes through registers, and rounding each fragment costs 10%;
//  the tensor cores then truncate each float to TF32, which the stage's rule allows (docs/grading.md).
// Shapes with K or L not a multiple of 4 (every hidden shape) stay with the register-staged kernel:
// there every copy would be a 4-byte cp.async, and that ran at 0.55-0.67 of it.
// What each step bought, measured on an H100: walkthrough 07.
#include <cuda_pipeline.h>
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

// The aligned path (MatrixMulKernelAsync): 4 warps of WM x WN as above (8 with ASYNC_BM 256).
#define ASYNC_BM 128                 // rows of P per block
#define ASYNC_BK 32                  // depth of one phase: four k-steps
#define ASYNC_STAGES 3               // buffers: 2 phases in flight while one is multiplied
#define ASYNC_THREADS ((ASYNC_BM / WM) * (BN / WN) * 32)
#define ASYNC_LDA (ASYNC_BK + 4)     // rows of 144 bytes: 16-byte copies, 32-byte fragment pointers
#define ASYNC_LDB (BN + 8)           // rows of 544 bytes
#define ASYNC_STAGE_FLOATS (ASYNC_BM * ASYNC_LDA + ASYNC_BK * ASYNC_LDB)

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
    // BEGIN SOLUTION: store each staged segment, rounded to TF32 (tf32()), as one float4: s.a[l] at As[seg_row(l, BK)][seg_col(l, BK)], s.b[l] at Bs[seg_row(l, BN)][seg_col(l, BN)]
    // GOAL: put this thread's share of the tiles into shared memory, in TF32
#pragma unroll
    for (int l = 0; l < LOADS_A; ++l)
        *reinterpret_cast<float4*>(&As[seg_row(l, BK)][seg_col(l, BK)]) = tf32(s.a[l]);
#pragma unroll
    for (int l = 0; l < LOADS_B; ++l)
        *reinterpret_cast<float4*>(&Bs[seg_row(l, BN)][seg_col(l, BN)]) = tf32(s.b[l]);
    // STARTER: (void)s; (void)As; (void)Bs;
    // END SOLUTION
}

// One phase of this warp, DEPTH deep, from tiles with rows of LDA and LDB floats: for each k-step
// of 8, its 4 fragments of the M tile and 4 of the N tile from shared memory, and the 4 x 4 products
// into the accumulators.
template <int DEPTH, int LDA, int LDB>
__device__ __forceinline__ void multiply_phase(FragC (&acc)[FM][FN], const float (*As)[LDA], const float (*Bs)[LDB],
                                               int wm, int wn) {
    // BEGIN SOLUTION: for kk = 0, 8, ... < DEPTH: load_matrix_sync a[i] from &As[wm + 16*i][kk] (ldm LDA) and b[j] from &Bs[kk][wn + 16*j] (ldm LDB), then mma_sync(acc[i][j], a[i], b[j], acc[i][j]) for every i, j
    // GOAL: multiply this warp's share of the phase on the tensor cores
#pragma unroll
    for (int kk = 0; kk < DEPTH; kk += 8) {
        FragA a[FM];
        FragB b[FN];
#pragma unroll
        for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], LDA);
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], LDB);
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    // STARTER: (void)acc; (void)As; (void)Bs; (void)wm; (void)wn;
    // END SOLUTION
}

// The warp's accumulators into P, fragment (i, j) at row row0 + 16 i, column col0 + 16 j. VEC: L is
// a multiple of 4, as store_matrix_sync's ldm must be. stage: 16 x 16 floats of shared memory of this
// warp's own, free to use (the caller's barrier made sure no warp still reads them).
template <bool VEC>
__device__ __forceinline__ void store_accumulators(const FragC (&acc)[FM][FN], float* __restrict__ P, int J, int L,
                                                   int row0, int col0, float* stage) {
    // BEGIN SOLUTION: store acc[i][j] (rows row0 + 16*i, columns col0 + 16*j): straight to P with store_matrix_sync (ldm L, mem_row_major) when VEC and the fragment lies wholly inside P; otherwise through stage, __syncwarp(), and element by element with bounds tests
    // GOAL: write the outputs that belong to P, whole fragments where they fit
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int row = row0 + 16 * i, col = col0 + 16 * j;
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
    // STARTER: (void)acc; (void)P; (void)J; (void)L; (void)row0; (void)col0; (void)stage;
    // END SOLUTION
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
    // BEGIN SOLUTION: zero the accumulators (fill_fragment), then the phase loop: the first tiles into buffer 0 and a barrier; every phase but the last loads the next tiles into registers, multiplies the current buffer, stores the next tiles into the other buffer and passes the one barrier of the phase; the last phase only multiplies
    // GOAL: accumulate the warp's 64 x 64 outputs, the next loads overlapping the tensor cores
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
        multiply_phase<BK>(acc, As[cur], Bs[cur], wm, wn);
        // The other buffer was last read in the previous phase, before that phase's barrier.
        store_phase(next, As[1 - cur], Bs[1 - cur]);
        __syncthreads();
    }
    multiply_phase<BK>(acc, As[(phases - 1) % 2], Bs[(phases - 1) % 2], wm, wn);
    // END SOLUTION

    __syncthreads();  // every warp is done reading the tiles: their memory becomes the edge staging
    store_accumulators<VEC>(acc, P, J, L, bm + wm, bn + wn, &As[0][0][0] + warp * 16 * 16);
}

// The ROWS x COLS tile of A (rows x cols, row-major) at (r0, c0) into dst (rows of LD floats): this
// thread's 16-byte segments started as cp.async copies, zeros outside A. cols % 4 == 0, so a segment
// lies wholly inside A or wholly outside it.
template <int ROWS, int COLS, int LD>
__device__ __forceinline__ void copy_tile_async(float* dst, const float* __restrict__ A, int rows, int cols, int r0,
                                                int c0) {
    // BEGIN SOLUTION: for each segment s = threadIdx.x, s += ASYNC_THREADS, s < ROWS * COLS / 4 (row s / (COLS / 4), column 4 (s % (COLS / 4))): __pipeline_memcpy_async(&dst[row * LD + col], source, 16, zero fill), the source &A[(r0 + row) * cols + c0 + col] and zero fill 0 inside A; outside, A itself (not read) and zero fill 16
    // GOAL: start the copies of this thread's share of the tile, zeros outside A
#pragma unroll
    for (int s = threadIdx.x; s < ROWS * COLS / 4; s += ASYNC_THREADS) {
        const int r = s / (COLS / 4), c = (s % (COLS / 4)) * 4;
        const bool in = r0 + r < rows && c0 + c < cols;
        __pipeline_memcpy_async(&dst[r * LD + c], in ? &A[(size_t)(r0 + r) * cols + c0 + c] : A, 16, in ? 0 : 16);
    }
    // STARTER: (void)dst; (void)A; (void)rows; (void)cols; (void)r0; (void)c0;
    // END SOLUTION
}

// Phase ph's tiles into buffer `stage`, its M tile then its N tile (the caller commits them as one group).
__device__ __forceinline__ void copy_phase_async(float* stage, const float* __restrict__ M, const float* __restrict__ N,
                                                 int J, int K, int L, int bm, int bn, int ph) {
    copy_tile_async<ASYNC_BM, ASYNC_BK, ASYNC_LDA>(stage, M, J, K, bm, ph * ASYNC_BK);
    copy_tile_async<ASYNC_BK, BN, ASYNC_LDB>(stage + ASYNC_BM * ASYNC_LDA, N, K, L, ph * ASYNC_BK, bn);
}

// K % 4 == 0 and L % 4 == 0. ASYNC_STAGES buffers of ASYNC_STAGE_FLOATS in dynamic shared memory.
__global__ void __launch_bounds__(ASYNC_THREADS)
MatrixMulKernelAsync(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K,
                     int L) {
    // 128-byte aligned; every buffer, tile and fragment starts a multiple of 32 bytes from here.
    extern __shared__ __align__(128) float smem[];
    const int bm = blockIdx.y * ASYNC_BM, bn = blockIdx.x * BN;
    const int warp = threadIdx.x / 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int phases = (K + ASYNC_BK - 1) / ASYNC_BK;

    FragC acc[FM][FN];
    // BEGIN SOLUTION: zero the accumulators; start phases 0 .. ASYNC_STAGES - 2 (copy_phase_async into buffer s, then __pipeline_commit(), a commit even for a phase past the last); then for every phase ph: __pipeline_wait_prior(ASYNC_STAGES - 2) and __syncthreads(), start phase ph + ASYNC_STAGES - 1 (if it exists) into buffer (ph + ASYNC_STAGES - 1) % ASYNC_STAGES and commit, then multiply_phase<ASYNC_BK> on buffer ph % ASYNC_STAGES
    // GOAL: accumulate the warp's 64 x 64 outputs with the next phases' copies in flight
    // Buffer b's tiles, as multiply_phase reads them.
    auto tile_a = [&](int b) { return reinterpret_cast<const float(*)[ASYNC_LDA]>(smem + b * ASYNC_STAGE_FLOATS); };
    auto tile_b = [&](int b) {
        return reinterpret_cast<const float(*)[ASYNC_LDB]>(smem + b * ASYNC_STAGE_FLOATS + ASYNC_BM * ASYNC_LDA);
    };
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    // One commit group per phase, empty past the last: wait_prior(ASYNC_STAGES - 2) then always
    // means "this thread's copies of phase ph have landed".
#pragma unroll
    for (int s = 0; s < ASYNC_STAGES - 1; ++s) {
        if (s < phases) copy_phase_async(smem + s * ASYNC_STAGE_FLOATS, M, N, J, K, L, bm, bn, s);
        __pipeline_commit();
    }
    for (int ph = 0; ph < phases; ++ph) {
        __pipeline_wait_prior(ASYNC_STAGES - 2);
        // Every thread's copies of phase ph are visible, and every warp is done with phase ph - 1,
        // whose buffer the copies started next overwrite.
        __syncthreads();
        const int next = ph + ASYNC_STAGES - 1;
        if (next < phases) copy_phase_async(smem + (next % ASYNC_STAGES) * ASYNC_STAGE_FLOATS, M, N, J, K, L, bm, bn, next);
        __pipeline_commit();
        multiply_phase<ASYNC_BK>(acc, tile_a(ph % ASYNC_STAGES), tile_b(ph % ASYNC_STAGES), wm, wn);
    }
    // STARTER: (void)phases;
    // END SOLUTION
    __pipeline_wait_prior(0);
    __syncthreads();  // every warp is done reading the tiles: their memory becomes the edge staging
    store_accumulators<true>(acc, P, J, L, bm + wm, bn + wn, smem + warp * 16 * 16);
}

// M, N, P are device pointers. One block of THREADS threads per BM x BN tile of P.
// K and L multiples of 4: MatrixMulKernelAsync, one block of ASYNC_THREADS per ASYNC_BM x BN tile,
// its buffers in dynamic shared memory (above 48 KiB needs the attribute). Otherwise MatrixMulKernel
// (MatrixMulKernel<true> is the register-staged kernel's aligned path: walkthrough 07's step before
// cp.async, one edit of this function away).
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (K % 4 == 0 && L % 4 == 0) {
        const int bytes = ASYNC_STAGES * ASYNC_STAGE_FLOATS * (int)sizeof(float);
        cudaFuncSetAttribute(MatrixMulKernelAsync, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        dim3 dimGrid((L + BN - 1) / BN, (J + ASYNC_BM - 1) / ASYNC_BM);
        MatrixMulKernelAsync<<<dimGrid, ASYNC_THREADS, bytes>>>(M, N, P, J, K, L);
        return;
    }
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
