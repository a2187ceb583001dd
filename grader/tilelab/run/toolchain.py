"""Where a build tree's compilers find their system headers: the C++ compiler's own search list,
the CUDA Toolkit's include folders, and the emulator's headers. Read by the include check
(includes.py: what a student's file may include) and by the tree (tree.py: which files a compiler
message may quote); it judges nothing itself."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from pathlib import Path

from .. import ROOT

EMU_INCLUDE = ROOT / "grader" / "emu" / "include"   # the emulator's cuda_runtime.h, cuda.h, tilelab_emu.h


def _search_dirs(compiler: str) -> list[str]:
    """The compiler's own #include <...> search list (`-E -v`), as real paths."""
    try:
        p = subprocess.run([compiler, "-xc++", "-E", "-v", os.devnull], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    text = p.stderr
    start, end = text.find("#include <...> search starts here:"), text.find("End of search list.")
    if start < 0 or end < 0:
        return []
    return [os.path.realpath(line.strip()) for line in text[start:end].splitlines()[1:] if line.strip()]


def _cuda_dirs(nvcc: str) -> list[str]:
    """The CUDA Toolkit's header folders, from where nvcc lives (bin/../include, targets/*/include)."""
    root = Path(os.path.realpath(nvcc)).parent.parent
    dirs = [root / "include", *map(Path, glob.glob(str(root / "targets" / "*" / "include")))]
    return [os.path.realpath(d) for d in dirs if d.is_dir()]


def _cache_value(build: Path, key: str) -> str:
    try:
        for line in (build / "CMakeCache.txt").read_text(errors="replace").splitlines():
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


UAPI = "/usr/lib/linux/uapi"


@functools.cache
def _system_dirs_for(cxx: str, nvcc: str) -> tuple[str, ...]:
    dirs = set(_search_dirs(cxx)) if cxx else set()
    if nvcc:
        dirs.update(_cuda_dirs(nvcc))
    dirs.add(os.path.realpath("/usr/include"))
    # Debian 13's kernel headers: /usr/include/x86_64-linux-gnu/asm/*.h are links into it, and g++'s
    # depfile names system headers by their canonical path (-fcanonical-system-headers).
    if os.path.isdir(UAPI):
        dirs.add(os.path.realpath(UAPI))
    return tuple(sorted(dirs))


def system_dirs(build: Path) -> tuple[str, ...]:
    """Where allowed headers live: the C++ compiler's search list and the CUDA Toolkit's include
    folders, for the compilers this build tree was configured with."""
    cxx = _cache_value(build, "CMAKE_CXX_COMPILER") or shutil.which("c++") or ""
    nvcc = _cache_value(build, "CMAKE_CUDA_COMPILER") or shutil.which("nvcc") or ""
    return _system_dirs_for(cxx, nvcc)
