// tilelab CPU emulator: nvcuda::wmma, CUDA's warp matrix functions (<mma.h>), run on the CPU with the
// GPU's semantics (docs/emulator.md, "Tensor cores").
//
// What is emulated: fragment<matrix_a | matrix_b | accumulator, M, N, K, T, Layout> with CUDA's public
// num_elements and x[]; row_major/col_major, layout_t (mem_row_major/mem_col_major),
// precision::tf32; fill_fragment, load_matrix_sync (and the accumulator's overload with a layout),
// store_matrix_sync, mma_sync, __float_to_tf32. Shapes: tf32 m16n16k8 (float accumulators), and
// __half m16n16k16, m32n8k16, m8n32k16 (float or __half accumulators). Any other fragment stops the
// build with one static_assert that says whether CUDA has no such fragment or the emulator does not
// emulate it (integer, double, bf16, sub-byte).
//
// Each lane owns the elements tilelab_emu_wmma_layout.h lists (the PTX ISA's mma fragment layout),
// so elementwise code over x[] (conversion to tf32, scaling) runs as on a GPU.
//
// The *_sync calls are warp-wide, as on a GPU: each lane brings its arguments to tlemu::wmma_sync
// (runtime/wmma.cpp), which waits for the whole warp and reports a lane that is not there (a
// divergent branch, an early return), lanes at different calls, arguments that differ between
// lanes, a pointer that is not 32-byte aligned and an ldm that is not a multiple of 16 bytes. Loads
// and stores are then made by each lane, here, in the student's translation unit (these functions
// are always inlined): the asan build sees an out-of-bounds element, the race build a tile read
// before the barrier that orders it, and the count build counts the traffic, each at the line of
// the student's call (findings skip frames of tilelab_emu*.h files). fill_fragment is what CUDA's is:
// a plain loop over the lane's own elements, no collective.
//
// Numerics of mma_sync: d = a * b + c with the products exact and the sums in float32, in k order
// from c. tf32 inputs are what the tensor cores read of a float, its top 19 bits: an element not
// converted with __float_to_tf32 is truncated to 10 mantissa bits (NaN and Inf unchanged);
// __float_to_tf32 rounds to nearest, ties away from zero, as cvt.rna.tf32.f32. __half inputs are
// exact in float; a __half accumulator d is rounded once from the float sum.
#ifndef TILELAB_EMU_WMMA_H
#define TILELAB_EMU_WMMA_H

#include <cstdint>
#include <type_traits>

#include "cuda_fp16.h"
#include "tilelab_emu.h"
#include "tilelab_emu_wmma_layout.h"

namespace nvcuda {
namespace wmma {
// ---- tags and layouts, as CUDA names them ----
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
// Declared so that a fragment of them reaches the emulator's own message (not emulated).
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
}  // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
}  // namespace experimental
enum layout_t { mem_row_major, mem_col_major };
}  // namespace wmma
}  // namespace nvcuda

