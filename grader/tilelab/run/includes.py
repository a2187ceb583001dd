"""What a student's file included, from the compiler's own dependency output, and which of it is
refused. A submission may include system, C++ and CUDA headers (and the CPU emulator's own
<cuda_runtime.h> and force-included header), and the kit's headers written for students
(STUDENT_HEADERS: <tilelab/mma_ptx.cuh>, the PTX wrappers, whose emulator twin lies in the emulator's
folder); nothing else of the kit -- the reference solutions, the starters, the runner, the
datasets, the kit's other headers, anything in the build tree -- and nothing else outside the
compiler's system folders.

The list comes from the depfile CMake has the compiler write beside each object (-MD -MF <obj>.d,
g++ and nvcc alike): every file the preprocessor actually opened, whatever path, `__has_include`
probe, macro or symlink led to it. Each path is resolved (realpath) before it is judged, so
`../../solutions/...`, an absolute path and a symlink into the kit are the same file. Both backends
are judged the same way, on the object built from the student's file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT
from .artifacts import depfile
from .toolchain import EMU_INCLUDE, system_dirs

# The GPU build's copies of the headers a student may include by name (the emulator's are under EMU_INCLUDE).
STUDENT_HEADERS = (ROOT / "grader" / "include" / "tilelab" / "mma_ptx.cuh",)


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a Make-style depfile's first rule, in order (the main source first);
    backslash-newline continuations and escaped spaces are undone."""
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    first = text.split("\n", 1)[0]
    # The target ends at the first ':' followed by whitespace (a path may hold ':' elsewhere).
    m = re.search(r":(\s|$)", first)
    if not m:
        return []
    body = first[m.end():]
    words, cur, i = [], "", 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body) and body[i + 1] in " #":
            cur += body[i + 1]
            i += 2
            continue
        if c == "$" and i + 1 < len(body) and body[i + 1] == "$":
            cur += "$"
            i += 2
            continue
        if c.isspace():
            if cur:
                words.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        words.append(cur)
    return words


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _shown(path: str, build: Path) -> str:
    for base in (os.path.realpath(build), os.path.realpath(ROOT)):
        if _under(path, base):
            return os.path.relpath(path, base) if base != os.path.realpath(ROOT) else f"{os.path.relpath(path, base)} (a file of the kit)"
    return path


def judge(deps: list[str], build: Path, allowed_dirs: tuple[str, ...], cwd: Path | None = None) -> list[str]:
    """The refused includes among deps (a depfile's prerequisites after the main source), shown
    relative to the kit or build tree where they lie there."""
    kit, tree, emu = (os.path.realpath(p) for p in (ROOT, build, EMU_INCLUDE))
    student = {os.path.realpath(p) for p in STUDENT_HEADERS}
    refused = []
    for dep in deps:
        path = dep if os.path.isabs(dep) else os.path.join(cwd or build, dep)
        real = os.path.realpath(path)
        if _under(real, emu) or real in student:
            continue
        # A system folder's own symlink counts as the folder (Debian 13's x86_64-linux-gnu/asm is
        # /usr/lib/linux/uapi/x86/asm): the path as the compiler found it, `..` undone but no link
        # followed, inside an allowed folder, and the file it is nowhere in the kit or the tree.
        lexical = os.path.abspath(path)
        if not (_under(real, kit) or _under(real, tree)) and any(_under(real, d) or _under(lexical, d) for d in allowed_dirs):
            continue
        shown = _shown(real, build)
        if shown not in refused:
            refused.append(shown)
    return refused


@dataclass
class IncludeCheck:
    refused: list[str]            # includes that are not allowed
    unverifiable: list[str]       # objects without a depfile (the check cannot be made)


def check(objects: list[Path], build: Path) -> IncludeCheck:
    """Judge the includes of each student object from its depfile."""
    allowed = system_dirs(build)
    refused: list[str] = []
    missing: list[str] = []
    for obj in objects:
        try:
            deps = parse_depfile(depfile(obj).read_text(errors="replace"))
        except OSError:
            missing.append(str(obj))
            continue
        for r in judge(deps[1:], build, allowed):
            if r not in refused:
                refused.append(r)
    return IncludeCheck(refused, missing)
