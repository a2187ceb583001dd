"""The grading engine: what becomes of one stage of one implementation in a build tree, as one
typed outcome (outcome.py), in four steps --

  build    the stage's datasets and runners (tree.py), only this build's objects read (artifacts.py);
  scan     what was compiled from the student's file, before anything runs (refusal.py);
  run      its checks through CTest in three passes, stopped at a hang (checkpasses.py);
  collect  the result files those passes vouch for (checkpasses.py).

It judges nothing: score/scoring.py turns the outcome into verdicts and points. Every class-grading
path (grade, check, batch, slurm, the hosted autograders, setup) reaches it through
grading/implementation.py's grade_stage."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from . import artifacts, checkpasses, outcome, refusal
from .tree import Tree, compile_excerpt, select
from ..specs import spec


@dataclass(frozen=True)
class RunOptions:
    """What the engine reads of a grade's options (grading/implementation.py: run_options)."""
    quick: bool = False                   # `tilelab check`: plain emulator build, small public datasets only
    build_timeout: float = 1800
    check_timeout: float | None = None    # per stage; default: the sum of its checks' timeouts + 120 s
    on_step: Callable[[str], None] | None = None   # progress: "building 02-tiled" ...


def quick_datasets(stage: spec.Stage) -> list[str]:
    """What `tilelab check` runs: the public correctness datasets not tagged large (those the
    emulator's race build skips too), smallest first."""
    return [d.name for d in sorted(stage.correctness_datasets, key=lambda d: d.J * d.K * d.L)
            if "large" not in d.tags]


def quick_checks(tests, stage: spec.Stage, backend: str):
    """The plain correctness checks (check kind = the backend's, e.g. `emu`) of quick_datasets."""
    kind = outcome.CORRECT_CHECK.get(backend, "correct")
    small = set(quick_datasets(stage))
    return [t for t in tests if t.check == kind and t.name.split(".")[2] in small]


def _probe(tests, stage: spec.Stage, impl: str, backend: str) -> str | None:
    """The check run first and alone: the plain correctness check of the smallest public dataset."""
    kind = outcome.CORRECT_CHECK.get(backend, "correct")
    names = {t.name for t in tests}
    for d in sorted(stage.correctness_datasets, key=lambda d: d.J * d.K * d.L):
        name = f"{impl}.{stage.id}.{d.name}.{kind}"
        if name in names:
            return name
    return None


# A file the compile was refused (tilelab-confine, grader/cmake/TilelabConfine.cmake): g++ says
# "Permission denied", the assembler "can't open ... for reading" or "file not found".
_REFUSED_READ = re.compile(r"Permission denied|can't open .* for reading|Error: file not found")
_CONFINED = ("\nYour file is compiled where it can read only itself and the system, C++ and CUDA headers: "
             "a file it was refused above (an #include, .incbin or .include of a file of the grader, the "
             "build or the solutions) is not yours to read. Make the file self-contained.")


def stage_outcome(tree: Tree, stage: spec.Stage, impl: str, backend: str, registered,
                  opts: RunOptions) -> outcome.Outcome:
    """What became of the stage: nothing to check here, refused, did not compile, or built and its
    checks run (their results, and whether a hang or a limit cut the run short)."""
    tests = select(registered, impl, stage.id, backend)
    if opts.quick:
        tests = quick_checks(tests, stage, backend)
    if not tests:
        return outcome.NotChecked(f"no {backend} checks are registered for {stage.id} in this build (is the "
                                  f"{backend} backend available here? see ./tilelab doctor)")
    step = opts.on_step or (lambda s: None)
    step(f"building {stage.id}")
    runners = tree.runner_targets(impl, stage.id, backend)
    if opts.quick:   # the plain build only: no ASan, no race build
        runners = [r for r in runners if r == f"run-{impl}-{stage.id}-{backend}"]
    if not runners:
        return outcome.NotChecked(f"no {backend} runner target for {stage.id} in this build "
                                  f"(see {tree.logs / 'configure.log'})")
    # build: nothing an earlier build of this stage left (objects, runners, results, logs) is read as this one's.
    since = tree.begin_build(impl, stage.id)
    b = tree.build_targets([f"datasets-{stage.id}", *runners], stage.id, opts.build_timeout)
    objects = artifacts.fresh_objects(tree.build, impl, stage.id, since)
    # scan: even when the link failed.
    refused = refusal.refusal(tree.build, stage, objects)
    if refused:
        return refused
    if not b.ok:
        why = "the build timed out" if b.timed_out else "the build failed"
        excerpt = compile_excerpt(b.output, tree=tree.build, own=tree.own_folders(impl, stage.id))
        return outcome.DidNotCompile(f"{why}:\n{excerpt}" + (_CONFINED if _REFUSED_READ.search(excerpt) else ""))
    if not objects:   # fail closed: nothing was compiled from the file, so nothing was scanned
        return outcome.DidNotCompile(f"the build of {stage.id} produced no object from matmul.cu to check "
                                     f"(see {tree.logs / f'build-{stage.id}.log'})")
    # run and collect.
    passes = checkpasses.Passes(
        labels=[impl, stage.id, backend], names=[t.name for t in tests], probe=_probe(tests, stage, impl, backend),
        # Timed on the GPU: run last, in a pass of their own (each judge holds the GPU alone around its
        # timing loop: grader/runner/gpu_lock.hpp).
        timed=[t.name for t in tests if backend == "gpu" and t.check == "perf"], only_selected=opts.quick)
    step(f"checking {stage.id}")
    return checkpasses.run_and_collect(tree, passes, impl, stage.id, backend,
                                       outcome.CORRECT_CHECK.get(backend, "correct"),
                                       opts.check_timeout or (sum(t.timeout for t in tests) + 120))
