// The student's loads and stores, seen by a build of the runtime (race, and any build that observes
// memory accesses). TilelabEmu.cmake compiles the student's file of such a build with g++'s
// -fsanitize=kernel-address and an outlined call per access (asan-instrumentation-with-call-
// threshold=0): g++ then calls __asan_load<n>_noabort / __asan_store<n>_noabort for every load and
// store it could not prove harmless (locals are not instrumented: asan-stack=0). That flag is used
// only for its instrumentation; no sanitizer library is linked.
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
  extern "C" void __asan_load##n##_noabort(uintptr_t a) {                                      \
    if (FILTER(a)) HANDLER(a, n, false, __builtin_return_address(0));                          \
  }                                                                                            \
  extern "C" void __asan_store##n##_noabort(uintptr_t a) {                                     \
    if (FILTER(a)) HANDLER(a, n, true, __builtin_return_address(0));                           \
  }

#define TLEMU_ACCESS_CALLBACKS(FILTER, HANDLER)                                                \
  TLEMU_ACCESS_CALLBACK_PAIR_(1, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(2, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(4, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(8, FILTER, HANDLER)                                              \
  TLEMU_ACCESS_CALLBACK_PAIR_(16, FILTER, HANDLER)                                             \
  extern "C" void __asan_loadN_noabort(uintptr_t a, size_t n) {                                \
    if (FILTER(a)) HANDLER(a, n, false, __builtin_return_address(0));                          \
  }                                                                                            \
  extern "C" void __asan_storeN_noabort(uintptr_t a, size_t n) {                               \
    if (FILTER(a)) HANDLER(a, n, true, __builtin_return_address(0));                           \
  }                                                                                            \
  extern "C" void __asan_handle_no_return() {}                                                 \
  /* a file-scope object with a dynamic initializer (std::vector<float> g(16);) asks for these */ \
  extern "C" void __asan_before_dynamic_init(const char*) {}                                   \
  extern "C" void __asan_after_dynamic_init() {}
