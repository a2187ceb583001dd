"""Scan a student's compiled object against the grader's allow-list, grader/allowlist.toml, before
anything runs. One list for both backends: the nvcc object (GPU) and the objects of the emulator's
plain, asan and race builds.

- References (undefined symbols): each must match an allowed group of the list; the list's refused
  groups say what to use instead, and anything unlisted is refused with its default advice.
- Definitions (global symbols): the student's own names are fine; a name someone else in the
  runner's process owns (the CUDA runtime, libc/libm/libstdc++/OpenBLAS, the emulator, the grader,
  the sanitizers) is refused, as are Thrust/CUB kernels.
- Static initializers (constructors, .init code, ifunc resolvers) are judged like any other code:
  the worker is confined from its first instruction (docs/integrity.md), so code that runs before
  main can do nothing that launch_matmul cannot.
- No system-call instruction (inline asm bypassing libc), and no main() (defines_main).

This module runs the scan and words its findings; the parts it uses each decide one thing:
symbols.py reads an object's names (`nm`, `c++filt -p`) and its kind, allowlist.py is the policy
(may this name be referenced or defined here), libexports.py says which library owns a name, and
disasm.py reads the machine code (`objdump`). Never the source text. Without those tools nothing
can be verified, and the scan says so (a finding) rather than passing the object. docs/integrity.md
explains the rule.
"""

from __future__ import annotations

import concurrent.futures
import re
from dataclasses import dataclass
from pathlib import Path

from .allowlist import Policy, check_definition, check_reference, library_code, policy
from .artifacts import student_objects  # noqa: F401  (the objects scanned; kept here for callers)
from .disasm import raw_syscalls
from .libexports import owned_symbols
from .symbols import EMU, EMU_ASAN, EMU_RACE, GPU, KINDS  # noqa: F401  (the kinds of object; kept here for callers)
from .symbols import GLOBAL_DEFINED, UNDEFINED, ToolMissing, object_kind, strip_params, symbols


@dataclass(frozen=True)
class Finding:
    symbol: str              # the name as the student wrote it (demangled, no parameters)
    reason: str              # what to use instead / why
    object: str
    kind: str = "reference"  # reference | definition | syscall | unreadable
    group: str = ""          # the allow-list group that decided

    @property
    def message(self) -> str:
        return f"defines {self.symbol}, {self.reason}" if self.kind == "definition" else f"{self.symbol}: {self.reason}"



def classify(symbol: str, kind: str = GPU) -> str | None:
    """Why the object may not reference `symbol` (demangled; a parameter list is ignored), or None."""
    key = strip_params(symbol)
    found = check_reference(key, kind)
    return found[1] if found else None


def classify_defined(symbol: str, kind: str = GPU) -> str | None:
    """Why a definition of `symbol` (demangled) betrays library code (Thrust/CUB), or None."""
    found = library_code(strip_params(symbol), kind)
    return found[1] if found else None


def defines_main(objects: list[Path]) -> bool:
    """Whether the student's code defines main(): the runner supplies main and calls the student's
    functions, so a file that keeps its own cannot be linked into it."""
    return any(s.raw == "main" and s.type in "TtWw" for obj in objects for s in symbols(obj))


def scan_object(obj: Path, kind: str | None = None, build: Path | None = None,
                pol: Policy | None = None) -> list[Finding]:
    pol = pol or policy()
    o = str(obj)
    try:
        syms = symbols(obj)
        kind = kind or object_kind(obj, syms)
        owned = owned_symbols(build, pol)
        out = []
        for s in syms:
            if s.type in UNDEFINED:
                bad = check_reference(s.key, kind, pol)
                if bad:
                    out.append(Finding(as_written(s.key), bad[1], o, "reference", bad[0]))
                continue
            lib = library_code(s.key, kind, pol)
            if lib:
                out.append(Finding(s.key, lib[1], o, "definition", lib[0]))
                continue
            if s.type in GLOBAL_DEFINED:
                bad = check_definition(s, kind, pol, owned)
                if bad:
                    out.append(Finding(s.key, bad[1], o, "definition", bad[0]))
        if raw_syscalls(obj):
            out.append(Finding("syscall instruction", "a system call made around libc: call only what the "
                               "allow-list lists", o, "syscall"))
        return out
    except ToolMissing as e:
        return [Finding(f"{e.args[0]} is missing", "the grader cannot read the compiled file without binutils "
                        "(nm, c++filt, objdump); tell your instructor", o, "unreadable")]


def scan(objects: list[Path], kind: str | None = None, build: Path | None = None) -> list[Finding]:
    """Every finding of the objects (one per symbol and message: the emulator's three builds of one
    file would repeat each). The objects are read side by side (the time is nm's and objdump's, in
    processes of their own: a grade waits for the scan before any check runs); the findings keep
    the objects' order."""
    pol = policy()
    owned_symbols(build, pol)   # once, before the threads share it
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(objects))) as pool:
        per_object = list(pool.map(lambda obj: scan_object(Path(obj), kind, build, pol), objects))
    seen, unique = set(), []
    for found in per_object:
        for f in found:
            if (f.symbol, f.reason) not in seen:
                seen.add((f.symbol, f.reason))
                unique.append(f)
    return unique


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
        names = _compact(names)
        more = f" and {len(names) - limit} more" if len(names) > limit else ""
        parts.append(f"{', '.join(names[:limit])}{more}: {reason}")
    return "; ".join(parts)
