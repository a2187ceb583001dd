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

#define TLEMU_ACCESS_CALLBACK_PAIR_(n, FILTER, HANDLER)                                        \
  extern "C" void __tsan_read##n(void* p) {                                                    \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, false, __builtin_return_address(0));                          \
  }                                                                                            \
  extern "C" void __tsan_write##n(void* p) {                                                   \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, true, __builtin_return_address(0));                           \
  }                                                                                            \
  extern "C" void __tsan_unaligned_read##n(void* p) {                                          \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, false, __builtin_return_address(0));                          \
  }                                                                                            \
  extern "C" void __tsan_unaligned_write##n(void* p) {                                         \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, true, __builtin_return_address(0));                           \
  }                                                                                            \
  extern "C" void __tsan_volatile_read##n(void* p) {                                           \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, false, __builtin_return_address(0));                          \
  }                                                                                            \
  extern "C" void __tsan_volatile_write##n(void* p) {                                          \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, true, __builtin_return_address(0));                           \
  }

// The atomic operations of an instrumented file (the guard of a function-local static, such as the
// emulator's __shared__ variables, is read with an acquire load): done as they are asked, with g++'s
// own atomics; they are not the kernel's loads and stores (CUDA's atomics are plain functions of the
// emulator's headers, tilelab_emu_warp.h, and are seen as such).
#define TLEMU_ATOMIC_CALLBACKS_(bits)                                                          \
  using tlemu_a##bits = uint##bits##_t;                                                        \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_load(const volatile tlemu_a##bits* a, int) {  \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                               \
  }                                                                                            \
  extern "C" void __tsan_atomic##bits##_store(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_exchange(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                        \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_add(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_sub(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_and(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_or(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                          \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_xor(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                         \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_fetch_nand(volatile tlemu_a##bits* a, tlemu_a##bits v, int) { \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                        \
  }                                                                                            \
  extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile tlemu_a##bits* a, tlemu_a##bits* c, \
                                                                tlemu_a##bits v, int, int) {   \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
  }                                                                                            \
  extern "C" int __tsan_atomic##bits##_compare_exchange_weak(volatile tlemu_a##bits* a, tlemu_a##bits* c, \
                                                              tlemu_a##bits v, int, int) {     \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
  }                                                                                            \
  extern "C" tlemu_a##bits __tsan_atomic##bits##_compare_exchange_val(volatile tlemu_a##bits* a, tlemu_a##bits c, \
                                                                       tlemu_a##bits v, int, int) { \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
    return c;                                                                                  \
  }

#define TLEMU_ACCESS_CALLBACKS(FILTER, HANDLER)                                                \
  TLEMU_ATOMIC_CALLBACKS_(8)                                                                   \
  TLEMU_ATOMIC_CALLBACKS_(16)                                                                  \
  TLEMU_ATOMIC_CALLBACKS_(32)                                                                  \
  TLEMU_ATOMIC_CALLBACKS_(64)                                                                  \
  extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); } \
  extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); } \
  TLEMU_ACCESS_CALLBACK_PAIR_(1, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(2, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(4, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(8, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(16, FILTER, HANDLER)                                             \
  extern "C" void __tsan_read_range(void* p, size_t n) {                                       \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, false, __builtin_return_address(0));                          \
  }                                                                                            \
  extern "C" void __tsan_write_range(void* p, size_t n) {                                      \
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);                                        \
    if (FILTER(a)) HANDLER(a, n, true, __builtin_return_address(0));                           \
  }                                                                                            \
  /* the module constructor g++ emits for an instrumented file; nothing to set up */           \
  extern "C" void __tsan_init() {}                                                             \
  /* a class with virtual functions: the vtable pointer's reads and updates are not the kernel's */ \
  extern "C" void __tsan_vptr_read(void*) {}                                                   \
  extern "C" void __tsan_vptr_update(void*, void*) {}
