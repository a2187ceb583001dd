"""Scan a student's compiled object for calls the assignment forbids: libraries that would do the
work (cuBLAS, cuDNN, CUTLASS's host API), loading code (dlopen), running programs (system, exec,
fork), and file or network I/O. Reads the undefined symbols with `nm`, never the source text."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

PATTERNS = {
    "a math library does the work": r"^(cublas|cublasLt|cudnn|cufft|cusparse|cusolver|cutlass)",
    "loads code at run time": r"^(dlopen|dlsym|dlmopen)$",
    "runs another program": r"^(system|popen|fork|vfork|execl|execlp|execle|execv|execve|execvp|execvpe|posix_spawnp?)$",
    "file or network I/O": r"^(fopen|fopen64|freopen|open|open64|openat|creat|socket|connect|unlink|remove|rename)$",
    "C++ file streams": r"basic_[io]?fstream|basic_filebuf",
}


@dataclass(frozen=True)
class Finding:
    symbol: str
    reason: str
    object: str


def undefined_symbols(obj: Path) -> list[str]:
    nm = shutil.which("nm")
    if not nm:
        return []
    p = subprocess.run([nm, "-u", "-C", str(obj)], capture_output=True, text=True)
    syms = []
    for line in p.stdout.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0] in ("U", "w", "v"):
            syms.append(parts[1].strip())
    return syms


def classify(symbol: str) -> str | None:
    base = symbol.split("(")[0].split("@")[0].strip()
    for reason, pat in PATTERNS.items():
        if re.search(pat, base):
            return reason
    return None


def scan(objects: list[Path]) -> list[Finding]:
    out = []
    for obj in objects:
        for sym in undefined_symbols(obj):
            reason = classify(sym)
            if reason:
                out.append(Finding(sym, reason, str(obj)))
    return out


def student_objects(build: Path, impl: str, stage: str) -> list[Path]:
    """The objects compiled from <impl>/<stage>/matmul.cu (not the kit's adapter or runner)."""
    sid = re.sub(r"[^A-Za-z0-9_]", "_", stage)
    found = []
    for d in (build / "CMakeFiles").glob(f"*{impl}*{sid}*"):
        found += [o for o in d.rglob("*.o") if "matmul" in o.name]
    return sorted(found)
