"""What a grade is asked to do (GradeOptions), checked once, and the build tree it does it in."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import ROOT
from ..run import sanitize
from ..specs import seed as seed_mod, spec

BUILD_ROOT = ROOT / "build"


@dataclass
class GradeOptions:
    stages: list[str] | None = None       # default: every stage (of the submission, when given)
    submission: Path | None = None        # a folder or zip shaped like starter/
    name: str = ""                        # shown in reports (default: the submission's name)
    impl: str | None = None               # solution | starter | submission (default from submission)
    backend: str = "auto"                 # gpu | emu | auto
    perf_basis: str = "auto"              # gpu | model | auto: what performance points are judged on
    hidden: bool = False
    seed: str | None = None
    student: str | None = None            # whose quiz code the questions use (with seed); see quiz.py
    quiz_code: str | None = None          # the quiz code the platform hands over (a PrairieLearn variant's,
                                          # quiz.variant_code); used where seed and student do not give one
    build_dir: Path | None = None
    kit_root: Path | None = None          # where a prebuilt kit is (built if need be: kit.py); the tree takes it
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    build_timeout: float = 1800
    check_timeout: float | None = None    # per stage; default: the sum of its checks' timeouts
    memory_bytes: int | None = None
    isolate_network: bool = False
    on_step: Callable[[str], None] | None = None                  # progress: "building 02-tiled" ...
    quick: bool = False                   # `tilelab check`: plain emulator build, small public datasets only
    earlier_answers: dict = field(default_factory=dict)   # stage -> answers of earlier submissions (quiz.attempt)
    question_attempts: int = 0            # how many different sets of answers count (0: all; quiz.attempt)

    def __post_init__(self):
        self.seed = seed_mod.text(self.seed)   # any text; the number is derived from it (seed.py)


class UsageError(ValueError):
    pass


def resolve_backend(backend: str) -> str:
    """auto: the GPU where sanitize.gpu_present (the grader's one probe of it) finds one, else the emulator."""
    return ("gpu" if sanitize.gpu_present() else "emu") if backend == "auto" else backend


def checked(opts: GradeOptions) -> dict[str, spec.Stage]:
    """Every stage by id, once the options are known to be usable (UsageError otherwise)."""
    all_stages = {s.id: s for s in spec.load_all(ROOT)}
    unknown = [s for s in opts.stages or [] if s not in all_stages]
    if unknown:
        raise UsageError(f"unknown stage(s) {unknown}; stages are {list(all_stages)}")
    if opts.hidden and not opts.seed:
        raise UsageError("--hidden needs --seed (the grading seed)")
    return all_stages


# The solution and the starter are graded in one tree per backend, configured the same way for
# both: the first `grade` after `setup` (which graded the solutions there) reuses its configure, its
# datasets, the core, the emulator's runtimes and the runner's main, and compiles only the
# student's file. A submission gets a tree of its own (grade-submission-<backend>), shared by every
# submission graded in the checkout, so its kit objects are built once.
#
# Grades of one tree take turns (tree.exclusive: an flock held from copying the submission in to
# reading its results; `check` and `batch` go through implementation.grade and take it too): a tree
# per grade would rebuild the kit's objects each time, and two grades in one tree overwrite each
# other's submission-src, objects, runners and results.
SHARED_IMPLS = ("solution", "starter")


def default_tree(impl: str, backend: str) -> Path:
    return BUILD_ROOT / (f"grade-{backend}" if impl in SHARED_IMPLS else f"grade-{impl}-{backend}")


def impl_of(opts: GradeOptions) -> str:
    return opts.impl or ("submission" if opts.submission else "starter")


def tree_path(build_dir: Path | None, impl: str, backend: str) -> Path:
    # Absolute: compiler messages name files by absolute path, and compile_excerpt/scrub cut this prefix.
    return Path(build_dir or default_tree(impl, backend)).resolve()


def tree_of(opts: GradeOptions) -> Path:
    """The build tree a grade with these options uses (the one implementation.grade holds)."""
    return tree_path(opts.build_dir, impl_of(opts), resolve_backend(opts.backend))


def default_out(impl: str, backend: str) -> Path:
    """Where `grade` writes results.json and grade.json by default: one folder per implementation."""
    return BUILD_ROOT / f"grade-{impl}-{backend}"
