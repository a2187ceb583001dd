"""Who owns which names in the runner's process: the symbols the libraries the allow-list names
(the CUDA runtime, libc/libm/libstdc++/OpenBLAS, the emulator's, the sanitizers') export, found on
this machine and read with `nm`, kept on disk between grades. A student's definition of one of
them is refused (allowlist.check_definition)."""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from .symbols import GLOBAL_DEFINED, WEAK, run_tool


@functools.cache
def _ldconfig() -> dict[str, str]:
    """soname -> path of the native libraries the dynamic linker knows (ldconfig -p)."""
    exe = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
    text = subprocess.run([exe, "-p"], capture_output=True, text=True).stdout if exe else ""
    native = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(os.uname().machine, "")
    found: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if m and (not native or native in m.group(2)):
            found.setdefault(m.group(1), m.group(3))
    return found


# Where shared libraries lie when ldconfig's cache says nothing (a container without one).
_LIB_DIRS = ("/lib/*-linux-gnu", "/usr/lib/*-linux-gnu", "/lib64", "/usr/lib64")


def _cuda_lib_dirs() -> list[Path]:
    dirs = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        root = Path(nvcc).resolve().parent.parent
        dirs += [root / "lib64", root / "targets" / "x86_64-linux" / "lib"]
    dirs += [Path("/usr/local/cuda/lib64")]
    return [d for d in dirs if d.is_dir()]


def library_paths(pol, build: Path | None) -> list[Path]:
    """The libraries the list names (pol: allowlist.Policy, handed in: the policy's module reads the
    names, this one the libraries), as found on this machine (missing ones are skipped)."""
    paths: list[Path] = []
    cuda = _cuda_lib_dirs()
    system = [Path(d) for pattern in _LIB_DIRS for d in sorted(Path("/").glob(pattern.lstrip("/")))]
    for pat in pol.libraries:
        paths += [Path(p) for so, p in _ldconfig().items() if fnmatch.fnmatchcase(so, pat)]
        for d in cuda + system:
            paths += sorted(d.glob(pat))
    for pat in pol.static_libraries:
        for d in cuda + ([build, *(p for p in build.iterdir() if p.is_dir())] if build and build.is_dir() else []):
            paths += sorted(d.glob(pat))
    seen, out = set(), []
    for p in paths:
        rp = p.resolve()
        if rp.is_file() and rp not in seen:
            seen.add(rp)
            out.append(rp)
    return out


@functools.cache
def _exports(path: str, mtime: float, size: int) -> dict[str, bool]:
    """symbol -> defined strongly, for what the library exports (a shared library: its dynamic
    symbols; a static one: its global definitions)."""
    flags = ["-D", "--defined-only"] if ".so" in Path(path).name else ["--defined-only"]
    out: dict[str, bool] = {}
    for line in run_tool("nm", "-P", "--no-sort", *flags, path).splitlines():
        parts = line.split()
        if len(parts) < 2 or len(parts[1]) != 1 or parts[1] not in GLOBAL_DEFINED:
            continue
        name = parts[0].split("@")[0]
        out[name] = out.get(name, False) or parts[1] not in WEAK
    return out


def owned_symbols(build: Path | None, pol) -> dict[str, tuple[str, bool]]:
    """symbol -> (the library that defines it, whether strongly), over the libraries the list names
    (read once per process and library version)."""
    libs = []
    for p in library_paths(pol, build):
        st = p.stat()
        libs.append((str(p), st.st_mtime, st.st_size))
    return _owned(tuple(libs))


def _cache_dir() -> Path:
    """Where the names the libraries own are kept between grades: build/.cache of the kit, outside
    every build tree (the sandbox user may write a tree while it compiles, never this folder)."""
    return Path(__file__).resolve().parents[3] / "build" / ".cache"


@functools.lru_cache(maxsize=8)
def _owned(libs: tuple[tuple[str, float, int], ...]) -> dict[str, tuple[str, bool]]:
    """Read once per set of library versions: a grade is a new process, and reading some twenty
    libraries with nm takes about a second, so the result is kept on disk, keyed by every
    library's path, modification time and size."""
    key = hashlib.sha256(json.dumps(libs).encode()).hexdigest()[:24]
    cached = _cache_dir() / f"owned-symbols-{key}.json"
    try:
        data = json.loads(cached.read_text())
        if data.get("libs") == [list(lib) for lib in libs]:
            return {name: (lib, bool(strong)) for name, (lib, strong) in data["owned"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    owned: dict[str, tuple[str, bool]] = {}
    for lib in libs:
        for name, strong in _exports(*lib).items():
            prev = owned.get(name)
            if prev is None or (strong and not prev[1]):
                owned[name] = (Path(lib[0]).name, strong)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"libs": [list(lib) for lib in libs], "owned": owned}))
        tmp.replace(cached)
    except OSError:
        pass  # a read-only kit: read the libraries again next time
    return owned
