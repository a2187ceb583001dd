// The emulator's context switch (context.hpp): our own on x86-64, Boost.Context's fcontext elsewhere
// or when TLEMU_PORTABLE_CONTEXT is defined (the kit's tests build both: kit.emu.context).
#include "context.hpp"

#include <cstdint>

#if defined(__x86_64__) && !defined(TLEMU_PORTABLE_CONTEXT)

// tlemu_context_swap(Handle* save, Handle to): the System V callee-saved registers are pushed on the
// leaving stack, its stack pointer stored in *save, `to` loaded and its registers popped; `ret`
// resumes it where it called tlemu_context_swap (or, the first time, in tlemu_context_start).
// tlemu_context_start calls the entry that make() left in r12's slot; the unwind information marks
// it as the outermost frame (an unwinder or debugger stops there).
asm(R"(
  .text
  .p2align 4
  .globl tlemu_context_swap
  .hidden tlemu_context_swap
  .type tlemu_context_swap, @function
tlemu_context_swap:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .cfi_endproc
  .size tlemu_context_swap, .-tlemu_context_swap

  .p2align 4
  .type tlemu_context_start, @function
tlemu_context_start:
  .cfi_startproc
  .cfi_undefined rip
  callq *%r12
  ud2
  .cfi_endproc
  .size tlemu_context_start, .-tlemu_context_start
)");

extern "C" void tlemu_context_start();

namespace tlemu::context {

Handle make(void* top, size_t, void (*entry)()) {
  // The frame tlemu_context_swap pops: r15 r14 r13 r12 rbx rbp, then the return address. After the
  // `ret` the stack pointer is 16-byte aligned, as the call in tlemu_context_start needs.
  auto* frame = reinterpret_cast<void**>((reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15)) - 72);
  for (int i = 0; i < 6; ++i) frame[i] = nullptr;  // rbp 0: the frame-pointer chain ends here
  frame[3] = reinterpret_cast<void*>(entry);       // r12
  frame[6] = reinterpret_cast<void*>(&tlemu_context_start);
  return frame;
}

}  // namespace tlemu::context

#else

#include <boost/context/detail/fcontext.hpp>

namespace tlemu::context {
namespace {
namespace bc = boost::context::detail;

// swap() passes its `save` slot along with each jump: the side that resumes stores there the
// handle of the side that left.
void start(bc::transfer_t t) {
  auto entry = *static_cast<void (**)()>(t.data);
  t = bc::jump_fcontext(t.fctx, nullptr);  // back to make(); the first swap() to it resumes here
  *static_cast<Handle*>(t.data) = t.fctx;
  entry();
}
}  // namespace

// The new context runs once, to take `entry` from make()'s frame, and waits for its first swap().
Handle make(void* top, size_t size, void (*entry)()) {
  return bc::jump_fcontext(bc::make_fcontext(top, size, start), &entry).fctx;
}

}  // namespace tlemu::context

extern "C" void tlemu_context_swap(void** save, void* to) {
  const boost::context::detail::transfer_t t = boost::context::detail::jump_fcontext(to, save);
  *static_cast<void**>(t.data) = t.fctx;
}

#endif
