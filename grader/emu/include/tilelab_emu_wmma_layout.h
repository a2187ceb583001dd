// tilelab CPU emulator: where each element of a warp's wmma fragment lives, and what a lane brings to
// a wmma operation. Shared by the student-facing side (tilelab_emu_wmma.h, <mma.h>) and the runtime
// (runtime/wmma.cpp), so that the loads a lane makes and the product the warp computes agree on one
// ownership map. No other header is needed here.
//
// THE OWNERSHIP (CUDA leaves it unspecified; this one is the PTX ISA's mma.sync fragment layout,
// "Matrix Fragments for mma.m16n8k8" (.tf32) and "for mma.m16n8k16" (.f16), tiled to the wmma
// shapes). With g = lane / 4 and t = lane % 4, element i of a lane's fragment holds (row, col) of its
// matrix (matrix_a: m x k, matrix_b: k x n, accumulator: m x n):
//
//   tf32 m16n16k8 (two mma.m16n8k8 side by side in n):
//     matrix_a 16x8   4 elements  row = g + 8*(i&1)            col = t + 4*(i>>1)
//     matrix_b 8x16   4 elements  row = t + 4*(i&1)            col = g + 8*(i>>1)
//     accumulator     8 elements  row = g + 8*((i>>1)&1)       col = 2t + (i&1) + 8*(i>>2)
//   half m16n16k16 (two mma.m16n8k16 side by side in n):
//     matrix_a 16x16  8 distinct  row = g + 8*((i>>1)&1)       col = 2t + (i&1) + 8*(i>>2)
//     matrix_b 16x16  8 distinct  row = 2t + (i&1) + 8*((i>>1)&1)  col = g + 8*(i>>2)
//     accumulator     8 elements  as tf32's accumulator
//   half m32n8k16 (two mma.m16n8k16 stacked in m):
//     matrix_a 32x16 16 distinct  row = (m16n16k16's row of i&7) + 16*(i>>3), col as m16n16k16's of i&7
//     matrix_b 16x8   4 distinct  row = 2t + (i&1) + 8*(i>>1)  col = g
//     accumulator     8 elements  row = g + 8*((i>>1)&1) + 16*(i>>2)  col = 2t + (i&1)
//   half m8n32k16 (the top half of four mma.m16n8k16 side by side in n):
//     matrix_a 8x16   4 distinct  row = g                      col = 2t + (i&1) + 8*(i>>1)
//     matrix_b 16x32 16 distinct  row = 2t + (i&1) + 8*((i>>1)&1)  col = g + 8*(i>>2)
//     accumulator     8 elements  row = g                      col = 2t + (i&1) + 8*(i>>1)
//
// CUDA's half matrix_a and matrix_b fragments have 16 elements (num_elements) whatever the shape,
// more than a lane's share of some matrices (on Volta each such element was held twice). Where a
// lane's share is U < 16 distinct elements, x[i] for i >= U is a copy of x[i % U]: load_matrix_sync
// fills the copies, elementwise code applied to all of x[] keeps them equal, and mma_sync reads the
// first U.
#ifndef TILELAB_EMU_WMMA_LAYOUT_H
#define TILELAB_EMU_WMMA_LAYOUT_H

#include <cstddef>

