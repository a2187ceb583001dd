"""What the allow-list scan found (refusal.py runs it), worded for the student: one finding per
name and reason, the names as the student wrote them (`open`, not the `__open_2` that
_FORTIFY_SOURCE made of it), and the one line a refused stage's checks say. Reads no object."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    symbol: str              # the name as the student wrote it (demangled, no parameters)
    reason: str              # what to use instead / why
    object: str
    kind: str = "reference"  # reference | definition | syscall | assembly | verbatim | builtin | unreadable
    group: str = ""          # the allow-list group that decided

    @property
    def message(self) -> str:
        return f"defines {self.symbol}, {self.reason}" if self.kind == "definition" else f"{self.symbol}: {self.reason}"


# The reason of every `assembly` finding (refusal.assembly_findings; its symbol: the first line of
# the student's asm). One rule on both backends: docs/integrity.md, "Nothing the instrumentation
# cannot see".
ASSEMBLY = ("assembly at file scope is not allowed, nor in a host or naked function: the grader's builds "
            "count and check only the code the compiler makes of your C++/CUDA, and never see into your "
            "own assembly (a function, .incbin, .section, .init code). Write it in C++ (on the GPU, PTX "
            "`asm` inside a __device__ function stays yours; <tilelab/mma_ptx.cuh> wraps mma.sync)")

# The reason of every `verbatim` finding (refusal.verbatim_findings; its symbol: what and where,
# preprocessed.Verbatim.shown): the same rule, for the strings the compiler copies into its assembly
# as they stand, which no #APP line marks.
VERBATIM = ("an asm label (`f() __asm__(\"...\")`) or an alias, weakref, symver or ifunc attribute whose string is "
            "more than a symbol's name, a section attribute or pragma, #ident: none is allowed, the compiler copies their "
            "strings into its assembly as they stand, where the grader's builds cannot count or check what they do. "
            "Name functions in C++ (extern \"C\" for an unmangled name) and leave sections to the compiler")


# The reason of the `indirect` finding (refusal.scan_object; its symbol: the function, disasm.py).
INDIRECT_BRANCH = ("an indirect branch outside the emulator's check (an indirect_branch attribute or pragma): every call "
                   "through a pointer must land on a function, which the emulator checks, so that no machine code the "
                   "grader cannot see runs. Remove the attribute; calls through function pointers, virtual calls and "
                   "std::function are fine")

# The reasons of the `builtin` findings (refusal.builtin_findings; their symbols: the builtins named,
# frame_builtins.py and vector_builtins.py).
FRAME_BUILTINS = ("builtins that reach a stack frame or its return address (__builtin_frame_address, "
                  "__builtin_return_address, __builtin_apply, __builtin_setjmp ...) and computed goto (goto *) are not "
                  "allowed: the emulator checks where calls through pointers land, and these would let code land "
                  "elsewhere. A kernel needs none of them; write plain calls and loops")

VECTOR_BUILTINS = ("x86 vector intrinsics (<immintrin.h>, <x86intrin.h>: the __builtin_ia32_* they are made of) are not "
                   "allowed: the grader's builds cannot see their memory accesses, and a GPU has none. Write plain "
                   "loads and stores (float4 for wide ones)")

def _compact(names: list[str]) -> list[str]:
    """Names of one class template's members shown once: `std::basic_filebuf<...>::{close, open}`;
    plain names first, then the vtables and typeinfo the compiler refers to."""
    by_class: dict[str, list[str]] = {}
    out = []
    for n in sorted(set(names)):
        head, sep, member = n.rpartition("::")
        if sep and "<" in head and " for " not in n:
            by_class.setdefault(head, []).append(member)
        else:
            out.append(n)
    out += [f"{c}::{m[0]}" if len(m) == 1 else f"{c}::{{{', '.join(m)}}}" for c, m in by_class.items()]
    return sorted(out, key=lambda n: (n.startswith(("vtable for ", "VTT for ", "typeinfo ")), n.lower()))


# glibc's _FORTIFY_SOURCE (on by default in Ubuntu's g++ when optimising: the GPU machine's) turns
# some calls into checked ones: longjmp into __longjmp_chk, open into __open_2.
_FORTIFIED = re.compile(r"^__(\w+?)(?:_chk|_2)$")
_FORTIFIABLE = {"longjmp", "open", "open64", "openat", "openat64", "read", "pread", "pread64", "readlink",
                "readlinkat", "getcwd", "realpath", "fread", "fgets", "gets", "recv", "recvfrom", "poll", "ppoll",
                "mq_open", "ttyname_r", "getlogin_r", "gethostname", "getdomainname", "confstr", "getgroups",
                "wctomb", "mbstowcs", "wcstombs", "syslog", "vsyslog", "fdelt"}


def as_written(name: str) -> str:
    """The call as the student wrote it: `open` for the __open_2 that _FORTIFY_SOURCE made of it (the
    allow-list decides on the real name; the student reads this one)."""
    m = _FORTIFIED.match(name)
    return m.group(1) if m and m.group(1) in _FORTIFIABLE else name


def summary(found: list[Finding], limit: int = 10) -> str:
    """One line for the student: findings grouped by what to do instead, each naming its symbols;
    groups are separated by "; " (no advice in the list holds one)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for f in found:
        groups.setdefault((f.kind, f.reason), []).append(f.symbol)
    parts = []
    for (kind, reason), names in groups.items():
        if kind == "definition":
            names = sorted(set(names))
            parts += [f"defines {n}, {reason}" for n in names[:limit]]
            if len(names) > limit:
                parts.append(f"and {len(names) - limit} more definitions")
            continue
        if kind in ("assembly", "verbatim"):
            shown = ", ".join(f"`{n}`" for n in list(dict.fromkeys(names))[:3])
            parts.append(f"{reason} ({'your assembly' if kind == 'assembly' else 'yours'}: {shown})")
            continue
        names = _compact(names)
        more = f" and {len(names) - limit} more" if len(names) > limit else ""
        parts.append(f"{', '.join(names[:limit])}{more}: {reason}")
    return "; ".join(parts)