namespace tlemu {
namespace wmma {
namespace nw = ::nvcuda::wmma;

template <class U> struct UseOf { static constexpr int value = -1; };
template <> struct UseOf<nw::matrix_a> { static constexpr int value = use_a; };
template <> struct UseOf<nw::matrix_b> { static constexpr int value = use_b; };
template <> struct UseOf<nw::accumulator> { static constexpr int value = use_acc; };

// The element types: emulated ones (value >= 0, with their storage and fill argument), CUDA's that
// the emulator does not emulate (limit), and anything else.
template <class T> struct ElemOf {
  static constexpr int value = -1;
  static constexpr bool limit = false;
  typedef float storage;
};
template <> struct ElemOf<nw::precision::tf32> { static constexpr int value = elem_tf32; static constexpr bool limit = false; typedef float storage; };
template <> struct ElemOf<float> { static constexpr int value = elem_float; static constexpr bool limit = false; typedef float storage; };
template <> struct ElemOf<__half> { static constexpr int value = elem_half; static constexpr bool limit = false; typedef __half storage; };
template <class T> struct LimitElem { static constexpr int value = -1; static constexpr bool limit = true; typedef T storage; };
template <> struct ElemOf<signed char> : LimitElem<signed char> {};
template <> struct ElemOf<unsigned char> : LimitElem<unsigned char> {};
template <> struct ElemOf<int> : LimitElem<int> {};
template <> struct ElemOf<double> : LimitElem<double> {};
template <> struct ElemOf<nw::experimental::precision::u4> : LimitElem<unsigned> {};
template <> struct ElemOf<nw::experimental::precision::s4> : LimitElem<int> {};
template <> struct ElemOf<nw::experimental::precision::b1> : LimitElem<unsigned> {};

template <class L> struct LayoutOf { static constexpr int value = -2; };  // not a layout
template <> struct LayoutOf<void> { static constexpr int value = -1; };
template <> struct LayoutOf<nw::row_major> { static constexpr int value = 0; };
template <> struct LayoutOf<nw::col_major> { static constexpr int value = 1; };

// Why a fragment type is refused (0: it is emulated). One code per message below, so that a wrong
// fragment gives one static_assert, not a wall of template errors.
enum Refusal : int {
  ok = 0, bad_use, emulator_limit, float_multiplicand, bad_type, needs_layout, bad_layout, acc_layout,
  tf32_accumulator, tf32_shape, half_shape, float_acc_shape
};
template <class Use, int m, int n, int k, class T, class Layout>
struct Traits {
  static constexpr int use = UseOf<Use>::value;
  static constexpr int elem = ElemOf<T>::value;
  static constexpr int layout = LayoutOf<Layout>::value;
  static constexpr int distinct = use >= 0 && elem >= 0 ? distinct_elements(use, m, n, k, elem) : 0;
  static constexpr int refusal =
      use < 0 ? bad_use
      : ElemOf<T>::limit ? emulator_limit
      : elem == elem_float && use != use_acc ? float_multiplicand
      : elem < 0 ? bad_type
      : use != use_acc && layout == -1 ? needs_layout
      : layout == -2 ? bad_layout
      : use == use_acc && layout != -1 ? acc_layout
      : elem == elem_tf32 && use == use_acc ? tf32_accumulator
      : distinct == 0 ? (elem == elem_tf32 ? tf32_shape : elem == elem_half ? half_shape : float_acc_shape)
      : ok;
  // CUDA's counts: 16 for every __half matrix_a and matrix_b (see tilelab_emu_wmma_layout.h), else the lane's share.
  static constexpr int count = refusal != ok ? 1 : use != use_acc && elem == elem_half ? 16 : distinct;
  typedef typename ElemOf<T>::storage storage;
};

#define TLEMU_WMMA_LIMIT " is not supported by the tilelab CPU emulator (an emulator limit, not an error in your code): grade this file on a GPU, or use wmma::precision::tf32 or __half fragments"
#define TLEMU_WMMA_NO_SUCH " (CUDA has no such fragment; nvcc rejects it too)"
template <class Use, int m, int n, int k, class T, class Layout>
struct alignas(8) FragBase {
  using traits = Traits<Use, m, n, k, T, Layout>;
  static_assert(traits::refusal != bad_use, "nvcuda::wmma::fragment: the first argument must be wmma::matrix_a, wmma::matrix_b or wmma::accumulator");
  static_assert(traits::refusal != emulator_limit, "nvcuda::wmma::fragment of an integer, double or sub-byte type" TLEMU_WMMA_LIMIT);
  static_assert(traits::refusal != float_multiplicand, "nvcuda::wmma::fragment<matrix_a/matrix_b, ..., float>: multiplicands of float do not exist: use wmma::precision::tf32 (m16n16k8, loaded from float memory)" TLEMU_WMMA_NO_SUCH);
  static_assert(traits::refusal != bad_type, "nvcuda::wmma::fragment: the element type must be wmma::precision::tf32 or __half (float or __half for an accumulator)" TLEMU_WMMA_NO_SUCH);
  static_assert(traits::refusal != needs_layout, "nvcuda::wmma::fragment<matrix_a/matrix_b, ...> needs its layout as the last argument: wmma::row_major or wmma::col_major");
  static_assert(traits::refusal != bad_layout, "nvcuda::wmma::fragment: the layout must be wmma::row_major or wmma::col_major");
  static_assert(traits::refusal != acc_layout, "nvcuda::wmma::fragment<accumulator, ...> takes no layout: give it to load_matrix_sync/store_matrix_sync as wmma::mem_row_major or wmma::mem_col_major");
  static_assert(traits::refusal != tf32_accumulator, "nvcuda::wmma::fragment<accumulator, ..., precision::tf32>: the accumulator of tf32 inputs is float: fragment<accumulator, 16, 16, 8, float>" TLEMU_WMMA_NO_SUCH);
  static_assert(traits::refusal != tf32_shape, "nvcuda::wmma::fragment of precision::tf32: the shape must be 16, 16, 8 (m16n16k8)" TLEMU_WMMA_NO_SUCH);
  static_assert(traits::refusal != half_shape, "nvcuda::wmma::fragment of __half: the shape must be 16, 16, 16 or 32, 8, 16 or 8, 32, 16" TLEMU_WMMA_NO_SUCH);
  static_assert(traits::refusal != float_acc_shape, "nvcuda::wmma::fragment<accumulator, M, N, K, float>: the shape must be 16, 16, 8 (tf32 inputs) or 16, 16, 16 / 32, 8, 16 / 8, 32, 16 (__half inputs)" TLEMU_WMMA_NO_SUCH);

