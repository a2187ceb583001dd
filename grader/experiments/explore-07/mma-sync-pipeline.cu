// Issue #45.3, the candidates past wmma: the 07 kernel on mma.sync.m16n8k8 (TF32) through inline PTX,
// its tiles copied by cp.async into STAGES shared buffers of BK 32 (one barrier per phase), the M
// fragments loaded with ldmatrix and the N fragments with one 32-bit load per value, the next
// k-step's fragments loaded before this one's products. GPU only: the emulator refuses inline PTX
// (docs/emulator.md), so none of this can be a reference as it stands; it measures whether wmma is
// the wall (walkthrough 07, section 7: mma_sync alone 240-248 TFLOP/s, fed from shared 122-140).
//
// Why PTX can beat wmma here: wmma's TF32 shape is 16 x 16 x 8, one load_matrix_sync per fragment,
// element by element (4 LDS.32 a lane), and its element-to-lane layout is hidden, so the kernel can
// neither pick a wider load nor round once per value. m16n8k8's layout is documented (PTX ISA,
// "Matrix fragments for mma.m16n8k8", .tf32): with g = lane / 4 and t = lane % 4,
//   A (16 x 8):  a0 (g, t)   a1 (g + 8, t)   a2 (g, t + 4)   a3 (g + 8, t + 4)
//   B (8 x 8):   b0 (t, g)   b1 (t + 4, g)
//   C (16 x 8):  c0 (g, 2t)  c1 (g, 2t + 1)  c2 (g + 8, 2t)  c3 (g + 8, 2t + 1)
// A's four 8 x 4 quarters are exactly ldmatrix.x4's four 8 x 8 b16 matrices (a 32-bit value is two
// b16: lane l receives row l / 4, b16 columns 2 (l % 4) and 2 (l % 4) + 1, that is float l % 4), so
// one ldmatrix replaces 4 loads. B is k-major in shared memory (rows of N) and ldmatrix's transpose
// works on 16-bit halves, so B is loaded value by value.
//
// Shared layouts, padded so that every load is free of bank conflicts:
// - As[BM][BK + 4]: rows of 144 bytes (16-byte aligned for cp.async and ldmatrix); row r starts at
//   bank 4r mod 32, so ldmatrix's 8 row addresses of a matrix fall in 8 distinct groups of 4 banks;
// - Bs[BK][BN + 8]: row k starts at bank 8k mod 32: b0's lanes (rows t, columns g) hit 32 banks.
//
// TF32: ROUND 0 hands the float32 bits to the tensor cores, which use the top 19 (truncation, inside
// the stage's rule: docs/grading.md, "Truncated inputs"); ROUND 1 rounds each fragment value with
// cvt.rna (what __float_to_tf32 does), once per value per warp that loads it.
//
// Shapes: the cp.async path needs K % 4 == 0 and L % 4 == 0 (16-byte copies of whole segments, zero
// filled past the edges); any other shape goes to the current reference (reference-scalar-path.cuh).
// Parameters (-D): BM BN (block tile), WM WN (warp tile, multiples of 16 and 8), STAGES, ROUND, MINB
// (__launch_bounds__'s blocks per SM), RASTER (block rows per group of the launch order, 0: row by row),
// BPERM (below), INTERLEAVE: where a phase starts the copies of phase ph + STAGES - 1: 0 (default)
// right after the barrier, 1 after its first k-step's fragment loads (their wait overlaps the copies'
// issue), 2 a quarter in each of its 4 k-steps. 1 and 2 keep more values live across the k-steps:
// with 4 warps of 64 x 64 ptxas spills 20-190 bytes (0 only for 128 x 256 tiles with 1).
//
// BPERM 1 (WN 64): which columns of the warp tile an n8 tile holds is the kernel's choice, as long as
// the epilogue agrees. With n8 tile j holding columns 8 n' + j (n' = 0..7) instead of 8 j + n', lane
// (g, t) needs row t of columns 8 g .. 8 g + 7 for its 8 tiles' b0: two 16-byte loads instead of
// 8 four-byte ones (per k-step 4 + 4 wide loads for 32 mma instead of 4 + 16), and holds columns
// 16 t .. 16 t + 15 of rows g and g + 8 of each 16-row tile of P: float4 stores. Rows of Bs are then
// BN floats, unpadded, with the 16-byte groups of row k permuted (XOR of float index bits 2 and 4 by
// k's bits 0 and 1): the 8 lanes of a quarter-warp's 16-byte loads (t = 0..3, g = 2h, 2h + 1) then
// fall in 8 distinct groups of 4 banks.
#include <cuda_runtime.h>
#include <cstdint>
#include "reference-scalar-path.cuh"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#define BK 32
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef ROUND
#define ROUND 0
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef RASTER
#define RASTER 8
#endif
#ifndef BPERM
#define BPERM 0
#endif
#ifndef INTERLEAVE
#define INTERLEAVE 0
#endif
#define MI (WM / 16)  // m16 tiles of a warp
#define NI (WN / 8)   // n8 tiles of a warp
#define THREADS ((BM / WM) * (BN / WN) * 32)
#define LDA (BK + 4)
#define LDB (BPERM ? BN : BN + 8)
#define STAGE_FLOATS (BM * LDA + BK * LDB)
static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "warp tiles must tile the block");
static_assert(!BPERM || WN == 64, "BPERM's swizzle and loads are written for 8 n8 tiles a warp");
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copies per thread");

