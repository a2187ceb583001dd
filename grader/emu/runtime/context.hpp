// The emulator's context switch: an emulated thread that does not run is one saved stack pointer.
//
// Every CUDA thread of a block runs on a stack of its own and gives up the CPU at each
// __syncthreads(): a 1024^3 product of 16 x 16 tiles switches about 135 million times, so the switch
// is the emulator's largest cost after the kernel itself (docs/performance.md, "Grading times").
// On x86-64 it is a few instructions of our own (context.cpp): the callee-saved registers pushed,
// the stack pointer swapped, a `ret` that the return-stack predictor gets right, since every
// thread suspends at the same call. With Boost.Context's fibers (jump_fcontext returns with an
// indirect jump and restores the floating-point control words) that product took 5.4 s of CPU on
// the 2-core machine, with this switch 3.0 s. Elsewhere (or with TLEMU_PORTABLE_CONTEXT) the same
// interface is Boost.Context's fcontext.
//
// Contract: a context handle is valid until it has been switched to once; each swap() stores the
// leaving context's new handle in *save. Kernels cannot change the floating-point environment (CUDA
// device code has no fesetround), so the control words (MXCSR, the x87 control word) are not
// switched: every emulated thread runs with the process's.
#pragma once
#include <cstddef>

// context.cpp: the switch itself, called directly from the scheduler (no wrapper in between).
extern "C" void tlemu_context_swap(void** save, void* to);

namespace tlemu::context {

using Handle = void*;

// A context that, when first switched to, calls entry() on the stack whose highest address is
// `top` (`size` bytes below it are usable). entry() must never return: it ends by switching away.
Handle make(void* top, size_t size, void (*entry)());

// Suspends the running context (its handle goes to *save) and runs `to`; returns when something
// switches to the handle stored in *save.
inline void swap(Handle* save, Handle to) { tlemu_context_swap(save, to); }

// Hint that `h` will run soon: its saved frame is brought toward the cache (no effect on behaviour).
// Always inlined: g++ finds a function holding only prefetches free of side effects and deletes
// the calls to it. Four lines (the saved registers and the frames above them), not eight: alike on
// a quiet machine, 8% less CPU for w1024 with other processes on the cores (docs/performance.md,
// "Issue 45").
__attribute__((always_inline)) inline void prefetch(Handle h) {
  const char* p = static_cast<const char*>(h);
  for (int line = 0; line < 4; ++line) __builtin_prefetch(p + 64 * line);
}

}  // namespace tlemu::context
