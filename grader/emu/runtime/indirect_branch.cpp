// Indirect branches of the student's code (docs/integrity.md, "Nothing the instrumentation cannot
// see"): every emulator build compiles the student's file with g++ -mindirect-branch=thunk-extern
// -mindirect-branch-register -fno-jump-tables (clang: -mretpoline-external-thunk), so each call or
// jump through a pointer -- a function pointer, a virtual call, std::function's invoker -- is a
// direct call of __x86_indirect_thunk_<register>, defined here; the allow-list scan refuses any
// indirect branch left in the object (an indirect_branch("keep") attribute). The thunk lets the
// branch go on only where it lands on a function: a target in the runner's own executable, where
// the student's machine code lies, must be the first instruction of a function its unwind tables
// describe (every function g++ compiles has one; the start of its FDE is the function's entry). So
// machine code hidden inside an instruction (the bytes of a 64-bit immediate: attack3-immediate-
// loader) or in data never runs, which no build's instrumentation would see. A target in a shared
// library (libc's functions through pointers, std::function of them) is that library's code, which
// holds no byte of the student's. Anything else is not code (it would fault).
//
// A refused branch is a fatal finding (hidden-code), reported as a sanitizer's and ending the run
// with the runner's error code, before the branch is taken.
#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

#include "internal.hpp"
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

// libgcc's lookup of the frame description entry covering an address (unwind-dw2-fde.h, not
// installed): bases.func is that function's first instruction.
struct dwarf_eh_bases {
  void* tbase;
  void* dbase;
  void* func;
};
extern "C" const void* _Unwind_Find_FDE(void* pc, struct dwarf_eh_bases* bases);

namespace {

struct Where {
  uintptr_t target;
  int object = 0;           // dl_iterate_phdr's order: 0 is the executable
  bool found = false;       // inside an executable segment of `object`
};

int find_segment(struct dl_phdr_info* info, size_t, void* data) {
  auto* w = static_cast<Where*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && w->target - lo < ph.p_memsz) {
      w->found = true;
      return 1;
    }
  }
  ++w->object;
  return 0;
}

[[noreturn]] void refuse(uintptr_t target, uintptr_t from, const char* why) {
  using namespace tlemu;
  Runtime& r = rt();
  Finding f;
  f.kind = f.hint_code = tilelab::findings::kHiddenCode;
  const void* site = reinterpret_cast<const void*>(from - 1);  // the call instruction, not the next line
  const auto where = symbolize({site}, false);
  const auto w = where.find(site);
  if (w != where.end()) f.file = w->second.first, f.line = w->second.second;
  char addr[32];
  std::snprintf(addr, sizeof addr, "%#lx", static_cast<unsigned long>(target));
  f.message = std::string("a call through a pointer to ") + addr + ", " + why +
              ": the program may call functions through pointers, but not run machine code that is not a "
              "compiled function (bytes inside an instruction or in data)";
  end_with_finding(r, f, "hidden-code");
}

}  // namespace

// Called by the thunks below with every register the branch needs saved: returns when `target` is a
// function's entry (or a shared library's code), else ends the run. `from`: the branch's return
// address (for a jump, the caller's).
extern "C" void tlemu_indirect_target_check(uintptr_t target, uintptr_t from) {
  Where w{target};
  dl_iterate_phdr(find_segment, &w);
  if (!w.found) refuse(target, from, "which is not in any program's code");
  if (w.object != 0) return;
  dwarf_eh_bases bases{};
  if (!_Unwind_Find_FDE(reinterpret_cast<void*>(target), &bases))
    refuse(target, from, "inside code no function's unwind table describes");
  if (reinterpret_cast<uintptr_t>(bases.func) != target)
    refuse(target, from, "which is inside a function, not its first instruction");
}

// The thunks. On entry the stack holds the branch's return address (a call) or the caller's (a
// jump), exactly as the target must find it; `reg` holds the target. tlemu_indirect_check saves the
// registers that carry arguments (and %rax, varargs' vector count; %r10, a static chain; %r11),
// aligns the stack, and calls the check above with the target in %rdi and that return address (for
// a jump from inside a function, whatever lies there: it only names a line).
#define TLEMU_THUNK(reg)                                   \
  ".globl __x86_indirect_thunk_" #reg "\n"                 \
  ".type __x86_indirect_thunk_" #reg ", @function\n"       \
  "__x86_indirect_thunk_" #reg ":\n"                       \
  "  pushq %rdi\n"                                         \
  "  movq %" #reg ", %rdi\n"                               \
  "  call tlemu_indirect_check\n"                          \
  "  popq %rdi\n"                                          \
  "  jmp *%" #reg "\n"                                     \
  ".size __x86_indirect_thunk_" #reg ", .-__x86_indirect_thunk_" #reg "\n"

#if defined(__x86_64__)
asm(".text\n"
    ".type tlemu_indirect_check, @function\n"
    "tlemu_indirect_check:\n"
    // The stack is aligned here, not assumed: a jump through a pointer from inside a function (a jump
    // table a pragma brought back) arrives with any alignment.
    "  pushq %rbp\n  movq %rsp, %rbp\n  andq $-16, %rsp\n"
    "  pushq %rax\n  pushq %rcx\n  pushq %rdx\n  pushq %rsi\n"
    "  pushq %r8\n  pushq %r9\n  pushq %r10\n  pushq %r11\n"
    "  subq $128, %rsp\n"
    "  movdqu %xmm0, 0(%rsp)\n  movdqu %xmm1, 16(%rsp)\n  movdqu %xmm2, 32(%rsp)\n  movdqu %xmm3, 48(%rsp)\n"
    "  movdqu %xmm4, 64(%rsp)\n  movdqu %xmm5, 80(%rsp)\n  movdqu %xmm6, 96(%rsp)\n  movdqu %xmm7, 112(%rsp)\n"
    // Above the saved %rbp: this call's return (into the thunk), the thunk's %rdi, the branch's return address.
    "  movq 24(%rbp), %rsi\n"
    "  call tlemu_indirect_target_check\n"
    "  movdqu 0(%rsp), %xmm0\n  movdqu 16(%rsp), %xmm1\n  movdqu 32(%rsp), %xmm2\n  movdqu 48(%rsp), %xmm3\n"
    "  movdqu 64(%rsp), %xmm4\n  movdqu 80(%rsp), %xmm5\n  movdqu 96(%rsp), %xmm6\n  movdqu 112(%rsp), %xmm7\n"
    "  addq $128, %rsp\n"
    "  popq %r11\n  popq %r10\n  popq %r9\n  popq %r8\n"
    "  popq %rsi\n  popq %rdx\n  popq %rcx\n  popq %rax\n"
    "  movq %rbp, %rsp\n  popq %rbp\n"
    "  ret\n"
    ".size tlemu_indirect_check, .-tlemu_indirect_check\n"
    TLEMU_THUNK(rax) TLEMU_THUNK(rbx) TLEMU_THUNK(rcx) TLEMU_THUNK(rdx) TLEMU_THUNK(rsi) TLEMU_THUNK(rdi)
    TLEMU_THUNK(rbp) TLEMU_THUNK(r8) TLEMU_THUNK(r9) TLEMU_THUNK(r10) TLEMU_THUNK(r11) TLEMU_THUNK(r12)
    TLEMU_THUNK(r13) TLEMU_THUNK(r14) TLEMU_THUNK(r15));
#endif
