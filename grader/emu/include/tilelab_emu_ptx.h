// tilelab CPU emulator: the kit's PTX wrappers (<tilelab/mma_ptx.cuh>; the GPU's header,
// grader/include/tilelab/mma_ptx.cuh, says what each does), run on the CPU with the instructions'
// semantics (docs/emulator.md, "The kit's PTX wrappers").
//
// - mma_m16n8k8_tf32 is a warp collective, as wmma::mma_sync (tilelab_emu_wmma.h, runtime/wmma.cpp):
//   each lane brings its fragments; when the warp has arrived the runtime gathers A, B and C by the
//   PTX ISA's m16n8k8 .tf32 fragment tables (tilelab_emu_wmma_layout.h: the first elements of tf32
//   m16n16k8's), truncates A and B to TF32 (the top 19 bits, as the tensor cores read a float and as
//   the emulator's wmma does), and scatters D = A B + C (exact products, float32 sums in k order
//   from C). The count build counts 16 x 8 x 8 tensor multiply-adds a warp-level call. a, b and d
//   must be the lane's registers, local arrays on its stack: the runtime reads them unseen by the
//   builds, so an operand naming global or shared memory (a reference into M: legal C++, a load on
//   a GPU) is refused (ptx-operand, runtime/wmma.cpp's registers_only), as wmma::mma_sync's are.
// - ldmatrix_x4 is a warp collective that exchanges only addresses: the runtime checks each lane's
//   row (16-byte aligned shared memory, else ptx-operand) and gives each lane the four addresses it
//   reads (word l % 4 of row l / 4 of each matrix); the lane then loads them itself, here, in the
//   student's translation unit, so the asan build checks each row against its array's end, the race
//   build orders the reads against the tile's writers, and the count build counts four warp-level
//   32-bit shared loads, one a matrix: each covers the 8 rows of 16 bytes of one of ldmatrix's
//   8-address phases, so its wavefronts are that phase's.
// - cp_async_16 loads its 16 bytes of global memory here when it is called (a 16-byte global load
//   of the student's line: the asan build checks it against the buffer's end, the race build
//   against host memory, the count build counts it) and hands them to the runtime; the copy lands
//   at the cp_async_wait that covers its group: the wait stores it, here (a 16-byte shared store of
//   the wait's line in every build). Until then the destination is undefined: a NaN written when
//   the copy starts (the plain and asan builds, where the asan build also checks the destination
//   against its array's end, at the copy's line), or, in the race build, the NaN of unwritten shared
//   memory with its shadow marked unwritten (hooks_race.cpp): a read of it before the copy lands is
//   uninitialized-shared when its value reaches P, and the copy's start is a write that races with
//   the other threads' accesses of that barrier interval (a buffer refilled while another warp
//   still reads it).
//
// Every wrapper is always inlined, so each build sees its loads and stores at the student's line
// (findings skip frames of tilelab_emu*.h files); the collectives name the call site through
// default arguments, as the wmma functions do.
#ifndef TILELAB_EMU_PTX_H
#define TILELAB_EMU_PTX_H

#include <cstdint>
#include <cstring>

#include "tilelab_emu.h"
#include "tilelab_emu_ptx_calls.h"
#include "tilelab_emu_wmma.h"
#include "tilelab_emu_wmma_layout.h"

__attribute__((always_inline)) inline void cp_async_16(float* smem_dst, const float* gmem_src, bool in_bounds,
                                                       const char* file = __builtin_FILE(),
                                                       int line = __builtin_LINE()) {
  if (!::tlemu::ptx::cp_async_begin(smem_dst, gmem_src, in_bounds, file, line)) return;
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (in_bounds) {
    const float4 s = *reinterpret_cast<const float4*>(gmem_src);  // one 16-byte load, as cp.async's
    v[0] = s.x, v[1] = s.y, v[2] = s.z, v[3] = s.w;
  }
  if (::tlemu::ptx::issue_writes_nan()) {
    const float nan = ::tlemu::wmma::bits_float(::tlemu::ptx::kUnlandedBits);
    *reinterpret_cast<float4*>(smem_dst) = make_float4(nan, nan, nan, nan);
  }
  ::tlemu::ptx::cp_async_issue(smem_dst, v);
}

inline void cp_async_commit() { ::tlemu::ptx::cp_async_commit(); }

template <int N>
__attribute__((always_inline)) inline void cp_async_wait() {
  static_assert(N >= 0, "cp_async_wait<N>: N is how many of the newest groups may stay in flight (0 or more)");
  float* dst = nullptr;
  float v[4];
  while (::tlemu::ptx::cp_async_land(N, dst, v))  // the copy lands: one 16-byte shared store
    *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
}

__attribute__((always_inline)) inline void ldmatrix_x4(uint32_t (&r)[4], const float* smem_row,
                                                       const char* file = __builtin_FILE(),
                                                       int line = __builtin_LINE()) {
  namespace tw = ::tlemu::wmma;
  const void* src[4] = {smem_row, smem_row, smem_row, smem_row};
  tw::Call call{tw::op_ldmatrix, "ldmatrix_x4", smem_row, 0, 0, 4, {}};
  call.frag[0] = tw::FragRef{tw::use_a, 16, 8, 8, tw::elem_tf32, 4, src};
  ::tlemu::wmma_sync(call, file, line);
  for (int q = 0; q < 4; ++q) r[q] = tw::float_bits(*static_cast<const float*>(src[q]));
}

__attribute__((always_inline)) inline void mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2],
                                                            const char* file = __builtin_FILE(),
                                                            int line = __builtin_LINE()) {
  namespace tw = ::tlemu::wmma;
  tw::Call call{tw::op_mma, "mma_m16n8k8_tf32", nullptr, 0, 0, 0, {}};
  call.frag[0] = tw::FragRef{tw::use_acc, 16, 8, 8, tw::elem_float, 4, d};
  call.frag[1] = tw::FragRef{tw::use_a, 16, 8, 8, tw::elem_tf32, 4, const_cast<uint32_t*>(a)};
  call.frag[2] = tw::FragRef{tw::use_b, 16, 8, 8, tw::elem_tf32, 2, const_cast<uint32_t*>(b)};
  call.frag[3] = tw::FragRef{tw::use_acc, 16, 8, 8, tw::elem_float, 4, d};
  ::tlemu::wmma_sync(call, file, line);
}

// cvt.rna.tf32.f32 (wmma's __float_to_tf32), as the bits an a or b operand holds.
inline uint32_t to_tf32(float x) { return ::tlemu::wmma::float_bits(::nvcuda::wmma::__float_to_tf32(x)); }

#endif  // TILELAB_EMU_PTX_H
