"""Reading a compiled object: its symbols with `nm`, their names demangled without parameters by
`c++filt -p`, and which build made it (the object's kind). Only reading: what the names may be is
the allow-list's decision (allowlist.py), the scan refusal.py's.

A missing tool raises ToolMissing: without binutils nothing can be verified, and the scan says so
rather than passing the object.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

GPU, EMU, EMU_ASAN, EMU_RACE = "gpu", "emu", "emu-asan", "emu-race"
KINDS = (GPU, EMU, EMU_ASAN, EMU_RACE)
EMU_KINDS = (EMU, EMU_ASAN, EMU_RACE)
BUILD_KIND = {"plain": EMU, "asan": EMU_ASAN, "race": EMU_RACE}

# nm's letters for a symbol this object defines with global binding (lowercase = local, skipped);
# V, W and u (GNU unique: inline statics, template static members) are the COMDAT kinds.
GLOBAL_DEFINED = set("ABCDGRSTVWiu")
WEAK = set("VWu")
UNDEFINED = set("Uwv")


class ToolMissing(RuntimeError):
    pass


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise ToolMissing(name)
    return path


def run_tool(*cmd: str, stdin: str | None = None) -> str:
    return subprocess.run([_tool(cmd[0]), *cmd[1:]], input=stdin, capture_output=True, text=True).stdout


_DEMANGLED: dict[str, str] = {}


def demangle(names) -> dict[str, str]:
    """raw symbol -> its name without parameters and return type (`c++filt -p`; where c++filt gives a
    mangled name back, the qualified name it begins with: nested_prefix)."""
    todo = sorted({n for n in names if n not in _DEMANGLED})
    if todo:
        out = run_tool("c++filt", "-p", stdin="\n".join(todo) + "\n").splitlines()
        if len(out) != len(todo):
            out = todo
        _DEMANGLED.update((n, nested_prefix(n) if o.strip() == n else o.strip()) for n, o in zip(todo, out))
    return {n: _DEMANGLED[n] for n in names}


_SOURCE_NAME = re.compile(r"(\d+)")


def nested_prefix(raw: str) -> str:
    """The qualified name an Itanium-mangled symbol begins with, its template arguments as `<...>`:
    `_ZN5tlemu11call_kernelIZ...` -> `tlemu::call_kernel<...>`. For the names an older c++filt cannot
    demangle (binutils 2.35, Debian 11, on a lambda with a parameter pack: `UlDpOT_E_`), which would
    otherwise be judged as reserved (`_Z...`) where a newer one reads the header's template. Only the
    leading names are read, as c++filt would print them; anything else gives raw back."""
    if not raw.startswith("_Z"):
        return raw
    i, parts = 2, []
    nested = raw.startswith("N", i)
    if nested:
        i += 1
        while i < len(raw) and raw[i] in "rVK":
            i += 1
    while i < len(raw):
        if raw.startswith("St", i) and not parts:
            parts.append("std")
            i += 2
            continue
        m = _SOURCE_NAME.match(raw, i)
        if not m:
            break
        start = m.end()
        end = start + int(m.group(1))
        if end > len(raw):
            return raw
        parts.append(raw[start:end])
        i = end
        if not nested:
            break
    if not parts:
        return raw
    name = "::".join(parts)
    return name + "<...>" if raw.startswith("I", i) else name


@dataclass(frozen=True)
class Symbol:
    raw: str
    key: str     # demangled, no parameters
    type: str    # nm's letter


@functools.lru_cache(maxsize=32)
def _nm_of(path: str, mtime: float, size: int) -> tuple[tuple[str, str], ...]:
    out = []
    for line in run_tool("nm", "-P", "--no-sort", path).splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[1]) == 1:
            out.append((parts[0], parts[1]))
    return tuple(out)


def _nm(obj: Path) -> list[tuple[str, str]]:
    """(raw name, nm type letter) of every symbol of the object (read once per version of the file:
    defines_main and the scan both read it)."""
    st = Path(obj).stat()
    return list(_nm_of(str(obj), st.st_mtime, st.st_size))


def symbols(obj: Path) -> list[Symbol]:
    raw = _nm(obj)
    keys = demangle([n for n, _ in raw])
    return [Symbol(n, keys[n], t) for n, t in raw]


def object_kind(obj: Path, syms: list[Symbol] | None = None) -> str:
    """Which build made the object: from the build tree's target folder (emu_<build>_run_..., set by
    grader/cmake), else from what it references (nvcc's registration, ASan's module constructor, ThreadSanitizer's callbacks)."""
    for part in reversed(Path(obj).parts[:-1]):
        m = re.match(r"emu_(plain|asan|race|count)_", part)
        if m:
            return {"count": EMU_RACE}.get(m.group(1)) or BUILD_KIND[m.group(1)]
        if part.startswith("trace_"):
            return EMU_RACE
    names = {s.raw for s in (syms if syms is not None else symbols(obj)) if s.type in UNDEFINED}
    if any(n.startswith("__cudaRegisterFatBinary") for n in names) or Path(obj).name.endswith(".cu.o"):
        return GPU
    if "__asan_init" in names:
        return EMU_ASAN
    if any(n.startswith("__tsan_") for n in names):
        return EMU_RACE
    return EMU


def strip_params(name: str) -> str:
    """A name as c++filt -p writes it, from a raw symbol or from nm -C's full demangled name
    (its trailing parameter list and a leading return type dropped)."""
    s = name.strip()
    if s.startswith("_Z"):
        return demangle([s])[s]
    if s.endswith(")") and not s.endswith("operator()"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i].rstrip()
                break
    if "operator" not in s and not s.startswith(("typeinfo ", "vtable ", "VTT ", "guard variable ")):
        depth, cut = 0, -1
        for i, c in enumerate(s):
            depth += {"<": 1, ">": -1}.get(c, 0)
            if c == " " and depth == 0:
                cut = i
        s = s[cut + 1:]
    return s