namespace mma_ptx {

__device__ __forceinline__ uint32_t shared_address(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes global -> shared, bypassing L1; `in` false: 16 zero bytes (src-size 0), src not read.
__device__ __forceinline__ void copy16(float* dst, const float* src, bool in) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src),
                 "r"(in ? 16 : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void wait_prior() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ uint32_t tf32_bits(float x) {
#if ROUND
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
#else
    return __float_as_uint(x);
#endif
}

// Column c of row k of Bs as stored (BPERM: 16-byte groups permuted within each 32 floats).
__device__ __forceinline__ int bs_col(int k, int c) { return BPERM ? c ^ (((k & 1) << 2) | ((k & 2) << 3)) : c; }

__device__ __forceinline__ void mma_16x8x8(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Phase ph's tiles (columns ph BK.. of M's block rows, rows ph BK.. of N's block columns) into
// buffer `s`, the copies i with i % parts == part of this thread's. K % 4 == 0 and L % 4 == 0: a
// 4-wide segment is wholly inside or wholly outside.
__device__ __forceinline__ void copy_phase(float* s, const float* __restrict__ M, const float* __restrict__ N,
                                           int J, int K, int L, int bm, int bn, int k0, int part = 0, int parts = 1) {
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / THREADS; ++i) {
        if (i % parts != part) continue;
        const int seg = threadIdx.x + i * THREADS, r = seg / (BK / 4), c = (seg % (BK / 4)) * 4;
        const bool in = bm + r < J && k0 + c < K;
        copy16(&s[r * LDA + c], in ? &M[(size_t)(bm + r) * K + k0 + c] : M, in);
    }
    float* b = s + BM * LDA;
#pragma unroll
    for (int i = 0; i < BK * BN / 4 / THREADS; ++i) {
        if (i % parts != part) continue;
        const int seg = threadIdx.x + i * THREADS, r = seg / (BN / 4), c = (seg % (BN / 4)) * 4;
        const bool in = k0 + r < K && bn + c < L;
        copy16(&b[r * LDB + bs_col(r, c)], in ? &N[(size_t)(k0 + r) * L + bn + c] : N, in);
    }
}

// The warp's fragments of k-step ks (columns 8 ks.. of its M rows, rows 8 ks.. of its N columns).
__device__ __forceinline__ void load_fragments(uint32_t (&a)[MI][4], uint32_t (&b)[NI][2], const float* As,
                                               const float* Bs, int wm, int wn, int ks) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    // ldmatrix: lanes 8q..8q+7 give the row addresses of matrix q: rows +8 for q odd, columns +4 for q >= 2.
    const int q = lane / 8, row = lane % 8 + (q & 1) * 8, col = ks * 8 + (q >> 1) * 4;
#pragma unroll
    for (int i = 0; i < MI; ++i) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                     : "r"(shared_address(&As[(wm + 16 * i + row) * LDA + col])));
#if ROUND
#pragma unroll
        for (int v = 0; v < 4; ++v) a[i][v] = tf32_bits(__uint_as_float(a[i][v]));
#endif
    }
#if BPERM
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // b0 from row t, b1 from row t + 4
        const int k = ks * 8 + t + 4 * h;
        const float4 lo = *reinterpret_cast<const float4*>(&Bs[k * LDB + bs_col(k, wn + 8 * g)]);
        const float4 hi = *reinterpret_cast<const float4*>(&Bs[k * LDB + bs_col(k, wn + 8 * g + 4)]);
        const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
        for (int j = 0; j < NI; ++j) b[j][h] = tf32_bits(v[j]);
    }
#else
#pragma unroll
    for (int j = 0; j < NI; ++j) {
        b[j][0] = tf32_bits(Bs[(ks * 8 + t) * LDB + wn + 8 * j + g]);
        b[j][1] = tf32_bits(Bs[(ks * 8 + t + 4) * LDB + wn + 8 * j + g]);
    }
