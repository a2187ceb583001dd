// tilelab CPU emulator: atomics and warp-level operations (shuffles, votes, __syncwarp), for host
// code that runs the kernels (tilelab_emu.h's contract: one emulated thread runs at a time).
//
// Atomics: one emulated thread runs at a time and yields only at a barrier or a warp operation, so
// a plain read-modify-write is atomic; each returns the old value, as CUDA's do.
//
// Warp operations: a warp is 32 threads of consecutive linear thread id (x fastest, then y, z), as
// on a GPU. A lane that reaches one waits until every lane of its warp that has not returned has
// reached one; then each gets its result from the values all of them brought (runtime/scheduler.cpp,
// tlemu::warp_op). Lanes that returned are inactive; lanes named in a mask that wait at a
// __syncthreads() instead are reported as barrier divergence. Values of up to 8 bytes are shuffled,
// as CUDA's overloads allow.
#ifndef TILELAB_EMU_WARP_H
#define TILELAB_EMU_WARP_H

#include <cstdint>
#include <cstring>
#include <type_traits>

// ---- atomics (CUDA's overloads: int, unsigned, unsigned long long, float, double ...) ----
// While one runs, tlemu_in_atomic is above 0: the race build does not count its store as a plain
// write of global memory (two blocks may update one element atomically; they may not store to it).
extern int tlemu_in_atomic;
struct TlemuAtomicScope {
  TlemuAtomicScope() { ++tlemu_in_atomic; }
  ~TlemuAtomicScope() { --tlemu_in_atomic; }
  TlemuAtomicScope(const TlemuAtomicScope&) = delete;
  TlemuAtomicScope& operator=(const TlemuAtomicScope&) = delete;
};
template <class T, class U>
inline T atomicAdd(T* address, U val) { TlemuAtomicScope scope; const T old = *address; *address = T(old + T(val)); return old; }
template <class T, class U>
inline T atomicSub(T* address, U val) { TlemuAtomicScope scope; const T old = *address; *address = T(old - T(val)); return old; }
template <class T, class U>
inline T atomicExch(T* address, U val) { TlemuAtomicScope scope; const T old = *address; *address = T(val); return old; }
template <class T, class U>
inline T atomicMin(T* address, U val) { TlemuAtomicScope scope; const T old = *address; if (T(val) < old) *address = T(val); return old; }
template <class T, class U>
inline T atomicMax(T* address, U val) { TlemuAtomicScope scope; const T old = *address; if (T(val) > old) *address = T(val); return old; }
template <class T, class U>
inline T atomicAnd(T* address, U val) { TlemuAtomicScope scope; const T old = *address; *address = T(old & T(val)); return old; }
template <class T, class U>
inline T atomicOr(T* address, U val) { TlemuAtomicScope scope; const T old = *address; *address = T(old | T(val)); return old; }
template <class T, class U>
inline T atomicXor(T* address, U val) { TlemuAtomicScope scope; const T old = *address; *address = T(old ^ T(val)); return old; }
template <class T, class U, class V>
inline T atomicCAS(T* address, U compare, V val) {
  TlemuAtomicScope scope;
  const T old = *address;
  if (old == T(compare)) *address = T(val);
  return old;
}
inline unsigned int atomicInc(unsigned int* address, unsigned int val) {
  TlemuAtomicScope scope;
  const unsigned int old = *address;
  *address = old >= val ? 0u : old + 1u;
  return old;
}
inline unsigned int atomicDec(unsigned int* address, unsigned int val) {
  TlemuAtomicScope scope;
  const unsigned int old = *address;
  *address = (old == 0u || old > val) ? val : old - 1u;
  return old;
}
#define TLEMU_ATOMIC_SCOPES(name)                                                          \
  template <class T, class... U>                                                           \
  inline T name##_block(T* a, U... v) { return name(a, v...); }                            \
  template <class T, class... U>                                                           \
  inline T name##_system(T* a, U... v) { return name(a, v...); }
TLEMU_ATOMIC_SCOPES(atomicAdd)
TLEMU_ATOMIC_SCOPES(atomicExch)
TLEMU_ATOMIC_SCOPES(atomicMin)
TLEMU_ATOMIC_SCOPES(atomicMax)
TLEMU_ATOMIC_SCOPES(atomicCAS)
#undef TLEMU_ATOMIC_SCOPES

// ---- warp-level operations ----
namespace tlemu {
namespace warp {
enum : int { sync, shfl, shfl_up, shfl_down, shfl_xor, ballot, all, any, active, wmma };  // wmma: tlemu::wmma_sync
}
// The calling thread's lane brings `value` (and op's lane argument and width) to warp operation
// `op` at file:line, waits for its warp, and returns its result (runtime/core.cpp).
uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char* file, int line);

