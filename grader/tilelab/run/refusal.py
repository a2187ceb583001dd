"""The scan of a stage's build before anything of it runs (the engine's second step): whether
what was compiled from the student's file may be graded at all. Its includes (includes.py, from the
depfiles), and its symbols against the grader's allow-list, grader/allowlist.toml. One list for both
backends: the nvcc object (GPU) and the objects of the emulator's plain, asan and race builds.

- References (undefined symbols): each must match an allowed group of the list; the list's refused
  groups say what to use instead, and anything unlisted is refused with its default advice.
- Definitions (global symbols): the student's own names are fine; a name someone else in the
  runner's process owns (the CUDA runtime, libc/libm/libstdc++/OpenBLAS, the emulator, the grader,
  the sanitizers) is refused, as are Thrust/CUB kernels.
- Static initializers (constructors, .init code, ifunc resolvers) are judged like any other code:
  the worker is confined from its first instruction (docs/integrity.md), so code that runs before
  main can do nothing that launch_matmul cannot.
- No system-call instruction (inline asm bypassing libc), and no main() (defines_main). In an
  emulator build's object, no indirect branch that bypasses the runtime's check (disasm.py).
- No assembly of the student's own outside device code (listing.py reads the assembler's listing
  of the compiler's output): at file scope, in a host or naked function, however made. The
  emulator's rewriter refuses it in device code; nvcc's device code (PTX) is not in the listing.
  Nor strings the compiler copies into its assembly unmarked (preprocessed.py reads the
  preprocessed unit the compile wrote): asm labels, section/alias/weakref/symver/ifunc names, #ident.
  Nor x86 vector builtins (vector_builtins.py, the same unit): no instrumentation sees their accesses;
  nor builtins that reach a stack frame's return address, or a computed goto (frame_builtins.py).

This module composes the scan from parts that each decide one thing, side by side (none imports
another but for symbols.py's vocabulary): symbols.py reads an object's names (`nm`, `c++filt -p`)
and its kind, allowlist.py is the policy (may this name be referenced or defined here),
libexports.py says which library owns a name, disasm.py reads the machine code (`objdump`),
listing.py the assembler's listing of the compiler's output, preprocessed.py the unit the compiler
compiled (vector_builtins.py its x86 vector builtins), and forbidden.py words what the scan
found. Never the source text. Without those tools nothing can be verified, and the scan says so (a finding) rather than passing the object. docs/integrity.md
explains the rule.
"""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

from . import artifacts, frame_builtins, includes, listing, outcome, preprocessed, vector_builtins
from .allowlist import Policy, check_definition, check_reference, library_code, policy
from .disasm import raw_syscalls, unchecked_indirect_branches
from .forbidden import ASSEMBLY, FRAME_BUILTINS, INDIRECT_BRANCH, VECTOR_BUILTINS, VERBATIM, Finding, as_written, summary
from .libexports import owned_symbols
from .symbols import EMU_KINDS, GLOBAL_DEFINED, UNDEFINED, ToolMissing, demangle, object_kind, symbols
from ..specs import spec


def defines_main(objects: list[Path]) -> bool:
    """Whether the student's code defines main(): the runner supplies main and calls the student's
    functions, so a file that keeps its own cannot be linked into it."""
    return any(s.raw == "main" and s.type in "TtWw" for obj in objects for s in symbols(obj))


def assembly_findings(obj: Path, o: str) -> list[Finding]:
    """The student's own assembly in the object's listing (listing.py): code that no build
    instruments or checks, and code in a section of the student's naming. No listing (a build that
    wrote none) is a finding too: fail closed."""
    path = artifacts.listing(obj)
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return [Finding(f"{path.name} is missing", "the grader cannot see what the compiler made of the file "
                        "(it wrote no assembly listing); tell your instructor", o, "unreadable")]
    return [Finding(own, ASSEMBLY, o, "assembly") for own in listing.own_assembly(text)] + \
        [Finding(f"section attribute {name} on a function (code there)", VERBATIM, o, "verbatim")
         for name in listing.foreign_code_sections(text)]


