"""Drive one CMake build tree: configure it, build a stage's runner, list its registered checks
(CTest's machine-readable --show-only=json-v1) and run them with a JUnit report. Every command goes
through sandbox.run_limited, so a hung compiler or check cannot stop a batch.

One grade at a time per tree: exclusive() holds a tree (an flock on its lock file) for the whole of
a grade, from copying the submission in to reading the results. scrub() takes the grading machine's
paths out of what a student reads."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from .. import ROOT
from . import artifacts, detection, toolchain   # toolchain: the same system folders the include check allows
from ..specs import seed as seed_mod
from .sandbox import Ran, run_limited


def generator() -> str:
    """Ninja where it is installed, else make. A re-grade's build is mostly the build tool's own
    bookkeeping around three small compiles: make spends 0.6-1.2 s per runner target even when it
    is up to date (docs/performance.md, "Grading times"), Ninja a few hundredths."""
    return "Ninja" if shutil.which("ninja") else "Unix Makefiles"


# The target that re-runs the configure only when one of its inputs changed, per generator.
CHECK_TARGET = {"Ninja": "build.ninja", "Unix Makefiles": "cmake_check_build_system"}
# Ninja deletes a compiler's depfile once it has read it into its own log; includes.py reads the
# depfile itself, so Ninja is asked to keep it.
BUILD_TOOL_ARGS = {"Ninja": ["-d", "keepdepfile"], "Unix Makefiles": []}


def usable_cores() -> int:
    """The cores this process may run on (a Slurm task's or a container's share), not the machine's."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@dataclass(frozen=True)
class RegisteredTest:
    name: str
    labels: tuple[str, ...]
    command: tuple[str, ...]
    timeout: float

    @property
    def check(self) -> str:
        return self.name.split(".")[-1]