template <class T>
inline uint64_t to_lane(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "a warp shuffle moves a value of at most 8 bytes");
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof v);
  return u;
}
template <class T>
inline T from_lane(uint64_t u) {
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}
template <class T>
inline T shuffle(const char* file, int line, int op, unsigned mask, T v, int arg, int width = 32) {
  return from_lane<T>(warp_op(op, mask, to_lane(v), arg, width, file, line));
}
// __syncwarp() and __syncwarp(mask): the call site, then the optional mask as a call.
struct SyncWarp {
  const char* file;
  int line;
  void operator()(unsigned mask = 0xffffffffu) const { warp_op(warp::sync, mask, 0, 0, 32, file, line); }
};
}  // namespace tlemu

// Macros, so that the call site (the student's line) names the operation in findings.
#define __shfl_sync(...) ::tlemu::shuffle(__FILE__, __LINE__, ::tlemu::warp::shfl, __VA_ARGS__)
#define __shfl_up_sync(...) ::tlemu::shuffle(__FILE__, __LINE__, ::tlemu::warp::shfl_up, __VA_ARGS__)
#define __shfl_down_sync(...) ::tlemu::shuffle(__FILE__, __LINE__, ::tlemu::warp::shfl_down, __VA_ARGS__)
#define __shfl_xor_sync(...) ::tlemu::shuffle(__FILE__, __LINE__, ::tlemu::warp::shfl_xor, __VA_ARGS__)
#define __ballot_sync(mask, pred) \
  unsigned(::tlemu::warp_op(::tlemu::warp::ballot, (mask), (pred) ? 1 : 0, 0, 32, __FILE__, __LINE__))
#define __all_sync(mask, pred) int(::tlemu::warp_op(::tlemu::warp::all, (mask), (pred) ? 1 : 0, 0, 32, __FILE__, __LINE__))
#define __any_sync(mask, pred) int(::tlemu::warp_op(::tlemu::warp::any, (mask), (pred) ? 1 : 0, 0, 32, __FILE__, __LINE__))
#define __syncwarp ::tlemu::SyncWarp{__FILE__, __LINE__}
#define __activemask() unsigned(::tlemu::warp_op(::tlemu::warp::active, 0xffffffffu, 0, 0, 32, __FILE__, __LINE__))
// What is refused: a call compiles to an error at the student's line that names the construct
// (GCC's error attribute; the functions are never defined).
#define TLEMU_REFUSE(name, why)                      \
  template <class R = int, class... A>               \
  __attribute__((error(#name ": " why))) R name(A...);
// The pre-Volta forms without a mask: removed from CUDA, as nvcc says for sm_70 and later.
#define TLEMU_PRE_VOLTA "removed from CUDA for Volta and later GPUs (nvcc rejects it too): use the _sync form with a mask"
TLEMU_REFUSE(__shfl, TLEMU_PRE_VOLTA)
TLEMU_REFUSE(__shfl_up, TLEMU_PRE_VOLTA)
TLEMU_REFUSE(__shfl_down, TLEMU_PRE_VOLTA)
TLEMU_REFUSE(__shfl_xor, TLEMU_PRE_VOLTA)
TLEMU_REFUSE(__ballot, TLEMU_PRE_VOLTA)
TLEMU_REFUSE(__any, TLEMU_PRE_VOLTA)
TLEMU_REFUSE(__all, TLEMU_PRE_VOLTA)
#define TLEMU_LIMIT "not supported by the tilelab CPU emulator (an emulator limit, not an error in your code): grade this file on a GPU"
TLEMU_REFUSE(__match_any_sync, TLEMU_LIMIT)
TLEMU_REFUSE(__match_all_sync, TLEMU_LIMIT)
TLEMU_REFUSE(__reduce_add_sync, TLEMU_LIMIT)
TLEMU_REFUSE(tex1D, TLEMU_LIMIT)
TLEMU_REFUSE(tex2D, TLEMU_LIMIT)
TLEMU_REFUSE(tex3D, TLEMU_LIMIT)
TLEMU_REFUSE(tex1Dfetch, TLEMU_LIMIT)
TLEMU_REFUSE(surf2Dread, TLEMU_LIMIT)
TLEMU_REFUSE(surf2Dwrite, TLEMU_LIMIT)
#undef TLEMU_PRE_VOLTA
#undef TLEMU_LIMIT
#undef TLEMU_REFUSE

#endif  // TILELAB_EMU_WARP_H