  enum { num_elements = traits::count, num_storage_elements = traits::count };
  typedef T element_type;
  typedef typename traits::storage storage_element_type;
  storage_element_type x[num_elements];
};
#undef TLEMU_WMMA_LIMIT
#undef TLEMU_WMMA_NO_SUCH

// The calling thread's lane: its linear thread id (x fastest, then y, z) modulo 32, as the runtime's warps.
__attribute__((always_inline)) inline int lane_id() {
  return int((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31;
}

// The lane's own loads and stores of a fragment's elements (col: memory in column-major order).
// Always inlined into the student's call, so that each build sees them at its line.
template <int use, int m, int n, int k, int distinct, int count, class S>
__attribute__((always_inline)) inline void load_elements(S* x, const S* p, unsigned ldm, bool col, int lane) {
  for (int i = 0; i < distinct; ++i) {
    int r = 0, c = 0;
    element_at(use, m, n, k, lane, i, r, c);
    x[i] = col ? p[size_t(c) * ldm + size_t(r)] : p[size_t(r) * ldm + size_t(c)];
  }
  for (int i = distinct; i < count; ++i) x[i] = x[i % distinct];  // the copies (layout header)
}
template <int use, int m, int n, int k, int distinct, class S>
__attribute__((always_inline)) inline void store_elements(S* p, const S* x, unsigned ldm, bool col, int lane) {
  for (int i = 0; i < distinct; ++i) {
    int r = 0, c = 0;
    element_at(use, m, n, k, lane, i, r, c);
    if (col) p[size_t(c) * ldm + size_t(r)] = x[i];
    else p[size_t(r) * ldm + size_t(c)] = x[i];
  }
}

template <class T> struct FillArg { typedef T type; };
template <> struct FillArg<nw::precision::tf32> { typedef float type; };

inline uint32_t float_bits(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
inline float bits_float(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }

}  // namespace wmma
}  // namespace tlemu

namespace nvcuda {
namespace wmma {

template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment : public ::tlemu::wmma::FragBase<Use, m, n, k, T, Layout> {};

// cvt.rna.tf32.f32: the float rounded to 10 mantissa bits, to nearest, ties away from zero (half a
// unit of the 11th bit added to the magnitude, then the low 13 bits cleared; a carry into the
// exponent is right, up to infinity). NaN and infinity are returned unchanged.
inline float __float_to_tf32(float in) {
  uint32_t u = ::tlemu::wmma::float_bits(in);
  if ((u & 0x7F800000u) == 0x7F800000u) return in;
  u = (u + 0x1000u) & 0xFFFFE000u;
  return ::tlemu::wmma::bits_float(u);
}

// Every element of the lane's fragment (CUDA's is this loop: not a collective).
template <class Use, int m, int n, int k, class T, class Layout>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout>& a,
                          const typename ::tlemu::wmma::FillArg<T>::type& v) {
  for (int i = 0; i < int(fragment<Use, m, n, k, T, Layout>::num_elements); ++i) a.x[i] = v;
}

// matrix_a / matrix_b in the fragment's own layout. file and line: the student's call (the default
// arguments are evaluated there), for findings.
template <class Use, int m, int n, int k, class T, class Layout>
__attribute__((always_inline)) inline void load_matrix_sync(
    fragment<Use, m, n, k, T, Layout>& a,
    const typename ::tlemu::wmma::Traits<Use, m, n, k, T, Layout>::storage* mptr, unsigned ldm,
    const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using Tr = ::tlemu::wmma::Traits<Use, m, n, k, T, Layout>;
  static_assert(Tr::refusal != ::tlemu::wmma::ok || Tr::use != ::tlemu::wmma::use_acc,
                "wmma::load_matrix_sync of an accumulator fragment needs the memory layout: "
                "load_matrix_sync(c, ptr, ldm, wmma::mem_row_major) (or wmma::mem_col_major)");
  if constexpr (Tr::refusal == ::tlemu::wmma::ok && Tr::use != ::tlemu::wmma::use_acc) {
    ::tlemu::wmma::Call call{::tlemu::wmma::op_load, "wmma::load_matrix_sync", mptr, ldm, Tr::layout == 1,
                             sizeof(typename Tr::storage), {}};
    call.frag[0] = ::tlemu::wmma::FragRef{Tr::use, m, n, k, Tr::elem, Tr::count, a.x};
    ::tlemu::wmma_sync(call, file, line);
    ::tlemu::wmma::load_elements<Tr::use, m, n, k, Tr::distinct, Tr::count>(a.x, mptr, ldm, Tr::layout == 1,
                                                                            ::tlemu::wmma::lane_id());
  }
}

// The accumulator, from memory in the layout given.
template <class Use, int m, int n, int k, class T, class Layout>
__attribute__((always_inline)) inline void load_matrix_sync(
    fragment<Use, m, n, k, T, Layout>& a,
    const typename ::tlemu::wmma::Traits<Use, m, n, k, T, Layout>::storage* mptr, unsigned ldm, layout_t layout,
    const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using Tr = ::tlemu::wmma::Traits<Use, m, n, k, T, Layout>;
  static_assert(Tr::refusal != ::tlemu::wmma::ok || Tr::use == ::tlemu::wmma::use_acc,
                "wmma::load_matrix_sync of a matrix_a or matrix_b fragment takes no layout_t: the layout is "
                "the fragment's own (row_major/col_major): load_matrix_sync(a, ptr, ldm)");
  if constexpr (Tr::refusal == ::tlemu::wmma::ok && Tr::use == ::tlemu::wmma::use_acc) {
    const bool col = layout == mem_col_major;
    ::tlemu::wmma::Call call{::tlemu::wmma::op_load, "wmma::load_matrix_sync", mptr, ldm, col,
                             sizeof(typename Tr::storage), {}};
    call.frag[0] = ::tlemu::wmma::FragRef{Tr::use, m, n, k, Tr::elem, Tr::count, a.x};
    ::tlemu::wmma_sync(call, file, line);
    ::tlemu::wmma::load_elements<Tr::use, m, n, k, Tr::distinct, Tr::count>(a.x, mptr, ldm, col,
                                                                            ::tlemu::wmma::lane_id());
  }
}

template <class Use, int m, int n, int k, class T, class Layout>
__attribute__((always_inline)) inline void store_matrix_sync(
    typename ::tlemu::wmma::Traits<Use, m, n, k, T, Layout>::storage* mptr,
    const fragment<Use, m, n, k, T, Layout>& a, unsigned ldm, layout_t layout,
    const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using Tr = ::tlemu::wmma::Traits<Use, m, n, k, T, Layout>;
  static_assert(Tr::refusal != ::tlemu::wmma::ok || Tr::use == ::tlemu::wmma::use_acc,
                "wmma::store_matrix_sync stores accumulator fragments only (CUDA has no store of matrix_a or matrix_b)");
  if constexpr (Tr::refusal == ::tlemu::wmma::ok && Tr::use == ::tlemu::wmma::use_acc) {
    const bool col = layout == mem_col_major;
    ::tlemu::wmma::Call call{::tlemu::wmma::op_store, "wmma::store_matrix_sync", mptr, ldm, col,
                             sizeof(typename Tr::storage), {}};
    call.frag[0] = ::tlemu::wmma::FragRef{Tr::use, m, n, k, Tr::elem, Tr::count, const_cast<void*>(static_cast<const void*>(a.x))};
    ::tlemu::wmma_sync(call, file, line);
    ::tlemu::wmma::store_elements<Tr::use, m, n, k, Tr::distinct>(mptr, a.x, ldm, col, ::tlemu::wmma::lane_id());
  }
}

// d = a * b + c for the warp (d may be c). The product is computed by the runtime once every lane
// has arrived, from all lanes' elements, into each lane's d.
template <int m, int n, int k, class TD, class TA, class LA, class TB, class LB, class TC>
inline void mma_sync(fragment<accumulator, m, n, k, TD>& d, const fragment<matrix_a, m, n, k, TA, LA>& a,
                     const fragment<matrix_b, m, n, k, TB, LB>& b, const fragment<accumulator, m, n, k, TC>& c,
                     const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  namespace tw = ::tlemu::wmma;
  using TrD = tw::Traits<accumulator, m, n, k, TD, void>;
  using TrA = tw::Traits<matrix_a, m, n, k, TA, LA>;
  using TrB = tw::Traits<matrix_b, m, n, k, TB, LB>;
  using TrC = tw::Traits<accumulator, m, n, k, TC, void>;
  constexpr bool fragments_ok = TrD::refusal == tw::ok && TrA::refusal == tw::ok && TrB::refusal == tw::ok &&
                                TrC::refusal == tw::ok;
  static_assert(!fragments_ok || std::is_same<TA, TB>::value,
                "wmma::mma_sync: matrix_a and matrix_b must have the same element type");
  static_assert(!fragments_ok || TrA::elem != tw::elem_tf32 ||
                    (std::is_same<TD, float>::value && std::is_same<TC, float>::value),
                "wmma::mma_sync of precision::tf32 inputs accumulates in float: c and d are fragment<accumulator, 16, 16, 8, float>");
  if constexpr (fragments_ok && std::is_same<TA, TB>::value) {
    tw::Call call{tw::op_mma, "wmma::mma_sync", nullptr, 0, 0, 0, {}};
    call.frag[0] = tw::FragRef{tw::use_acc, m, n, k, TrD::elem, TrD::count, d.x};
    call.frag[1] = tw::FragRef{tw::use_a, m, n, k, TrA::elem, TrA::count, const_cast<void*>(static_cast<const void*>(a.x))};
    call.frag[2] = tw::FragRef{tw::use_b, m, n, k, TrB::elem, TrB::count, const_cast<void*>(static_cast<const void*>(b.x))};
    call.frag[3] = tw::FragRef{tw::use_acc, m, n, k, TrC::elem, TrC::count, const_cast<void*>(static_cast<const void*>(c.x))};
    ::tlemu::wmma_sync(call, file, line);
  }
}

}  // namespace wmma
}  // namespace nvcuda

#endif  // TILELAB_EMU_WMMA_H