@dataclass
class Tree:
    build: Path
    source: Path = ROOT
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    memory_bytes: int | None = None
    isolate_network: bool = False
    generator: str = field(default_factory=generator)
    kit: Path | None = None               # the prebuilt kit the tree was last configured with (configure)

    @property
    def logs(self) -> Path:
        return self.build / "logs"

    @property
    def results(self) -> Path:
        return self.build / "results"

    @property
    def runners(self) -> Path:
        """Where the judge and the reference workers are: the prebuilt kit's runners/, else this tree's."""
        return (self.kit or self.build) / "runners"

    def configure(self, impls: list[str], submission: Path | None = None, seed: str | None = None,
                  backend: str = "auto", timeout: float = 900, kit: Path | None = None) -> Ran:
        """A lean grading tree (TILELAB_SELF_TESTS=OFF: none of the kit's own tests). A tree last
        configured with the same arguments is not configured again: CMake's own check
        (CHECK_TARGET, what the build tool runs first) re-runs the configure only when one of
        its inputs changed (a CMakeLists.txt, a stage.toml, a glob). A submission's tree is always
        configured: which <stage>/matmul.cu it holds decides its targets. A tree made with another
        generator (a kit updated to Ninja) is configured afresh: CMake cannot switch in place.
        kit: a prebuilt kit's folder (kit.py): the tree then compiles only the code under test."""
        cmd = ["cmake", "-S", str(self.source), "-B", str(self.build), "-G", self.generator,
               "-DCMAKE_BUILD_TYPE=Release",
               f"-DTILELAB_IMPLS={';'.join(impls)}", "-DTILELAB_STARTER_EXPECT_FAIL=OFF",
               "-DTILELAB_SELF_TESTS=OFF", f"-DTILELAB_GRADING_SEED={seed_mod.number(seed) if seed_mod.text(seed) else ''}",
               f"-DTILELAB_GRADING_SEED_TEXT={seed_mod.text(seed) or ''}",   # for the leak scan (leaks.py)
               f"-DTILELAB_CUDA={'OFF' if backend == 'emu' else 'AUTO'}",
               f"-DTILELAB_SUBMISSION={submission.resolve() if submission else ''}",
               f"-DTILELAB_KIT={Path(kit).resolve() if kit else ''}",
               f"-DPython3_EXECUTABLE={sys.executable}"]   # CMake runs the same Python as the grader
        self.kit = Path(kit).resolve() if kit else None
        stamp = self.build / ".tilelab-configured"   # the arguments of the last configure that succeeded
        if submission is None and (self.build / "CMakeCache.txt").is_file() and _read(stamp) == "\n".join(cmd):
            ran = run_limited(["cmake", "--build", str(self.build), "--target", CHECK_TARGET[self.generator]],
                              timeout=timeout, log=self.logs / "configure.log")
            if ran.ok:
                return ran
        stamp.unlink(missing_ok=True)
        if _cached_generator(self.build) not in ("", self.generator):
            (self.build / "CMakeCache.txt").unlink()
            shutil.rmtree(self.build / "CMakeFiles", ignore_errors=True)
        query = self.build / ".cmake" / "api" / "v1" / "query" / "codemodel-v2"
        query.parent.mkdir(parents=True, exist_ok=True)
        query.touch()   # ask CMake's file API for the target list (read by targets())
        # With a kit, the compilers, nvcc and Python are the kit's as it detected them (detection.py).
        ran = run_limited(cmd + detection.take(self.kit, self.build), timeout=timeout,
                          log=self.logs / "configure.log")
        if ran.ok:
            stamp.write_text("\n".join(cmd))
        return ran

    def targets(self) -> list[str]:
        """Every target of the configured tree, from CMake's file API (codemodel-v2 reply)."""
        reply = self.build / ".cmake" / "api" / "v1" / "reply"
        try:
            index = json.loads(max(reply.glob("index-*.json")).read_text())
            ref = next(r for r in index["objects"] if r["kind"] == "codemodel")
            model = json.loads((reply / ref["jsonFile"]).read_text())
            return sorted({t["name"] for c in model["configurations"] for t in c["targets"]})
        except (OSError, ValueError, KeyError, StopIteration):
            return []

    def own_folders(self, impl: str, stage: str) -> tuple[Path, ...]:
        """Where the file of `impl` for `stage` lies: compiler messages may quote files there
        (compile_excerpt), and no file outside them but the public headers and the toolchain."""
        return {"submission": (self.build / SUBMISSION_SRC / stage,),
                "solution": (self.source / "solutions" / stage,),
                "starter": (self.source / "starter" / stage, self.build / "starter-bare" / stage)}.get(impl, ())

    def runner_targets(self, impl: str, stage: str, backend: str) -> list[str]:
        """run-<impl>-<stage>-<backend>[-variant]: the runners a stage's checks use on a backend."""
        base = f"run-{impl}-{stage}-{backend}"
        return [t for t in self.targets() if t == base or t.startswith(base + "-")]

    def _untrusted(self, running: bool) -> dict:
        """run_limited's arguments for a step that compiles (running=False) or runs the code under
        test, as the sandbox user when the grader is root. Compiling needs the whole tree; running
        gets only the folders checks write (results, CTest's Testing/), so the code under test
        cannot replace a runner or anything else the next checks use."""
        writable = (self.results, self.build / "Testing") if running else (self.build,)
        return {"unprivileged": True, "writable": writable, "protected": (self.build,) if running else (),
                "readable": (str(self.source / "CMakeLists.txt"), str(self.source / "grader" / "runner" / "judge.cpp"),
                             sys.executable, *(str(w) for w in writable),
                             *((str(self.kit / "tilelab-kit.cmake"), str(self.kit / "runners" / "tilelab-judge"),
                                str(self.kit / "runners" / "tilelab-confine"))   # every compile of the submission runs it
                               if self.kit else ()))}

    def build_targets(self, targets: list[str], log_name: str, timeout: float = 1800) -> Ran:
        cmd = ["cmake", "--build", str(self.build), "--parallel", str(self.jobs)]
        for t in targets:
            cmd += ["--target", t]
        # The generator the tree was configured with, which need not be this Tree's: a tree the
        # kit's own CMake build prepared (kit.grade.*, the Gradescope image) is built as it is.
        tool_args = BUILD_TOOL_ARGS.get(_cached_generator(self.build) or self.generator, [])
        if tool_args:
            cmd += ["--", *tool_args]
        return run_limited(cmd, timeout=timeout, memory_bytes=self.memory_bytes,
                           log=self.logs / f"build-{log_name}.log", **self._untrusted(running=False))

    def run_program(self, cmd: list[str], log_name: str, timeout: float) -> Ran:
        """A program built from the code under test (a trace runner), run as a check is: limits,
        the sandbox user, only the results folder writable."""
        return run_limited(cmd, timeout=timeout, memory_bytes=self.memory_bytes, isolate_network=self.isolate_network,
                           log=self.logs / f"{log_name}.log", **self._untrusted(running=True))

    def tests(self) -> list[RegisteredTest]:
        """Every registered check, from CTest's machine-readable listing (empty when it fails)."""
        try:
            p = subprocess.run(["ctest", "--test-dir", str(self.build), "--show-only=json-v1"],
                               capture_output=True, text=True, timeout=120)
            doc, _ = json.JSONDecoder().raw_decode(p.stdout[p.stdout.index("{"):])
        except (OSError, subprocess.SubprocessError, ValueError):
            return []
        out = []
        for t in doc.get("tests", []):
            props = {p["name"]: p["value"] for p in t.get("properties", [])}
            out.append(RegisteredTest(t["name"], tuple(props.get("LABELS", [])), tuple(t.get("command", [])),
                                      float(props.get("TIMEOUT", 0) or 0)))
        return out

    def begin_build(self, impl: str, stage: str) -> float:
        """Before building impl x stage: remove everything an earlier build of it left (artifacts.wipe)
        and return the time from which its objects count as this build's."""
        return artifacts.wipe(self.build, impl, stage, self.results, self.logs)

    def run_tests(self, labels: list[str], junit: Path, log_name: str, timeout: float, parallel: int = 1,
                  only: list[str] | None = None, exclude: list[str] | None = None,
                  stop_when: Callable[[], bool] | None = None) -> Ran:
        """The checks carrying every label, in CTest's JUnit report; only/exclude: exact test names.
        stop_when: polled while they run; true ends the whole run (the checks not yet run have no result)."""
        cmd = ["ctest", "--test-dir", str(self.build), "--output-junit", str(junit.resolve()),
               "--parallel", str(parallel)]
        for label in labels:
            cmd += ["-L", f"^{label}$"]
        if only:
            cmd += ["-R", "|".join(f"^{_ctest_escape(n)}$" for n in only)]
        if exclude:
            cmd += ["-E", "|".join(f"^{_ctest_escape(n)}$" for n in exclude)]
        return run_limited(cmd, timeout=timeout, memory_bytes=self.memory_bytes,
                           isolate_network=self.isolate_network, log=self.logs / f"ctest-{log_name}.log",
                           stop_when=stop_when, **self._untrusted(running=True))


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _ctest_escape(name: str) -> str:
    """A literal for CTest's -R/-E regular expressions (cmsys: backslash escapes the specials)."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", name)


def select(tests: list[RegisteredTest], *labels: str) -> list[RegisteredTest]:
    return [t for t in tests if all(label in t.labels for label in labels)]


def log_tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _cached_generator(build: Path) -> str:
    """The generator a configured tree was made with ("" when it has none yet)."""
    try:
        text = (build / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return ""
    m = re.search(r"^CMAKE_GENERATOR:INTERNAL=(.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def _without_build_tool_lines(lines: list[str]) -> list[str]:
    """The compiler's messages without the build tool's own lines: Ninja's progress lines, its
    "FAILED: <output>" with the full command line after it (paths of the grading machine) and its
    closing "ninja: build stopped" line; and g++'s note that a pass is turned off, which every compile
    of the race and count builds prints (-fdisable-rtl-loop2_unroll, grader/cmake/TilelabEmu.cmake)."""
    out, skip_command = [], False
    for line in lines:
        if skip_command:
            skip_command = False
            continue
        if line.startswith("FAILED: "):
            skip_command = True
            continue
        if re.match(r"\[\d+/\d+\] ", line) or line.startswith("ninja: ") or \
                re.match(r"cc1(plus)?: note: disable pass ", line):
            continue
        out.append(line)
    return out


# A compiler's, assembler's or linker's line that names a file: "path:12:3: error: ...",
# "path(12): error: ..." (nvcc), "path: Assembler messages:", "In file included from path:1:".
_LOCATION = re.compile(r"^(?P<lead>In file included from |\s+from )?(?P<path>[^\s:()'\"`]*[/.][^\s:()'\"`]*)"
                       r"(?P<pos>:\d+(?::\d+)?|\(\d+\))?(?P<rest>[:,].*)$")
_QUOTE_HIDDEN = "(a message about a file that is not yours: not shown)"


def _quotable_dirs(tree: Path | None, own: tuple[Path | str, ...]) -> tuple[str, ...]:
    """Where a file lies whose lines a compiler message may quote to a student: the student's own
    folder(s), the kit's public headers, the toolchain's folders, and the compilers' temporary
    files (the assembler's .s and nvcc's intermediates, made from the student's file)."""
    dirs = [*map(str, own), str(ROOT / "grader" / "include"), str(toolchain.EMU_INCLUDE), "/usr", "/opt"]
    if tree:
        t = Path(tree)
        dirs += [str(t / SUBMISSION_SRC), str(t / "generated" / "include"), *toolchain.system_dirs(t)]
    return tuple(sorted({os.path.realpath(d) for d in dirs if d}))


def _quotable(path: str, tree: Path | None, dirs: tuple[str, ...]) -> bool:
    real = os.path.realpath(path if os.path.isabs(path) or not tree else os.path.join(tree, path))
    if re.search(r"/CMakeFiles/[^/]+\.dir/tmp/[^/]+$", real) or re.match(r"/tmp/(cc\w+\.s|tmpxft_[^/]+)$", real):
        return True   # a compiler's temporary file (tilelab-confine's private TMPDIR, or /tmp unconfined)
    if tree and re.match(re.escape(os.path.realpath(tree)) + r"/generated/emu/[^/]+\.cpp$", real):
        return True   # a rewritten copy of a student's file (the emulator's builds)
    if tree and re.match(re.escape(os.path.realpath(tree)) + r"/CMakeFiles/[^/]+\.dir/.+\.(s|ii)$", real):
        return True   # a confined compile's own assembly or preprocessed unit (-save-temps=obj, TilelabConfine.cmake)
    return any(real == d or real.startswith(d.rstrip("/") + "/") for d in dirs)


def unquoted(lines: list[str], tree: Path | None = None, own: tuple[Path | str, ...] = ()) -> list[str]:
    """The messages with nothing quoted from a file that is not the student's (docs/integrity.md,
    "No build reads a secret"): a message located in such a file keeps its place and kind
    ("path:3:1: error:") but not its text, and the lines quoted under it are left out. Confinement
    keeps a sealed build from reading those files at all; this keeps an unconfined one (no Landlock,
    no seed) from showing what it read: an #include of an answer key quotes its first lines, an
    assembler's .include names its characters."""
    dirs = _quotable_dirs(tree, own)
    out, shown_here = [], True
    for line in lines:
        m = _LOCATION.match(line)
        # A place in a file's text: a line number, an include chain or the assembler's heading. The
        # linker's "adapter.cpp:(.text+0x4): undefined reference" names symbols, quotes no text.
        if m and not (m["pos"] or m["lead"] or m["rest"].startswith(": Assembler messages")):
            m = None
        if m:
            shown_here = _quotable(m["path"], tree, dirs)
            if not shown_here and not m["lead"]:
                kind = re.match(r":\s*(fatal error|error|warning|note|Error|Warning)\b", m["rest"])
                line = f"{m['path']}{m['pos'] or ''}: {kind[1] + ': ' if kind else ''}{_QUOTE_HIDDEN}"
            out.append(line)
        elif shown_here:
            out.append(line)
    return out


def compile_excerpt(text: str, strip: str = "", lines: int = 30, tree: Path | None = None,
                    own: tuple[Path | str, ...] = ()) -> str:
    """For display only: the build log from its first error on (where a compile error is
    explained), with the scratch folder's path (strip) removed so students see
    '01-basic/matmul.cu(61)', and no other path of the grading machine (scrub: the kit's folder,
    the build tree). Nothing is quoted from a file outside the student's folders (strip, own,
    tree/submission-src), the public headers and the toolchain: unquoted()."""
    all_lines = unquoted(_without_build_tool_lines(text.splitlines()), tree, (*own, *([strip] if strip else [])))
    # A link error's useful line ("undefined reference to `launch_matmul(...)'") comes before
    # the linker's own "collect2: error".
    # "error:" rather than "error", so a path such as .../compile-error/... is not taken for one.
    markers = ("error:", "undefined reference", "cmake error")
    first = next((i for i, l in enumerate(all_lines)
                  if any(m in l.lower() for m in markers) and not l.startswith("$ ")), None)
    out = "\n".join(all_lines[first:first + lines]) if first is not None else log_tail("\n".join(all_lines), lines)
    return scrub(out, tree, strip or None)


# ---------------------------------------------------------------- one grade at a time per tree
LOCK = ".tilelab-lock"
SUBMISSION_SRC = "submission-src"   # where grading.implementation copies a submission's files in a tree

# (thread, tree) -> how many times that thread holds the tree: taking it again is free (commands.grade
# holds it around implementation.grade, which takes it too), and another thread waits like another process.
_held: dict[tuple[int, Path], int] = {}
_held_guard = threading.Lock()


def shown(path: Path) -> str:
    """A path as printed to the person at the terminal: relative to the current folder when it is
    inside it (so `build/grade-emu`, not the checkout's absolute path), else as it is."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _holder(path: Path) -> str:
    try:
        return path.read_text().split()[0]
    except (OSError, IndexError):
        return "?"


def _lock(build: Path, note: Callable[[str], None]) -> int:
    """An exclusive flock on build/LOCK (blocking; one line through note while it waits). The lock
    file that is locked is checked to be the one at the path still: a holder that removed the tree
    (batch) leaves its waiters the lock of a deleted file, and they take the new one instead."""
    path = build / LOCK
    announced = False
    while True:
        build.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except PermissionError:   # made by another user: locking needs no write access
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not announced:
                    note(f"tilelab: waiting for another grade using {shown(build)} (pid {_holder(path)}) to finish; "
                         "grades of one build tree take turns")
                    announced = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            mine = os.fstat(fd)
            try:
                now = os.stat(path)
            except FileNotFoundError:
                now = None
            if now is None or (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
                os.close(fd)
                continue
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd
        except BaseException:
            os.close(fd)
            raise


@contextlib.contextmanager
def exclusive(build: Path, note: Callable[[str], None] = _say, remove: bool = False) -> Iterator[Path]:
    """Hold the build tree for one grade: two grades (processes, or a batch's threads) never use
    one tree at once; the second waits, saying so once. The lock is an flock on build/LOCK, let go
    when the holder ends however it ends. remove: delete the whole tree after a grade that ended
    normally, before letting go (a batch's scratch tree)."""
    build = Path(build).resolve()
    key = (threading.get_ident(), build)
    with _held_guard:
        depth = _held.get(key, 0)
        _held[key] = depth + 1
    fd = None
    try:
        if depth == 0:
            fd = _lock(build, note)
        yield build
        if fd is not None and remove:
            shutil.rmtree(build, ignore_errors=True)   # the lock file too: waiters take a new one
    finally:
        with _held_guard:
            if _held[key] == 1:
                del _held[key]
            else:
                _held[key] -= 1
        if fd is not None:
            os.close(fd)


def clear(build: Path) -> None:
    """Remove everything in a tree but its lock file (held: removing it would let a newcomer in)."""
    if not build.is_dir():
        return
    for p in build.iterdir():
        if p.name == LOCK:
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


# ---------------------------------------------------------------- no grading machine's paths for students
def scrub(text: str, tree: Path | str | None = None, submission: Path | str | None = None,
          source: Path = ROOT) -> str:
    """Text a student reads without the grading machine's absolute paths. Cut in this order: the
    submission's scratch folder (default tree/submission-src), so its files read
    `01-basic/matmul.cu`; the kit's own folder (`grader/emu/include/...`, `build/grade-emu/...`);
    a build tree outside the kit (an autograder's, a batch's), whose files then read `logs/...`."""
    if not text:
        return text
    if tree and not submission:
        submission = Path(tree) / SUBMISSION_SRC
    cuts: list[str] = []
    for p in (submission, source, tree):
        if not p:
            continue
        for form in (str(p), str(Path(p).resolve())):
            form = form.rstrip("/")
            if form and form not in cuts:
                cuts.append(form)
    for c in cuts:
        text = text.replace(c + "/", "")
        text = re.sub(re.escape(c) + r"(?![\w.-])", ".", text)   # the folder itself
    # A prebuilt kit's folder (kit.py: <kit root>/kit-<backend>-<key>), wherever the batch put it:
    # its files read `kit/generated/...`.
    return re.sub(r"(?:/[^\s/'\"`:]+)*/kit-(?:emu|gpu)-[0-9a-f]{16}(?=/|\b)", "kit", text)