#endif
}

__global__ void __launch_bounds__(THREADS, MINB)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    extern __shared__ __align__(128) float smem[];
    // Launch order: RASTER block rows at a time, column by column, so that the blocks resident
    // together share their M rows and N columns in L2.
    const int grid_n = (L + BN - 1) / BN, grid_m = (J + BM - 1) / BM;
    int block_m = blockIdx.x / grid_n, block_n = blockIdx.x % grid_n;
    if (RASTER > 0) {
        const int per_group = RASTER * grid_n, first = blockIdx.x / per_group * RASTER;
        const int rows = min(grid_m - first, RASTER);
        block_m = first + blockIdx.x % per_group % rows;
        block_n = blockIdx.x % per_group / rows;
    }
    const int bm = block_m * BM, bn = block_n * BN;
    const int warp = threadIdx.x / 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int phases = (K + BK - 1) / BK;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    // STAGES - 1 phases in flight before the first product; one commit group per phase, empty
    // past the last, so that wait_prior<STAGES - 2> always means "phase ph has landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < phases) copy_phase(smem + s * STAGE_FLOATS, M, N, J, K, L, bm, bn, s * BK);
        commit();
    }
    for (int ph = 0; ph < phases; ++ph) {
        wait_prior<STAGES - 2>();
        // Phase ph is visible to every warp, and every warp is done with phase ph - 1, whose buffer
        // the copy below overwrites.
        __syncthreads();
        const int next = ph + STAGES - 1;
        float* next_buffer = smem + (next % STAGES) * STAGE_FLOATS;
        if (!INTERLEAVE && next < phases) copy_phase(next_buffer, M, N, J, K, L, bm, bn, next * BK);
        const float* As = smem + (ph % STAGES) * STAGE_FLOATS;
        const float* Bs = As + BM * LDA;
        uint32_t a[2][MI][4], b[2][NI][2];
        load_fragments(a[0], b[0], As, Bs, wm, wn, 0);
        if (INTERLEAVE == 1 && next < phases) copy_phase(next_buffer, M, N, J, K, L, bm, bn, next * BK);
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks) {
            if (ks + 1 < BK / 8) load_fragments(a[(ks + 1) % 2], b[(ks + 1) % 2], As, Bs, wm, wn, ks + 1);
            if (INTERLEAVE == 2 && next < phases) copy_phase(next_buffer, M, N, J, K, L, bm, bn, next * BK, ks, BK / 8);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_16x8x8(acc[i][j], a[ks % 2][i], b[ks % 2][j]);
        }
        commit();  // the phase's copies as one group, all started by now
    }
    wait_prior<0>();

    // C's layout is documented: lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each
    // 16 x 8 tile. L % 4 == 0 and the column is even, so a pair inside P is whole and 8-byte aligned.
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#if BPERM
    // Lane (g, t): columns 16 t + j (c0 of tile j) and 16 t + 8 + j (c1) of rows g (c0, c1) and g + 8 (c2, c3).
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = bm + wm + 16 * i + g + 8 * h;
            if (row >= J) continue;
#pragma unroll
            for (int q = 0; q < 4; ++q) {  // float4 q: columns 16 t + 4 q ..
                const int col = bn + wn + 16 * t + 4 * q, j = (q % 2) * 4, e = 2 * h + q / 2;
                if (col < L)
                    *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) =
                        make_float4(acc[i][j][e], acc[i][j + 1][e], acc[i][j + 2][e], acc[i][j + 3][e]);
            }
        }
#else
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const int row = bm + wm + 16 * i + g, col = bn + wn + 8 * j + 2 * t;
            if (col >= L) continue;
            if (row < J) *reinterpret_cast<float2*>(&P[(size_t)row * L + col]) = make_float2(acc[i][j][0], acc[i][j][1]);
            if (row + 8 < J)
                *reinterpret_cast<float2*>(&P[(size_t)(row + 8) * L + col]) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
#endif
}

}  // namespace mma_ptx

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (K % 4 != 0 || L % 4 != 0) {
        ref::launch_matmul(M, N, P, J, K, L);
        return;
    }
    const int bytes = STAGES * STAGE_FLOATS * (int)sizeof(float);
    static bool configured = false;
    if (!configured) {
        cudaFuncSetAttribute(mma_ptx::MatrixMulKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        configured = true;
    }
    const int blocks = ((J + BM - 1) / BM) * ((L + BN - 1) / BN);
    mma_ptx::MatrixMulKernel<<<blocks, THREADS, bytes>>>(M, N, P, J, K, L);
}
