"""preprocessed.py: the strings the compiler copies into its assembly unmarked, read from a
preprocessed unit (pure text: the compiled cases are test_allowlist.py's, VERBATIM_ROUTES). Each
refused form here passed the allow-list scan before 2026-11-29 (no #APP line in the listing)."""

from __future__ import annotations

import pytest

from tilelab.run import preprocessed

# The unit as `g++ -E` / -save-temps writes it: line markers, the student's file after the headers.
STUDENT = '# 1 "/sub/01-basic/matmul.cu"\n'


def _found(body: str) -> list[tuple[str, str, int]]:
    return [(v.construct, v.text, v.line) for v in preprocessed.verbatim_strings(STUDENT + body)]


@pytest.mark.parametrize("body, construct", [
    ('__attribute__((section(".text\\n.globl f\\nf: ret\\n.section .data"), used)) static int a = 1;', "section attribute"),
    ('__attribute((__section__(".text"))) const unsigned char code[] = {0xc3};', "section attribute"),
    ('[[gnu::section(".text")]] const unsigned char code[] = {0xc3};', "section attribute"),
    ('[[using gnu: used, section(".te" "xt")]] const unsigned char code[] = {0xc3};', "section attribute"),
    ('[ [__gnu__::__section__(R"(.text)")] ] const unsigned char code[] = {0xc3};', "section attribute"),
    ('<:<:gnu::section(".text"):>:> const unsigned char code<:1:> = <%0xc3%>;', "section attribute"),
    ('extern "C" float f(const float*) __asm__("name\\nmovss (%rdi), %xmm0\\n#");', "asm label"),
    ('extern "C" int f(int) noexcept(true) asm("printf" "\\n.globl g\\ng: ret\\n#");', "asm label"),
    ('extern int v __asm("v;.globl g");', "asm label"),
    ('extern "C" int f(const char*) __asm__(R"(printf\n.globl g\n#)");', "asm label"),
    ('static int w() __attribute__((weakref("r\\n.globl g\\ng: ret\\n#")));', "weakref attribute"),
    ('extern "C" __attribute__((symver("v@V1\\n.globl g\\ng: ret\\n#"))) int v() { return 5; }', "symver attribute"),
    ('extern "C" int a() __attribute__((alias("r\\n.globl g\\ng: ret\\n#")));', "alias attribute"),
    ('extern "C" int i() [[gnu::ifunc("r\\n.globl g\\ng: ret\\n#")]];', "ifunc attribute"),
    ('#ident "x\\n.globl g\\ng: ret\\n#"', "#ident"),
    ('#pragma ident "x"', "#ident"),
    ('#pragma clang section text=".text\\n.globl g\\ng: ret\\n#"', "section pragma"),
])
def test_a_string_the_compiler_copies_is_refused_in_every_spelling(body, construct):
    """Every spelling a macro, `##`, concatenation, a raw string, a digraph or the C++11 attribute
    syntax leaves in the preprocessed unit. Seen failing before: no module read the unit."""
    found = _found(body + "\n")
    assert [c for c, _, _ in found] == [construct], found
    assert found[0][2] == 1


def test_a_forged_line_marker_moves_the_message_not_the_rule():
    """A `#line` or a forged include marker (g++ honours `# 1 "/usr/include/stdio.h" 1 3 4` in a
    source file) puts the student's line in a system header's name: the rule reads every token."""
    text = '# 1 "/usr/include/stdio.h" 1 3 4\n' + '__attribute__((section(".text"))) const char c[] = {1};\n'
    found = preprocessed.verbatim_strings(STUDENT + text)
    assert [(v.construct, v.file, v.line) for v in found] == [("section attribute", "/usr/include/stdio.h", 1)]
    assert found[0].shown() == 'section attribute ".text" at stdio.h:1'


HONEST = r'''
# 1 "/usr/include/stdio.h" 1 3 4
extern int fscanf (FILE *__restrict __stream, const char *__restrict __format, ...) __asm__ ("" "__isoc99_fscanf");
extern __attribute((gnu_inline)) inline void *memchr(void * __s, int __c, size_t __n) noexcept(true) __asm__("memchr");
namespace std { __extension__ __asm (".globl _ZSt21ios_base_library_initv"); }
static const unsigned long long fatbinData[] __attribute__ ((aligned (8))) __attribute__ ((section (".nvFatBinSegment"))) = {0};
static char __nv_module_id[] __attribute__((section ("__nv_module_id"))) = "x";
# 5 "/sub/07-tensor-cores/matmul.cu" 2
__attribute__((section("tlemu_device_vars"))) float kWeights[16];
__device__ void mma(float* d) { asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1}, {%2}, {%3};\n\t" : "+f"(d[0])); }
void host(int x) { if (x) asm("nop\n"); printf("%d\n", x); }
struct alignas(16) V { float x[4]; } __attribute__((aligned(16)));
__global__ void __launch_bounds__(256, 2) k([[maybe_unused]] const float* __restrict__ M, float* __restrict__ P) {}
const char* raw = R"x(asm("a\nb") __attribute__((section(".text"))) )x";
const char* s = "__asm__(\"x\\ny\")";
[[nodiscard]] int f();
int section = 1, alias = 2;
int g(int symver) { return section + alias + symver; }
'''


def test_what_headers_and_honest_code_write_passes():
    """glibc's asm labels (plain names, joined), libstdc++ 13's `__extension__ __asm` (a statement:
    the listing's matter), nvcc's fatbinary and module id, the emulator's device variables, PTX asm
    in a device function, a host asm statement after `if (...)`, attributes that copy no string,
    strings and raw strings that merely mention asm, and variables named like the attributes."""
    assert preprocessed.verbatim_strings(STUDENT + HONEST) == []
