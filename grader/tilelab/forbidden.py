"""Scan a student's compiled object for calls the assignment forbids: libraries that would do the
work (cuBLAS, cuDNN, CUTLASS's host API), loading code (dlopen), running programs (system, exec,
fork), and file or network I/O. Reads the undefined symbols with `nm`, never the source text."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .artifacts import student_objects  # noqa: F401  (the objects scanned; kept here for callers)

PATTERNS = {
    "a math library does the work": r"^(cublas|cublasLt|cudnn|cufft|cusparse|cusolver|cutlass|curand)",
    "loads code at run time": r"^(dlopen|dlsym|dlvsym|dlmopen|dladdr)$",
    "runs another program": r"^(system|popen|fork|vfork|clone|clone3|daemon|execl|execlp|execle|execv|execve|"
                            r"execvp|execvpe|execveat|fexecve|posix_spawnp?)$",
    "leaves or signals the grader's processes": r"^(setsid|setpgid|setpgrp|kill|killpg|tgkill|ptrace|prctl|"
                                                r"setrlimit|prlimit|prlimit64|at_quick_exit|on_exit|"
                                                r"signal|sigaction|raise)$",
    "starts threads": r"^(pthread_create|std::thread::_M_start_thread)$",
    "makes raw system calls": r"^syscall$",
    "file or network I/O": r"^(fopen|fopen64|freopen|freopen64|fdopen|open|open64|openat|openat64|creat|creat64|"
                           r"mmap|mmap64|opendir|fdopendir|scandir|readlink|stat|stat64|lstat|access|"
                           r"socket|connect|bind|sendto|getaddrinfo|unlink|remove|rename)$",
    "C++ file streams": r"basic_[io]?fstream|basic_filebuf|^std::filesystem::|^std::__cxx11::path",
}

# Symbols the object DEFINES that betray library code compiled into it: Thrust and CUB are header
# only, so their kernels are instantiated in the student's own object.
DEFINED_PATTERNS = {
    "a library does the work (Thrust/CUB kernels)": r"(^|[^A-Za-z0-9_])(thrust|cub)::",
}


@dataclass(frozen=True)
class Finding:
    symbol: str
    reason: str
    object: str


def _nm(obj: Path, *flags: str) -> list[tuple[str, str]]:
    """(type letter, demangled name) of each symbol nm lists; empty when nm is missing."""
    nm = shutil.which("nm")
    if not nm:
        return []
    p = subprocess.run([nm, *flags, "-C", str(obj)], capture_output=True, text=True)
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"^\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z?])\s+(.+)$", line)   # "[addr] T name with spaces"
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def undefined_symbols(obj: Path) -> list[str]:
    return [name for kind, name in _nm(obj, "-u") if kind in ("U", "w", "v")]


def defined_symbols(obj: Path) -> list[str]:
    return [name for kind, name in _nm(obj, "--defined-only")]


def classify(symbol: str) -> str | None:
    base = symbol.split("(")[0].split("@")[0].strip()
    for reason, pat in PATTERNS.items():
        if re.search(pat, base):
            return reason
    return None


def classify_defined(symbol: str) -> str | None:
    for reason, pat in DEFINED_PATTERNS.items():
        if re.search(pat, symbol):
            return reason
    return None


# Calls a static initializer may make: the C++ runtime's own (iostream's Init, registering
# destructors), nvcc's fatbinary registration and the CPU emulator's __shared__ variables at
# namespace scope. Anything else runs the student's code before main -- in the grader's trusted
# parent process, before it forks the child that runs the student's functions.
_INIT_ALLOWED = re.compile(
    r"^(std::ios_base::Init::Init|__cxa_atexit|__dso_handle|__cudaRegister\w*|__cudaUnregister\w*|"
    r"atexit|__nv_\w*|_ZL\w*|tlemu::(shared_var|dynamic_shared)\b.*|__static_initialization_and_destruction_0.*|"
    r"_GLOBAL__sub_I_.*|__sti____cudaRegisterAll.*|.*__cudaRegisterLinkedBinary.*|.*__fatbinwrap.*|"
    r"__cxa_guard_(acquire|release|abort)|operator delete.*|operator new.*|std::ios_base::Init::~Init.*)$")


def _objdump(obj: Path, *flags: str) -> str:
    od = shutil.which("objdump")
    if not od:
        return ""
    return subprocess.run([od, *flags, "-C", str(obj)], capture_output=True, text=True).stdout


def static_initializer_calls(obj: Path) -> list[str]:
    """What the object's static initializers (_GLOBAL__sub_I_*, .text.startup, .init_array
    constructors) call, other than the allowed runtime and registration functions."""
    text = _objdump(obj, "-dr", "--section=.text.startup")
    bad, last, function = [], "", ""
    for line in text.splitlines():
        label = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if label:
            function = label.group(1)
            continue
        if function == "main":   # g++ -O2 puts main in .text.startup too; it is no initializer (defines_main)
            continue
        m = re.match(r"\s+[0-9a-f]+: (R_X86_64_\w+)\s+(.+?)(?:[-+]0x[0-9a-f]+)?$", line)
        if not m:
            ins = re.match(r"\s+[0-9a-f]+:\s+(?:[0-9a-f]{2} )+\s*(\w+)", line)
            last = ins.group(1) if ins else last
            continue
        target = m.group(2).strip()
        if last.startswith(("call", "jmp")) and not target.startswith(".") and not _INIT_ALLOWED.match(target):
            bad.append(target)
    return sorted(set(bad))


def defines_main(objects: list[Path]) -> bool:
    """Whether the student's code defines main(): the runner supplies main and calls the student's
    functions, so a file that keeps its own cannot be linked into it."""
    return any(name == "main" for obj in objects for kind, name in _nm(obj, "--defined-only") if kind in "TtWw")


def raw_syscalls(obj: Path) -> bool:
    """Whether the machine code holds a system-call instruction (inline asm bypassing libc)."""
    return bool(re.search(r"\s(syscall|sysenter|int\s+\$0x80)\s*$", _objdump(obj, "-d", "--no-show-raw-insn"), re.M))


def scan(objects: list[Path]) -> list[Finding]:
    out = []
    for obj in objects:
        for sym in undefined_symbols(obj):
            reason = classify(sym)
            if reason:
                out.append(Finding(sym, reason, str(obj)))
        for sym in defined_symbols(obj):
            reason = classify_defined(sym)
            if reason:
                out.append(Finding(sym.split("(")[0], reason, str(obj)))
        for target in static_initializer_calls(obj):
            out.append(Finding(f"static initializer calls {target}", "runs code before main", str(obj)))
        if raw_syscalls(obj):
            out.append(Finding("syscall instruction", "makes raw system calls", str(obj)))
    # One finding per symbol and reason (an object per emulator build would repeat each).
    seen, unique = set(), []
    for f in out:
        if (f.symbol, f.reason) not in seen:
            seen.add((f.symbol, f.reason))
            unique.append(f)
    return unique
