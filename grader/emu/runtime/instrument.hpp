// The student's loads and stores, seen by a build of the runtime (race, count, trace: every build that
// observes memory accesses). TilelabEmu.cmake compiles the student's file of such a build with g++'s
// -fsanitize=thread, used only for its instrumentation: g++ then calls __tsan_read<n> /
// __tsan_write<n> (and the unaligned and range forms) for every load and store left after its
// optimisations (locals whose address does not escape are not instrumented); no sanitizer library is
// linked. ThreadSanitizer's instrumentation, not AddressSanitizer's: ASan's sanopt pass drops the check
// of an address a dominating check has already seen (P[i] += ... in a loop after P[i] = 0 was checked
// once), and the count build must see every access the code makes, as the GPU runs it
// (docs/performance.md, "What is counted").
//
// A hooks_<build>.cpp defines the callbacks once, in the global namespace, with
//   TLEMU_ACCESS_CALLBACKS(FILTER, HANDLER)
// FILTER(a) is an expression on the address `a` (uintptr_t), cheap, evaluated inline for every
// access: only the accesses it accepts reach HANDLER(a, bytes, is_write, pc), where pc is the
// return address into the student's code (symbolize() turns it into file:line).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "internal.hpp"  // tlemu_indirect_target_check

// An array's bytes for qsort's and bsearch's reports, saturated where n * size would wrap.
inline size_t tlemu_array_bytes(size_t n, size_t size) { return size && n > SIZE_MAX / size ? SIZE_MAX : n * size; }

// One callback: the access of `bytes` at p, a write or not, reaches HANDLER when FILTER takes it.
// (A macro, not a function: __builtin_return_address(0) must be the callback's own return address.)
#define TLEMU_ACCESS_CALLBACK_(name, params, bytes, write, FILTER, HANDLER)                    \
  extern "C" void name params {                                                                \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, bytes, write, __builtin_return_address(0));                      \
  }

