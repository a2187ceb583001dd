"""The grader's identity: one digest of everything that decides a grade besides the submission and
the batch's settings -- the grader's code (Python package, runner, emulator, CMake, C++ core), the
dataset generator, the stage specs and the reference solutions. A batch's resume key includes it,
so fixing the grader regrades everyone on the next run, and the gradebook records it (with the seed)
as the version each grade was made with.

Walked from the files themselves, not from git: a released or copied kit has no history, and an
uncommitted fix must count as a change as much as a committed one."""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from .. import ROOT

# What a grade depends on, relative to the kit's root. The kit's own tests and the setup scripts
# are not in it (changing a test must not regrade a class).
PARTS = ("CMakeLists.txt", "grader/CMakeLists.txt", "grader/tilelab", "grader/runner", "grader/emu",
         "grader/cmake", "grader/src", "grader/include", "grader/contract.toml", "datasets")
STAGE_FILES = ("assignments/*/stage.toml", "solutions/*/matmul.cu")
SKIPPED = {"__pycache__", ".pytest_cache"}


def files(root: Path = ROOT) -> list[Path]:
    found = []
    for part in PARTS:
        p = root / part
        if p.is_file():
            found.append(p)
        elif p.is_dir():
            found += [f for f in p.rglob("*") if f.is_file() and not SKIPPED & set(f.relative_to(root).parts)
                      and f.suffix not in (".pyc",)]
    for pattern in STAGE_FILES:
        found += [f for f in root.glob(pattern) if f.is_file()]
    return sorted(set(found))


@functools.lru_cache(maxsize=4)
def digest(root: Path = ROOT) -> str:
    """sha256 over the grader's files: their paths and contents."""
    h = hashlib.sha256()
    for f in files(root):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=4)
def version(root: Path = ROOT) -> str:
    """What the gradebook shows: `g<digest 12>`, with the git commit when the kit is a checkout
    (`g1a2b3c4d5e6f (git 5ff3440, modified)`). The digest is what counts; git only helps a reader."""
    label = f"g{digest(root)[:12]}"
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode == 0 and head.stdout.strip():
            dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", *PARTS, "assignments",
                                    "solutions"], capture_output=True, text=True, timeout=10).stdout.strip()
            label += f" (git {head.stdout.strip()}{', modified' if dirty else ''})"
    except (OSError, subprocess.SubprocessError):
        pass
    return label