def verbatim_findings(obj: Path, o: str) -> list[Finding]:
    """The strings the compiler would copy into the object's assembly unmarked (preprocessed.py),
    read from the unit the compile wrote beside it. None written is a finding too: fail closed."""
    path = artifacts.preprocessed(obj)
    try:
        found = preprocessed.verbatim_strings(path.read_text(errors="replace"))
    except OSError:
        return [Finding(f"{path.name} is missing", "the grader cannot see what the compiler compiled (it wrote no "
                        "preprocessed file); tell your instructor", o, "unreadable")]
    return [Finding(v.shown(), VERBATIM, o, "verbatim") for v in found]


def builtin_findings(obj: Path, o: str) -> list[Finding]:
    """The x86 vector builtins the object's preprocessed unit names (vector_builtins.py): one finding
    for them all; and each builtin that reaches a stack frame, or a computed goto (frame_builtins.py).
    A missing unit is verbatim_findings' finding."""
    try:
        text = artifacts.preprocessed(obj).read_text(errors="replace")
    except OSError:
        return []
    code = preprocessed.code_only(text)   # once for both rules: the unit is megabytes of headers
    found, frames = vector_builtins.vector_builtins(text, code), frame_builtins.frame_builtins(text, code)
    return ([Finding(vector_builtins.shown(found), VECTOR_BUILTINS, o, "builtin")] if found else []) + \
        [Finding(name, FRAME_BUILTINS, o, "builtin") for name in frames]


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
        out += assembly_findings(obj, o) + verbatim_findings(obj, o) + builtin_findings(obj, o)
        if kind in EMU_KINDS:
            unchecked = unchecked_indirect_branches(obj)
            names = demangle(unchecked) if unchecked else {}
            out += [Finding(f"indirect branch in {names.get(f, f)}", INDIRECT_BRANCH, o, "indirect") for f in unchecked]
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


def refusal(build: Path, stage: spec.Stage, objects: list[Path]) -> outcome.Refused | outcome.DidNotCompile | None:
    """Why what was compiled from the student's file may not be graded, or None. Refused: an include
    outside the system and CUDA headers, a symbol outside the allow-list (grader/allowlist.toml:
    what the file may call and define, what its static initializers may call; docs/integrity.md).
    DidNotCompile: its own main() (it cannot be linked), or includes the compiler wrote no
    dependency file for. Read from this build's objects and depfiles only; scanned even when the
    link failed (a call to cuBLAS compiles, then fails to link, and the student should read
    "forbidden: cublasSgemm_v2", not a linker message)."""
    if not objects:
        return None
    if defines_main(objects):
        return outcome.DidNotCompile(
            f"{stage.id}/matmul.cu defines main(): the grader supplies main and calls your "
            "launch_matmul itself, so a file with its own main cannot be linked into it. Remove "
            "your main (keep it in another file for your own tests) and submit the kernel and its "
            "launch code only.")
    inc = includes.check(objects, build)
    if inc.refused:
        return outcome.Refused(f"{stage.id}/matmul.cu includes files it may not: {'; '.join(inc.refused)}. "
                               "Only system, C++ and CUDA headers may be included (<cuda_runtime.h>, <cstdio>, ...); "
                               "the file must be self-contained.")
    if inc.unverifiable:
        return outcome.DidNotCompile("the grader could not check what the file includes (the compiler wrote no "
                                     f"dependency file for {', '.join(inc.unverifiable)}); tell your instructor")
    # One list for both backends; each object is judged as the build that made it (nvcc, or the
    # emulator's plain, asan or race build: symbols.object_kind).
    found = scan(objects, build=build)
    if found:
        return outcome.Refused("the code uses what this assignment forbids (the allow-list: docs/integrity.md): "
                               + summary(found))
    return None
