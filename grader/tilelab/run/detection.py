"""What CMake detects when it configures a tree -- the compilers (nvcc's identification, its test
compile and ABI probe; the C and C++ compilers' the same), nvcc's toolkit, Python's interpreter --
found once by the prebuilt kit's configure and taken by every submission tree that uses the kit,
instead of each tree detecting it all again (issue 45: 10.5 s of a submission's configure on the GPU
machine, most of it this). Both trees run the same CMake, compilers and Python on the same machine
(kit.key digests their versions and paths), so what the kit's tree found is what a submission's
would find.

Two things cross, both from the kit's folder, which only the grader writes: CMake's own record of
the platform and each language's compiler (the kit tree's CMakeFiles/<version>/CMakeSystem.cmake and
CMake<LANG>Compiler.cmake, copied into the new tree: CMake reads them instead of detecting again, as
when it configures a tree a second time), and an initial cache (-C) of the kit's cache entries named
by DETECTED (the compilers' and tools' paths, what FindPython3 and FindCUDAToolkit found). No
secret is among them: the kit is configured without a grading seed, and nothing else crosses.
A tree configured by the grader (never the sandbox user) takes them before its first configure."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

INITIAL_CACHE = "tilelab-detected.cmake"   # in the kit's folder

# The cache entries that record detection, not a choice of this tree: compilers and binutils,
# FindPython3's interpreter and its cached properties, FindCUDAToolkit's findings, nvidia-smi.
DETECTED = re.compile(r"CMAKE_(C|CXX|CUDA)_(COMPILER|HOST_COMPILER|COMPILER_AR|COMPILER_RANLIB)"
                      r"|CMAKE_(AR|RANLIB|LINKER|NM|OBJCOPY|OBJDUMP|STRIP|READELF|ADDR2LINE|DLLTOOL|MAKE_PROGRAM|UNAME|EXECUTABLE_FORMAT)"
                      r"|_?Python3_\w+|_?CUDAToolkit_\w+|CUDA_\w+_LIBRARY|TILELAB_NVIDIA_SMI")
_TYPES = ("BOOL", "FILEPATH", "PATH", "STRING", "INTERNAL")
_ENTRY = re.compile(r"^([A-Za-z_][\w.+-]*):([A-Z]+)=(.*)$")


def initial_cache(cmake_cache: str) -> str:
    """The DETECTED entries of a CMakeCache.txt's text, as an initial-cache script for `cmake -C`."""
    # The mark CMake leaves in a cache whose CMakeFiles/<version>/ it wrote: without it, CMake takes
    # the platform files copied there for a stale tree's and removes them before detecting again.
    lines = ["# Written by tilelab (grader/tilelab/run/detection.py) from the kit's CMakeCache.txt.",
             'set(CMAKE_PLATFORM_INFO_INITIALIZED 1 CACHE INTERNAL "")']
    for line in cmake_cache.splitlines():
        m = _ENTRY.match(line)
        if not m or not DETECTED.fullmatch(m.group(1)):
            continue
        name, kind, value = m.groups()
        # Not found (searched for again anyway), not a type set() takes, or not quotable as a
        # bracket argument: left for CMake to find.
        if value.endswith("-NOTFOUND") or kind not in _TYPES or "]==]" in value:
            continue
        lines.append(f'set({name} [==[{value}]==] CACHE {kind} "")')
    return "\n".join(lines) + "\n"


def save(kit_tree: Path) -> None:
    """After the kit's configure: its DETECTED cache entries as INITIAL_CACHE in its folder."""
    cache = kit_tree / "CMakeCache.txt"
    if cache.is_file():
        (kit_tree / INITIAL_CACHE).write_text(initial_cache(cache.read_text(errors="replace")))


def take(kit: Path | None, build: Path) -> list[str]:
    """Before a tree that uses the kit is configured: the kit tree's platform files copied into the
    tree (where it has none of its own) and the `-C` arguments of its initial cache; [] without them."""
    if kit is None or not (kit / INITIAL_CACHE).is_file():
        return []
    for system in (kit / "CMakeFiles").glob("*/CMakeSystem.cmake"):
        target = build / "CMakeFiles" / system.parent.name
        if not (target / "CMakeSystem.cmake").exists():
            target.mkdir(parents=True, exist_ok=True)
            for f in system.parent.glob("CMake*.cmake"):
                shutil.copyfile(f, target / f.name)
    return ["-C", str(kit / INITIAL_CACHE)]