// The plain, unaligned and volatile reads and writes of n bytes.
#define TLEMU_ACCESS_CALLBACKS_OF_SIZE_(n, FILTER, HANDLER)                                        \
  TLEMU_ACCESS_CALLBACK_(__tsan_read##n, (void* p), n, false, FILTER, HANDLER)                 \
  TLEMU_ACCESS_CALLBACK_(__tsan_write##n, (void* p), n, true, FILTER, HANDLER)                 \
  TLEMU_ACCESS_CALLBACK_(__tsan_unaligned_read##n, (void* p), n, false, FILTER, HANDLER)       \
  TLEMU_ACCESS_CALLBACK_(__tsan_unaligned_write##n, (void* p), n, true, FILTER, HANDLER)       \
  TLEMU_ACCESS_CALLBACK_(__tsan_volatile_read##n, (void* p), n, false, FILTER, HANDLER)        \
  TLEMU_ACCESS_CALLBACK_(__tsan_volatile_write##n, (void* p), n, true, FILTER, HANDLER)

// The atomic operations of an instrumented file (GCC's __atomic_* and __sync_* builtins, std::atomic,
// std::atomic_ref): accesses like any other, reported before they are done (attack3-atomic-host-product:
// a kernel's atomic store into host memory; attack3-atomic-hidden-loads: fragment loads made atomic, which
// the count build did not count). A load is a read; a store a write; an exchange, a read-modify-write and a
// compare-and-swap a read and a write of its bytes, as the emulator's own atomicAdd and friends are
// (plain loads and stores of tilelab_emu_warp.h, seen as such); a compare-and-swap also reads and may write
// its expected value (*c), wherever that is. No instrumented code of the emulator's reads a guard or an
// atomic from device code (the rewriter's __shared__ declarations bind a static pointer, no guard:
// rewrite_shared.cpp), so every atomic a kernel makes is the kernel's own. Then done as asked, with g++'s
// own atomics. The return address is the student's pc (macros, as TLEMU_ACCESS_CALLBACK_).
#define TLEMU_ATOMIC_SEEN_(p, bits, read, write, FILTER, HANDLER)                              \
  do {                                                                                         \
    const uintptr_t tlemu_at = reinterpret_cast<uintptr_t>(p);                                 \
    if (FILTER(tlemu_at)) {                                                                    \
      if (read) HANDLER(tlemu_at, (bits) / 8, false, __builtin_return_address(0));             \
      if (write) HANDLER(tlemu_at, (bits) / 8, true, __builtin_return_address(0));             \
    }                                                                                          \
  } while (0)
#define TLEMU_ATOMIC_FETCH_(bits, op, FILTER, HANDLER)                                         \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_##op(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    TLEMU_ATOMIC_SEEN_(a, bits, true, true, FILTER, HANDLER);                                  \
    return __atomic_fetch_##op(a, v, __ATOMIC_SEQ_CST);                                        \
  }
#define TLEMU_ATOMIC_CAS_(bits, kind, FILTER, HANDLER)                                         \
  extern "C" int __tsan_atomic##bits##_compare_exchange_##kind(volatile tlemu_a##bits* a, tlemu_a##bits* c, \
                                                               tlemu_a##bits v, int, int) {    \
    TLEMU_ATOMIC_SEEN_(a, bits, true, true, FILTER, HANDLER);                                  \
    TLEMU_ATOMIC_SEEN_(c, bits, true, true, FILTER, HANDLER);                                  \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
  }
#define TLEMU_ATOMIC_CALLBACKS_(bits, FILTER, HANDLER)                                         \
  using tlemu_a##bits = uint##bits##_t;                                                        \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_load(const volatile tlemu_a##bits* a, int) {  \
    TLEMU_ATOMIC_SEEN_(a, bits, true, false, FILTER, HANDLER);                                 \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                               \
  }                                                                                            \
  extern "C" void __tsan_atomic##bits##_store(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    TLEMU_ATOMIC_SEEN_(a, bits, false, true, FILTER, HANDLER);                                 \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_exchange(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    TLEMU_ATOMIC_SEEN_(a, bits, true, true, FILTER, HANDLER);                                  \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                        \
  }                                                                                            \
  TLEMU_ATOMIC_FETCH_(bits, add, FILTER, HANDLER)                                              \
  TLEMU_ATOMIC_FETCH_(bits, sub, FILTER, HANDLER)                                              \
  TLEMU_ATOMIC_FETCH_(bits, and, FILTER, HANDLER)                                              \
  TLEMU_ATOMIC_FETCH_(bits, or, FILTER, HANDLER)                                               \
  TLEMU_ATOMIC_FETCH_(bits, xor, FILTER, HANDLER)                                              \
  TLEMU_ATOMIC_FETCH_(bits, nand, FILTER, HANDLER)                                             \
  TLEMU_ATOMIC_CAS_(bits, strong, FILTER, HANDLER)                                             \
  TLEMU_ATOMIC_CAS_(bits, weak, FILTER, HANDLER)                                               \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_compare_exchange_val(volatile tlemu_a##bits* a, tlemu_a##bits c, \
                                                                       tlemu_a##bits v, int, int) { \
    TLEMU_ATOMIC_SEEN_(a, bits, true, true, FILTER, HANDLER);                                  \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
    return c;                                                                                  \
  }

#define TLEMU_ACCESS_CALLBACKS(FILTER, HANDLER)                                                \
  TLEMU_ATOMIC_CALLBACKS_(8, FILTER, HANDLER)                                                            \
  TLEMU_ATOMIC_CALLBACKS_(16, FILTER, HANDLER)                                                           \
  TLEMU_ATOMIC_CALLBACKS_(32, FILTER, HANDLER)                                                           \
  TLEMU_ATOMIC_CALLBACKS_(64, FILTER, HANDLER)                                                           \
  extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); } \
  extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); } \
  TLEMU_ACCESS_CALLBACKS_OF_SIZE_(1, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACKS_OF_SIZE_(2, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACKS_OF_SIZE_(4, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACKS_OF_SIZE_(8, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACKS_OF_SIZE_(16, FILTER, HANDLER)                                             \
  TLEMU_ACCESS_CALLBACK_(__tsan_read_range, (void* p, size_t n), n, false, FILTER, HANDLER)   \
  TLEMU_ACCESS_CALLBACK_(__tsan_write_range, (void* p, size_t n), n, true, FILTER, HANDLER)    \
  /* the module constructor g++ emits for an instrumented file; nothing to set up */           \
  extern "C" void __tsan_init() {}                                                             \
  /* a class with virtual functions: the vtable pointer's reads and updates are not the kernel's */ \
  extern "C" void __tsan_vptr_read(void*) {}                                                   \
  extern "C" void __tsan_vptr_update(void*, void*) {}                                         \
  /* function entry and exit: g++ 10 (Debian 11) has no --param tsan-instrument-func-entry-exit=0 */ \
  extern "C" void __tsan_func_entry(void*) {}                                                  \
  extern "C" void __tsan_func_exit() {}                                                       \
  TLEMU_LIBC_CALLBACKS_(FILTER, HANDLER)

// libc's block copies as the student's file calls them in these builds (tilelab_emu.h renames
// memcpy, memmove and memset to these): the source's bytes a read and the destination's a write,
// reported before the copy is made, from the caller's line.
#define TLEMU_LIBC_RANGE_(ptr, n, write, FILTER, HANDLER, pc)                                    \
  if ((n) != 0 && FILTER(reinterpret_cast<uintptr_t>(ptr))) HANDLER(reinterpret_cast<uintptr_t>(ptr), (n), (write), (pc))
#define TLEMU_LIBC_COPY_(name, builtin, FILTER, HANDLER)                                         \
  extern "C" void* name(void* d, const void* s, size_t n) {                                    \
    const void* pc = __builtin_return_address(0);                                              \
    TLEMU_LIBC_RANGE_(s, n, false, FILTER, HANDLER, pc);                                        \
    TLEMU_LIBC_RANGE_(d, n, true, FILTER, HANDLER, pc);                                         \
    return builtin(d, s, n);                                                                   \
  }
#define TLEMU_LIBC_CALLBACKS_(FILTER, HANDLER)                                                   \
  TLEMU_LIBC_COPY_(tlemu_memcpy, __builtin_memcpy, FILTER, HANDLER)                             \
  TLEMU_LIBC_COPY_(tlemu_memmove, __builtin_memmove, FILTER, HANDLER)                           \
  extern "C" void* tlemu_memset(void* d, int c, size_t n) {                                    \
    TLEMU_LIBC_RANGE_(d, n, true, FILTER, HANDLER, __builtin_return_address(0));                \
    return __builtin_memset(d, c, n);                                                          \
  }                                                                                            \
  /* libc's sort and search: the array read and (qsort) written, the comparator checked as any  \
     call through a pointer (indirect_branch.cpp: libc calls it, not the student's code) */     \
  extern "C" void tlemu_qsort(void* b, size_t n, size_t size, int (*cmp)(const void*, const void*)) { \
    const void* pc = __builtin_return_address(0);                                              \
    tlemu_indirect_target_check(reinterpret_cast<uintptr_t>(cmp), reinterpret_cast<uintptr_t>(pc)); \
    TLEMU_LIBC_RANGE_(b, tlemu_array_bytes(n, size), false, FILTER, HANDLER, pc);               \
    TLEMU_LIBC_RANGE_(b, tlemu_array_bytes(n, size), true, FILTER, HANDLER, pc);                \
    ::qsort(b, n, size, cmp);                                                                  \
  }                                                                                            \
  extern "C" void* tlemu_bsearch(const void* key, const void* b, size_t n, size_t size,        \
                                 int (*cmp)(const void*, const void*)) {                       \
    const void* pc = __builtin_return_address(0);                                              \
    tlemu_indirect_target_check(reinterpret_cast<uintptr_t>(cmp), reinterpret_cast<uintptr_t>(pc)); \
    TLEMU_LIBC_RANGE_(key, size, false, FILTER, HANDLER, pc);                                   \
    TLEMU_LIBC_RANGE_(b, tlemu_array_bytes(n, size), false, FILTER, HANDLER, pc);               \
    return ::bsearch(key, b, n, size, cmp);                                                    \
  }
