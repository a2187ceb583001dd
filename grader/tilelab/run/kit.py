"""The prebuilt kit: what every submission's grading tree would otherwise compile again -- the
judge, the datasets, the emulator's rewriter and runtimes, the worker mains, the backends, the
stages' reference workers -- built once, by the grader itself, in a folder of its own
(grader/cmake/TilelabKitExport.cmake), and taken by each submission's tree through
-DTILELAB_KIT (TilelabKit.cmake), which then compiles only the code under test.

Keyed by its inputs: the folder's name holds a digest of the grader's identity (identity.py: its
code, the specs, the reference solutions), the backend and the compilers' versions, so a changed
kit or compiler gets a new folder and a kit folder is never built twice. A kit is complete when its
READY file is there, written last; one half-built by an interrupted run is built again from
nothing. The grader builds it as itself, never as the sandbox user, and the sandbox user can only
read it: the checks of one submission cannot change what the next one's checks run (the judge,
the references, the datasets). Where the grader is not root there is no sandbox user, and the
folder is made read-only, which keeps a mistake out, not a process of the same user."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from .. import ROOT
from . import detection, identity
from . import tree as tree_mod
from .sandbox import run_limited

READY = "READY"
PREFIX = "kit-"


class KitError(RuntimeError):
    """The kit could not be built: nothing can be graded with it (the message names the log)."""


@functools.cache
def _versions() -> str:
    out = []
    for cmd in (["c++", "--version"], ["nvcc", "--version"], ["cmake", "--version"]):
        try:
            out.append(subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout)
        except (OSError, subprocess.SubprocessError):
            out.append(f"{cmd[0]}: none")
    return "\n".join(out)


def key(backend: str, root: Path = ROOT) -> str:
    h = hashlib.sha256()
    for part in (identity.digest(root), backend, _versions(), tree_mod.generator(), sys.executable,
                 os.environ.get("TILELAB_CUDA_ARCHITECTURES", "")):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


def folder(kit_root: Path, backend: str) -> Path:
    return (Path(kit_root) / f"{PREFIX}{backend}-{key(backend)}").resolve()


def ready(path: Path) -> bool:
    return (path / READY).is_file()


def missing(path: Path) -> list[str]:
    """The files the kit's export names (its imported targets' executables, libraries and objects)
    that its build did not make: a submission's tree would fail to link against every one of them."""
    try:
        text = (path / "tilelab-kit-targets.cmake").read_text()
    except OSError:
        return ["tilelab-kit-targets.cmake"]
    named = re.findall(r'IMPORTED_(?:LOCATION|OBJECTS)\w*\s+"([^"]+)"', text)
    return sorted({f for group in named for f in group.split(";") if f and not Path(f).exists()})


_READ_ALL = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
_WRITE_ALL = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def _writable(path: Path, on: bool) -> None:
    """Every file and folder under path, in one walk: writable by its owner again (on), or
    read-only and readable by everyone -- folders and executables runnable too (the sandbox user
    reads the kit and runs its judge and reference workers)."""
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [*dirnames, *filenames]:
            p = Path(dirpath) / name
            if p.is_symlink():
                continue
            mode = p.stat().st_mode
            if on:
                p.chmod(mode | stat.S_IWUSR)
                continue
            run = stat.S_IXGRP | stat.S_IXOTH if stat.S_ISDIR(mode) or mode & stat.S_IXUSR else 0
            p.chmod((mode | _READ_ALL | run) & ~_WRITE_ALL)


def _remove(path: Path) -> None:
    if path.exists():
        _writable(path, True)
        shutil.rmtree(path, ignore_errors=True)


def prune(kit_root: Path, keep: Path) -> None:
    """Kits of earlier grader versions or compilers in kit_root: never used again (keyed by inputs)."""
    for p in Path(kit_root).glob(f"{PREFIX}*"):
        if p.resolve() != keep and p.is_dir():
            with tree_mod.exclusive(p, note=lambda s: None):
                _remove(p)


# Kits that failed to build in this process, with why: a batch's next submissions fail at once
# with the same message instead of building it again each.
_failed: dict[Path, str] = {}


def ensure(kit_root: Path, backend: str, jobs: int | None = None, timeout: float = 3600,
           note=lambda line: print(line, file=sys.stderr, flush=True)) -> Path:
    """The kit's folder for this backend, built first if it is not there (one builder at a time,
    on every core: the others wait on its lock, then find it ready). Raises KitError when it does
    not build."""
    path = folder(kit_root, backend)
    if ready(path):
        return path
    if path in _failed:
        raise KitError(_failed[path])
    with tree_mod.exclusive(path, note=lambda _: note(f"tilelab: waiting while another grade builds the kit "
                                                      f"({tree_mod.shown(path)})")):
        if ready(path):
            return path
        tree_mod.clear(path)      # half-built by an interrupted run
        note(f"tilelab: building the kit once, for every submission graded with it ({tree_mod.shown(path)})")
        tree = tree_mod.Tree(path, jobs=jobs or tree_mod.usable_cores())
        c = run_limited(["cmake", "-S", str(ROOT), "-B", str(path), "-G", tree.generator,
                         "-DCMAKE_BUILD_TYPE=Release", "-DTILELAB_IMPLS=", "-DTILELAB_SELF_TESTS=OFF",
                         "-DTILELAB_KIT_EXPORT=ON", "-DTILELAB_STARTER_EXPECT_FAIL=OFF",
                         f"-DTILELAB_CUDA={'OFF' if backend == 'emu' else 'AUTO'}",
                         f"-DPython3_EXECUTABLE={sys.executable}"],
                        timeout=timeout, log=path / "logs" / "kit-configure.log")
        if c.ok:
            detection.save(path)   # for every submission tree that takes this kit
            c = run_limited(["cmake", "--build", str(path), "--parallel", str(tree.jobs), "--target", "tilelab-kit"],
                            timeout=timeout, log=path / "logs" / "kit-build.log")
        if not c.ok:
            _failed[path] = (f"the kit did not build for the {backend} backend, so nothing can be graded: "
                             f"see {path / 'logs'}\n{tree_mod.log_tail(c.output, 20)}")
            raise KitError(_failed[path])
        gaps = missing(path)
        if gaps:
            _failed[path] = (f"the kit's build for the {backend} backend left out {len(gaps)} file(s) its export names, "
                             f"so no submission could link: {', '.join(gaps[:5])} (a target missing from "
                             f"tilelab-kit in grader/cmake/TilelabKitExport.cmake)")
            raise KitError(_failed[path])
        (path / READY).write_text(key(backend) + "\n")
        _writable(path, False)   # readable by everyone, writable by no one until prune()
    return path
