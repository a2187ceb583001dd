"""Drive one CMake build tree: configure it, build a stage's runner, list its registered checks
(CTest's machine-readable --show-only=json-v1) and run them with a JUnit report. Every command goes
through sandbox.run_limited, so a hung compiler or check cannot stop a batch."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import ROOT, artifacts
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

    @property
    def logs(self) -> Path:
        return self.build / "logs"

    @property
    def results(self) -> Path:
        return self.build / "results"

    def configure(self, impls: list[str], submission: Path | None = None, seed: str | None = None,
                  backend: str = "auto", timeout: float = 900) -> Ran:
        """A lean grading tree (TILELAB_SELF_TESTS=OFF: none of the kit's own tests). A tree last
        configured with the same arguments is not configured again: CMake's own check
        (CHECK_TARGET, what the build tool runs first) re-runs the configure only when one of
        its inputs changed (a CMakeLists.txt, a stage.toml, a glob). A submission's tree is always
        configured: which <stage>/matmul.cu it holds decides its targets. A tree made with another
        generator (a kit updated to Ninja) is configured afresh: CMake cannot switch in place."""
        cmd = ["cmake", "-S", str(self.source), "-B", str(self.build), "-G", self.generator,
               "-DCMAKE_BUILD_TYPE=Release",
               f"-DTILELAB_IMPLS={';'.join(impls)}", "-DTILELAB_STARTER_EXPECT_FAIL=OFF",
               "-DTILELAB_SELF_TESTS=OFF", f"-DTILELAB_GRADING_SEED={seed or ''}",
               f"-DTILELAB_CUDA={'OFF' if backend == 'emu' else 'AUTO'}",
               f"-DTILELAB_SUBMISSION={submission.resolve() if submission else ''}",
               f"-DPython3_EXECUTABLE={sys.executable}"]   # CMake runs the same Python as the grader
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
        ran = run_limited(cmd, timeout=timeout, log=self.logs / "configure.log")
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
                "readable": (str(self.source / "CMakeLists.txt"), str(self.source / "grader" / "runner" / "main.cpp"),
                             sys.executable, *(str(w) for w in writable))}

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
    closing "ninja: build stopped" line."""
    out, skip_command = [], False
    for line in lines:
        if skip_command:
            skip_command = False
            continue
        if line.startswith("FAILED: "):
            skip_command = True
            continue
        if re.match(r"\[\d+/\d+\] ", line) or line.startswith("ninja: "):
            continue
        out.append(line)
    return out


def compile_excerpt(text: str, strip: str = "", lines: int = 30) -> str:
    """For display only: the build log from its first error on (where a compile error is
    explained), with the scratch folder's path removed so students see '01-basic/matmul.cu(61)'."""
    all_lines = _without_build_tool_lines(text.splitlines())
    # A link error's useful line ("undefined reference to `launch_matmul(...)'") comes before
    # the linker's own "collect2: error".
    # "error:" rather than "error", so a path such as .../compile-error/... is not taken for one.
    markers = ("error:", "undefined reference", "cmake error")
    first = next((i for i, l in enumerate(all_lines)
                  if any(m in l.lower() for m in markers) and not l.startswith("$ ")), None)
    out = "\n".join(all_lines[first:first + lines]) if first is not None else log_tail(text, lines)
    return out.replace(strip.rstrip("/") + "/", "") if strip else out