namespace tlemu {
namespace wmma {

enum Use : int { use_a = 0, use_b = 1, use_acc = 2 };
enum Elem : int { elem_tf32 = 0, elem_half = 1, elem_float = 2 };  // tf32 and float are stored as float

// The distinct elements a lane holds (U above) of a supported fragment; 0 for anything else.
constexpr int distinct_elements(int use, int m, int n, int k, int elem) {
  if (elem == elem_tf32 || (elem == elem_float && use == use_acc && k == 8)) {
    if (m != 16 || n != 16 || k != 8) return 0;
    return use == use_acc ? (elem == elem_float ? 8 : 0) : 4;
  }
  if (k != 16) return 0;
  const int mn = m * 100 + n;
  if (use == use_acc) return mn == 1616 || mn == 3208 || mn == 832 ? 8 : 0;
  if (elem != elem_half) return 0;
  if (mn == 1616) return 8;
  if (mn == 3208) return use == use_a ? 16 : 4;
  if (mn == 832) return use == use_a ? 4 : 16;
  return 0;
}

// The distinct elements of an operand of a product the runtime computes (wmma.cpp): the wmma shapes
// above, and PTX's mma.m16n8k8 (.tf32, tilelab_emu_ptx.h): a 4, b 2, c/d 4, whose (row, col) are the
// first elements of tf32 m16n16k8's (element_at's k == 8 formulas). Not for wmma's fragment types:
// CUDA has no wmma fragment of 16, 8, 8.
constexpr int operand_elements(int use, int m, int n, int k, int elem) {
  if (m == 16 && n == 8 && k == 8) return use == use_b ? 2 : 4;
  return distinct_elements(use, m, n, k, elem);
}

// Row and column, in its matrix, of element i (< distinct_elements) of lane `lane`'s fragment.
constexpr void element_at(int use, int m, int n, int k, int lane, int i, int& row, int& col) {
  (void)n;  // the shapes differ in m and k
  const int g = lane >> 2, t = lane & 3;
  if (k == 8) {  // tf32 m16n16k8, and m16n8k8 (its elements 0..3 of a and c, 0..1 of b)
    if (use == use_a) row = g + 8 * (i & 1), col = t + 4 * (i >> 1);
    else if (use == use_b) row = t + 4 * (i & 1), col = g + 8 * (i >> 1);
    else row = g + 8 * ((i >> 1) & 1), col = 2 * t + (i & 1) + 8 * (i >> 2);
    return;
  }
  if (m == 16) {  // m16n16k16
    if (use == use_b) row = 2 * t + (i & 1) + 8 * ((i >> 1) & 1), col = g + 8 * (i >> 2);
    else row = g + 8 * ((i >> 1) & 1), col = 2 * t + (i & 1) + 8 * (i >> 2);
  } else if (m == 32) {  // m32n8k16
    if (use == use_a) {
      const int j = i & 7;
      row = g + 8 * ((j >> 1) & 1) + 16 * (i >> 3), col = 2 * t + (j & 1) + 8 * (j >> 2);
    } else if (use == use_b) {
      row = 2 * t + (i & 1) + 8 * (i >> 1), col = g;
    } else {
      row = g + 8 * ((i >> 1) & 1) + 16 * (i >> 2), col = 2 * t + (i & 1);
    }
  } else {  // m8n32k16
    if (use == use_b) row = 2 * t + (i & 1) + 8 * ((i >> 1) & 1), col = g + 8 * (i >> 2);
    else row = g, col = 2 * t + (i & 1) + 8 * (i >> 1);
  }
}

// One fragment as the runtime sees it: its kind and its lane's storage (float, or tlemu::f16 for half: tilelab_emu_f16.h).
struct FragRef {
  int use, m, n, k, elem, count;  // count: num_elements
  void* x;
};

// op_ldmatrix: PTX's ldmatrix.x4 (tilelab_emu_ptx.h): ptr is the lane's row address, frag[0].x the
// lane's `const void* src[4]`, which the runtime fills with the addresses the lane then loads.
enum Op : int { op_load = 0, op_store = 1, op_mma = 2, op_ldmatrix = 3 };

// What one lane brings to a wmma operation (tlemu::wmma_sync): for load and store the memory it
// names (checked: the same for every lane, 32-byte aligned, ldm a multiple of 16 bytes), for mma
// the four fragments (d = a * b + c, computed by the runtime when the warp has arrived).
struct Call {
  int op;
  const char* name;  // "wmma::load_matrix_sync", for findings
  const void* ptr;
  unsigned ldm;
  int mem_col_major;  // load/store: the memory layout (the fragment's own for matrix_a/b)
  size_t elem_bytes;  // load/store: bytes of one element in memory
  FragRef frag[4];    // load/store: [0]; mma: d, a, b, c
};

}  // namespace wmma

// The calling lane brings `call` to the wmma operation at file:line and waits until every lane of
// its warp has brought one (runtime/wmma.cpp, through the warp operations of runtime/core.cpp): the
// collective, its checks (every lane there, at the same call, with the same arguments; alignment
// and ldm) and, for mma, the product into each lane's d. Loads and stores are then made by each
// lane itself in the student's file (tilelab_emu_wmma.h), where every build sees them.
void wmma_sync(const wmma::Call& call, const char* file, int line);

}  // namespace tlemu

#endif  // TILELAB_EMU_WMMA_LAYOUT_H
