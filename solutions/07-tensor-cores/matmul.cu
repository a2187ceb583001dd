// Stage 07-tensor-cores: the 06 kernel's tiles, multiplied by tensor cores.
//
// P = M N with M J x K, N K x L, P J x L, row-major float, any sizes >= 1, computed in TF32: the
// tensor cores read 10 of an input's 23 mantissa bits, the products are summed in float32. One
// mma.sync.m16n8k8 of a warp is a 16 x 8 x 8 product (1024 multiply-adds); its 32 lanes hold the
// operands as fragments whose element-to-lane layout the PTX ISA documents (<tilelab/mma_ptx.cuh>
// says it lane by lane). The kit's header gives the three instructions a name on both backends
// (nvcc and the emulator): cp_async_16, ldmatrix_x4, mma_m16n8k8_tf32. Walkthrough 07 reaches this
// kernel step by step from a wmma kernel, with each step's measured effect; this is its last step:
// - a block computes BM x BN = 128 x 128 of P with 4 warps; warp w owns a 64 x 64 quarter of it,
//  4 x 8 accumulator tiles of 16 x 8 (128 floats a lane: each fragment of M feeds 8 products, each
//  of N 4, as a register tile's value does in 06);
// - phases BK = 32 deep (4 k-steps of 8), STAGES = 3 of them in shared memory: the copies of the
//  next two phases are in flight (cp.async, global -> shared without registers, zero-filled past
//  the edges) while one is multiplied; one barrier a phase;
// - M's fragments by ldmatrix_x4 (one instruction for a 16 x 8 tile), N's by 32-bit shared loads,
//  rows padded so that neither has bank conflicts; the next k-step's fragments loaded before this
//  one's products;
// - the inputs go to the tensor cores unrounded (they truncate to TF32; the stage's rule allows it,
//  docs/grading.md); P is stored from the accumulators, whose layout is documented.
// VEC (K % 4 == 0 and L % 4 == 0, chosen on the host): every 16-byte segment of a tile lies wholly
// inside its matrix or wholly outside, and is 16-byte aligned: one cp_async_16. Otherwise (every
// hidden shape but a few) the same kernel stages its tiles with 4-byte loads and plain stores.
#include <cuda_runtime.h>
#include <tilelab/mma_ptx.cuh>

#include <cstdint>

constexpr int BM = 128, BN = 128, BK = 32;  // block tile, phase depth (4 k-steps of 8)
constexpr int WM = 64, WN = 64;             // warp tile: MI x NI tiles of 16 x 8
constexpr int MI = WM / 16, NI = WN / 8;
constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
constexpr int STAGES = 3;                   // phases in shared memory: 2 in flight while one is multiplied
constexpr int RASTER = 8;                   // block rows per group of the launch order
// Padded rows: As rows of 36 floats (144 bytes, 16-byte aligned for cp.async and ldmatrix; row r at
// bank 4r mod 32, so ldmatrix's 8 rows fall in 8 distinct groups of 4 banks); Bs rows of 136 (row k
// at bank 8k mod 32: b[0]'s lanes, rows t and columns g, hit 32 banks).
constexpr int LDA = BK + 4, LDB = BN + 8;
constexpr int STAGE_FLOATS = BM * LDA + BK * LDB;
constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * (int)sizeof(float);
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copies per thread");

// Four elements of a rows x cols matrix A from (r, c) into dst, 0 outside A: with VEC one 16-byte
// cp.async (cols % 4 == 0: the segment is wholly inside or outside), else 4 loads and plain stores.
template <bool VEC>
__device__ __forceinline__ void copy4(float* dst, const float* __restrict__ A, int rows, int cols, int r, int c) {
    if (VEC) {
        // BEGIN SOLUTION: one cp_async_16 into dst from &A[r * cols + c] (a size_t product) when r < rows and c < cols; otherwise in_bounds false, which writes 16 zero bytes and reads nothing (give A itself as the source: it is not read)
        // GOAL: start the copy of the 4 floats into shared memory, zeros outside A
        const bool in = r < rows && c < cols;
        cp_async_16(dst, in ? &A[(size_t)r * cols + c] : A, in);
        // STARTER: (void)dst; (void)A; (void)rows; (void)cols; (void)r; (void)c;
        // END SOLUTION
    } else {
#pragma unroll
        for (int x = 0; x < 4; ++x) dst[x] = r < rows && c + x < cols ? A[(size_t)r * cols + c + x] : 0.0f;
    }
}

