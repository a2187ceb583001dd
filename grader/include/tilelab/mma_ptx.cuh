// The kit's PTX wrappers for tensor-core kernels (walkthrough 07: "the PTX instruction, wrapped"):
// named functions a student's kernel calls for three instructions CUDA C++ has no plain name for, so
// that the same kernel builds with nvcc (this file: the inline PTX) and on the CPU emulator
// (grader/emu/include/tilelab/mma_ptx.cuh: the same functions, emulated with these semantics and
// seen by its race, asan and count builds; docs/emulator.md, "The kit's PTX wrappers").
//
//   #include <tilelab/mma_ptx.cuh>
//
// A student's file may include this header and no other file of the kit (docs/integrity.md); it may
// not write `asm` itself (the emulator refuses it in a kernel). sm_80 and later.
//
// - cp_async_16(smem_dst, gmem_src, in_bounds): cp.async.cg.shared.global of 16 bytes (4 floats),
//   global -> shared without passing through registers or L1; `in_bounds` false writes 16 zero bytes
//   and reads nothing (src-size 0). Both addresses 16-byte aligned. The copy runs in the background:
//   its destination is undefined until a cp_async_wait that covers its group.
// - cp_async_commit(): closes the calling thread's group of copies started since the last commit.
// - cp_async_wait<N>(): waits until at most N of the thread's newest committed groups are in flight
//   (its older groups have landed). Only the thread's own copies: a __syncthreads() after it makes
//   the landed tile visible to the other threads of the block.
// - ldmatrix_x4(r, smem_row): ldmatrix.sync.aligned.m8n8.x4.shared.b16, warp-wide: lanes 8q .. 8q + 7
//   give the addresses of the 8 rows (16 bytes, 4 floats, 16-byte aligned) of matrix q; lane l
//   receives in r[q] the 32-bit word l % 4 of row l / 4 of matrix q. For a 16 x 8 TF32 tile A of
//   row-major floats, lane l giving &A[l % 8 + 8 (q & 1)][4 (q >> 1)] (q = l / 8) receives exactly
//   mma_m16n8k8_tf32's fragment a.
// - mma_m16n8k8_tf32(d, a, b): mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, warp-wide,
//   d += A (16 x 8) * B (8 x 8). With g = lane / 4 and t = lane % 4 (PTX ISA, "Matrix Fragments for
//   mma.m16n8k8", .tf32):
//     a[0] A(g, t)  a[1] A(g + 8, t)  a[2] A(g, t + 4)  a[3] A(g + 8, t + 4)
//     b[0] B(t, g)  b[1] B(t + 4, g)
//     d[0] D(g, 2t) d[1] D(g, 2t + 1) d[2] D(g + 8, 2t) d[3] D(g + 8, 2t + 1)
//   a and b hold float bits; the tensor cores read their top 19 (the mantissa truncated to 10 bits),
//   or round them first with to_tf32.
// - to_tf32(x): cvt.rna.tf32.f32, x rounded to TF32 (to nearest, ties away from zero), as bits for a
//   or b; __float_as_uint(x) hands x over unrounded.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "tilelab/mma_ptx.cuh: cp.async, ldmatrix and mma.sync.m16n8k8 with TF32 need sm_80 or later"
#endif

__device__ __forceinline__ void cp_async_16(float* smem_dst, const float* gmem_src, bool in_bounds) {
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(in_bounds ? 16 : 0));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
    static_assert(N >= 0, "cp_async_wait<N>: N is how many of the newest groups may stay in flight (0 or more)");
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const float* smem_row) {
    const uint32_t row = static_cast<uint32_t>(__cvta_generic_to_shared(smem_row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(row));
}

__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ uint32_t to_tf32(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}
