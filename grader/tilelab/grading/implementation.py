"""A whole grade of one implementation (the reference solution, the starter or a submission): copy
the submission in, configure the tree, grade each stage (the engine, run/engine.py, builds and runs
it; stage.py scores its outcome) and its questions (questions.py), and hand back a GradeReport with no path of the grading machine in it. Prints
nothing and writes only in the build tree; the commands decide what is shown and written."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

from ..report.model import GradeReport, device_of
from ..run import engine, kit as kit_mod, result as runresult, submission as submission_mod, tree as tree_mod
from ..score.scores import StageScore
from ..specs import spec
from ..specs.contract import ExitCode
from . import options as options_mod, questions, stage as stage_mod
from .options import GradeOptions


def grade(opts: GradeOptions) -> GradeReport:
    """Grade one implementation; every failure of the code under test ends up in the report. The
    build tree is held for the whole grade (tree.exclusive): a grade begun meanwhile in it waits."""
    all_stages = options_mod.checked(opts)
    impl = options_mod.impl_of(opts)
    backend = options_mod.resolve_backend(opts.backend)
    build = options_mod.tree_path(opts.build_dir, impl, backend)
    with tree_mod.exclusive(build):   # one grade at a time in a tree
        started = time.monotonic()      # the grade's own time, not the wait for the tree
        report = _grade_in(tree_mod.Tree(build, jobs=opts.jobs, memory_bytes=opts.memory_bytes,
                                         isolate_network=opts.isolate_network), opts, all_stages, impl, backend)
    return replace(scrubbed(report, build), seconds=time.monotonic() - started)


def _grade_in(tree: tree_mod.Tree, opts: GradeOptions, all_stages: dict, impl: str, backend: str) -> GradeReport:
    """grade() in a build tree it holds."""
    build = tree.build
    name = opts.name or (Path(opts.submission).stem if opts.submission else impl)
    hidden = bool(opts.hidden and opts.seed)
    digest = ""
    ended = lambda status, message: GradeReport(name, impl, backend, status=status, message=message,  # noqa: E731
                                                hidden=hidden, digest=digest)
    step = opts.on_step or (lambda s: None)
    wanted = list(opts.stages or all_stages)
    sub_root = None
    if opts.submission:
        try:
            mat = submission_mod.materialize(Path(opts.submission), build / tree_mod.SUBMISSION_SRC,
                                             list(opts.stages or all_stages))
        except submission_mod.SubmissionError as e:
            return ended("error", str(e))
        digest = mat.digest
        sub_root = mat.root
        if not mat.stages:
            return ended("empty", "no <stage>/matmul.cu found in the submission" + "".join(f"; {n}" for n in mat.notes))
        if not opts.stages:
            wanted = mat.stages
    kit = None
    if opts.kit_root:
        step("waiting for the kit's build")
        try:
            kit = kit_mod.ensure(opts.kit_root, backend, timeout=opts.build_timeout * 3)
        except kit_mod.KitError as e:
            return ended("error", str(e))
    step("configuring")
    c = tree.configure([] if impl == "submission" else list(options_mod.SHARED_IMPLS), sub_root,
                       opts.seed if opts.hidden else None, backend, kit=kit)
    if not c.ok:
        return ended("error", f"configuring the build failed:\n{tree_mod.log_tail(c.output)}")
    registered = tree.tests()
    stages = []
    for sid in wanted:
        stage = all_stages[sid]
        if sub_root and not (sub_root / sid / "matmul.cu").exists():
            stages.append(stage_mod.not_checked(stage, impl, f"no {sid}/matmul.cu in the submission", opts, backend))
            continue
        stages.append(grade_stage(tree, stage, impl, backend, registered, opts))
    answers = {}
    if not opts.quick:   # `check` is the kernel's quick loop: no questions
        stages, answers = questions.with_questions(stages, all_stages, impl, sub_root, opts, tree, backend)
    status, message = "graded", ""
    if stages and all(any(c.verdict == "compile" for c in s.checks) for s in stages):
        status, message = "build-failed", "no stage compiled"
    return GradeReport(name, impl, backend, stages=stages, status=status, message=message, hidden=hidden,
                       device=device_of(stages), digest=digest, answers=answers)


def run_options(opts: GradeOptions) -> engine.RunOptions:
    """What the engine reads of a grade's options."""
    return engine.RunOptions(quick=opts.quick, build_timeout=opts.build_timeout, check_timeout=opts.check_timeout,
                             on_step=opts.on_step)


def grade_stage(tree: tree_mod.Tree, stage: spec.Stage, impl: str, backend: str, registered,
                opts: GradeOptions) -> StageScore:
    """Build and run the stage in the tree (the engine), then score what became of it (stage.py):
    the one place the two meet."""
    return stage_mod.scored(stage, impl, engine.stage_outcome(tree, stage, impl, backend, registered, run_options(opts)),
                            opts, backend)


def scrubbed(report: GradeReport, build: Path) -> GradeReport:
    """The report with no path of the grading machine in what a student reads: the report's, each
    stage's and each check's messages and notes (a compile error, a log pointer, the runner's or a
    refusal's text), and the runner's results kept in grade.json (a kernel's source file, a finding's)."""
    scrub = lambda text: tree_mod.scrub(text, build)  # noqa: E731

    def result(r):
        if r is None:
            return None
        raw = json.dumps(r.raw)
        clean = scrub(raw)
        return r if clean == raw else runresult.Result.parse(json.loads(clean))

    return replace(report, message=scrub(report.message), stages=[
        replace(s, error=scrub(s.error), checks=[replace(c, message=scrub(c.message), hint=scrub(c.hint),
                                                         notes=tuple((kind, scrub(text)) for kind, text in c.notes),
                                                         result=result(c.result)) for c in s.checks])
        for s in report.stages])


def exit_status(report: GradeReport) -> int:
    """0: everything passed; 1: something failed or did not compile; 2: the grader could not run
    (the whole grade, or a check: a grading error); 77: nothing could be checked here (every check
    skipped: no GPU, or a tool missing)."""
    if report.status == "error" or any(c.verdict == runresult.GRADING_ERROR for s in report.stages for c in s.checks):
        return ExitCode.ERROR
    if report.stages and all(s.all_skipped for s in report.stages):
        return ExitCode.SKIPPED
    return ExitCode.PASS if report.passed else ExitCode.WRONG