// Phase k0's tiles (columns k0.. of the block's M rows, rows k0.. of its N columns) into stage s.
template <bool VEC>
__device__ __forceinline__ void copy_phase(float* s, const float* __restrict__ M, const float* __restrict__ N,
                                           int J, int K, int L, int bm, int bn, int k0) {
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / THREADS; ++i) {
        const int seg = threadIdx.x + i * THREADS, r = seg / (BK / 4), c = (seg % (BK / 4)) * 4;
        copy4<VEC>(&s[r * LDA + c], M, J, K, bm + r, k0 + c);
    }
    float* b = s + BM * LDA;
#pragma unroll
    for (int i = 0; i < BK * BN / 4 / THREADS; ++i) {
        const int seg = threadIdx.x + i * THREADS, r = seg / (BN / 4), c = (seg % (BN / 4)) * 4;
        copy4<VEC>(&b[r * LDB + c], N, K, L, k0 + r, bn + c);
    }
}

// The warp's fragments of k-step ks: a by ldmatrix_x4 (lanes 8q .. 8q + 7 give the rows of quarter
// q: 8 rows lower for q odd, 4 columns right for q >= 2), b value by value (b[0] row t, b[1] row
// t + 4, column g of each n8 tile).
__device__ __forceinline__ void load_fragments(uint32_t (&a)[MI][4], uint32_t (&b)[NI][2], const float* As,
                                               const float* Bs, int wm, int wn, int ks) {
    // BEGIN SOLUTION: with lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, q = lane / 8: a[i] = ldmatrix_x4 of the row &As[(wm + 16 * i + lane % 8 + 8 * (q & 1)) * LDA + ks * 8 + 4 * (q >> 1)]; b[j][0] = the bits (__float_as_uint) of Bs[(ks * 8 + t) * LDB + wn + 8 * j + g], b[j][1] those of row ks * 8 + t + 4
    // GOAL: the warp's fragments of k-step ks in mma_m16n8k8_tf32's layout (ldmatrix_x4 for M)
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int q = lane / 8, row = lane % 8 + (q & 1) * 8, col = ks * 8 + (q >> 1) * 4;
#pragma unroll
    for (int i = 0; i < MI; ++i) ldmatrix_x4(a[i], &As[(wm + 16 * i + row) * LDA + col]);
#pragma unroll
    for (int j = 0; j < NI; ++j) {
        b[j][0] = __float_as_uint(Bs[(ks * 8 + t) * LDB + wn + 8 * j + g]);
        b[j][1] = __float_as_uint(Bs[(ks * 8 + t + 4) * LDB + wn + 8 * j + g]);
    }
    // STARTER: (void)As; (void)Bs; (void)wm; (void)wn; (void)ks;
    // STARTER: for (int i = 0; i < MI; ++i) a[i][0] = a[i][1] = a[i][2] = a[i][3] = 0u;
    // STARTER: for (int j = 0; j < NI; ++j) b[j][0] = b[j][1] = 0u;
    // END SOLUTION
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    extern __shared__ __align__(128) float smem[];
    // Launch order: RASTER block rows at a time, column by column, so that the blocks resident
    // together share their M rows and N columns in L2.
    const int grid_n = (L + BN - 1) / BN, grid_m = (J + BM - 1) / BM;
    const int per_group = RASTER * grid_n, first = blockIdx.x / per_group * RASTER;
    const int rows = grid_m - first < RASTER ? grid_m - first : RASTER;
    const int bm = (first + blockIdx.x % per_group % rows) * BM, bn = (blockIdx.x % per_group / rows) * BN;
    const int warp = threadIdx.x / 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int phases = (K + BK - 1) / BK;

    float acc[MI][NI][4];
    // BEGIN SOLUTION: zero the accumulators; copy phases 0 .. STAGES - 2 into stages 0 .. STAGES - 2 (copy_phase), one cp_async_commit after each, even past the last phase; then for each phase ph: cp_async_wait<STAGES - 2>(), __syncthreads(), start the copy of phase ph + STAGES - 1 into its stage (if it exists), load the fragments of k-step 0 and, for each k-step, those of the next one before this one's mma_m16n8k8_tf32 (acc[i][j], a[i], b[j]) for every i, j; a cp_async_commit at the end of the phase; after the loop, cp_async_wait<0>()
    // GOAL: the pipelined phase loop, STAGES - 1 phases' copies in flight
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;
    // STAGES - 1 phases in flight before the first product; one group a phase (empty past the last,
    // and without VEC), so that cp_async_wait<STAGES - 2> always means "phase ph has landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < phases) copy_phase<VEC>(smem + s * STAGE_FLOATS, M, N, J, K, L, bm, bn, s * BK);
        cp_async_commit();
    }
    for (int ph = 0; ph < phases; ++ph) {
        cp_async_wait<STAGES - 2>();
        // Phase ph is visible to every warp, and every warp is done with phase ph - 1, whose stage
        // the copies below overwrite.
        __syncthreads();
        const int next = ph + STAGES - 1;
        if (next < phases) copy_phase<VEC>(smem + (next % STAGES) * STAGE_FLOATS, M, N, J, K, L, bm, bn, next * BK);
        const float* As = smem + (ph % STAGES) * STAGE_FLOATS;
        const float* Bs = As + BM * LDA;
        uint32_t a[2][MI][4], b[2][NI][2];  // this k-step's fragments and the next's
        load_fragments(a[0], b[0], As, Bs, wm, wn, 0);
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks) {
            if (ks + 1 < BK / 8) load_fragments(a[(ks + 1) % 2], b[(ks + 1) % 2], As, Bs, wm, wn, ks + 1);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_m16n8k8_tf32(acc[i][j], a[ks % 2][i], b[ks % 2][j]);
        }
        cp_async_commit();  // the phase's copies as one group
    }
    cp_async_wait<0>();
    // STARTER: (void)M; (void)N; (void)K; (void)bm; (void)bn; (void)wm; (void)wn; (void)phases;
    // END SOLUTION

    // Lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 tile. With VEC
    // (L % 4 == 0, the column even) a pair inside P is whole and 8-byte aligned.
    // BEGIN SOLUTION: with lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, for each tile (i, j) and h = 0, 1: row bm + wm + 16 * i + g + 8 * h, column bn + wn + 8 * j + 2 * t; skip it outside P; with VEC store acc[i][j][2h] and [2h + 1] as one float2, otherwise one by one, the second only if column + 1 < L
    // GOAL: store the accumulators that belong to P, from the layout mma_m16n8k8_tf32 documents
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = bm + wm + 16 * i + g + 8 * h, col = bn + wn + 8 * j + 2 * t;
                if (row >= J || col >= L) continue;
                float* p = &P[(size_t)row * L + col];
                if (VEC) {
                    *reinterpret_cast<float2*>(p) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                } else {
                    p[0] = acc[i][j][2 * h];
                    if (col + 1 < L) p[1] = acc[i][j][2 * h + 1];
                }
            }
    // STARTER: (void)P; (void)J; (void)L; (void)acc;
    // END SOLUTION
}

template <bool VEC>
void launch_tiles(const float* M, const float* N, float* P, int J, int K, int L) {
    cudaFuncSetAttribute(MatrixMulKernel<VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES);
    const int blocks = ((J + BM - 1) / BM) * ((L + BN - 1) / BN);
    MatrixMulKernel<VEC><<<blocks, THREADS, SHARED_BYTES>>>(M, N, P, J, K, L);
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (K % 4 == 0 && L % 4 == 0)
        launch_tiles<true>(M, N, P, J, K, L);
    else
        launch_tiles<false>(M, N, P, J, K, L);
}
