"""`tilelab grade`: configure a scratch build tree, build each stage's runner, run its checks
through CTest, read the runner's JSON results and score them (scoring.py).

run() returns a GradeReport (model.py) and prints nothing; grade() is the command: it prints the
table and writes results.json. Nothing here parses human-readable output.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from .. import ROOT
from ..report.model import GradeReport, device_of
from ..run import artifacts, forbidden, includes, judge, kit as kit_mod, ctest_results as results_mod
from ..run import submission as submission_mod, tree as tree_mod
from ..run.gputurns import GpuTurns
from ..run.result import Result
from ..run.sanitize import gpu_present as gpu_available   # one probe of the GPU for the grader
from ..run.tree import Tree, compile_excerpt, log_tail, select, shown
from ..score.scoring import (CORRECT_CHECK, Built, DidNotCompile, Hung, NotChecked, Outcome, Refused, StageScore,
                             Stopped, score_stage)
from ..specs import seed as seed_mod, spec
from ..specs.contract import ExitCode

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
    check_lock: GpuTurns | None = None    # a batch's GPU: checks share it, a timed check has it alone
    on_step: Callable[[str], None] | None = None                  # progress: "building 02-tiled" ...
    quick: bool = False                   # `tilelab check`: plain emulator build, small public datasets only
    earlier_answers: dict = field(default_factory=dict)   # stage -> answers of earlier submissions (quiz.attempt)
    question_attempts: int = 0            # how many different sets of answers count (0: all; quiz.attempt)

    def __post_init__(self):
        self.seed = seed_mod.text(self.seed)   # any text; the number is derived from it (seed.py)


class UsageError(ValueError):
    pass


def resolve_backend(backend: str) -> str:
    return ("gpu" if gpu_available() else "emu") if backend == "auto" else backend


def _hidden_count(stage: spec.Stage, opts: GradeOptions) -> int:
    return stage.hidden.count if opts.hidden and opts.seed and stage.hidden else 0


def refusal(build: Path, stage: spec.Stage, objects: list[Path]) -> Refused | DidNotCompile | None:
    """Why what was compiled from the student's file may not be graded, or None. Refused: an include
    outside the system and CUDA headers, a symbol outside the allow-list (grader/allowlist.toml:
    what the file may call and define, what its static initializers may call; docs/integrity.md).
    DidNotCompile: its own main() (it cannot be linked), or includes the compiler wrote no
    dependency file for. Read from this build's objects and depfiles only; scanned even when the
    link failed (a call to cuBLAS compiles, then fails to link, and the student should read
    "forbidden: cublasSgemm_v2", not a linker message)."""
    if not objects:
        return None
    if forbidden.defines_main(objects):
        return DidNotCompile(f"{stage.id}/matmul.cu defines main(): the grader supplies main and calls your "
                             "launch_matmul itself, so a file with its own main cannot be linked into it. Remove "
                             "your main (keep it in another file for your own tests) and submit the kernel and its "
                             "launch code only.")
    inc = includes.check(objects, build)
    if inc.refused:
        return Refused(f"{stage.id}/matmul.cu includes files it may not: {'; '.join(inc.refused)}. "
                       "Only system, C++ and CUDA headers may be included (<cuda_runtime.h>, <cstdio>, ...); "
                       "the file must be self-contained.")
    if inc.unverifiable:
        return DidNotCompile("the grader could not check what the file includes (the compiler wrote no "
                             f"dependency file for {', '.join(inc.unverifiable)}); tell your instructor")
    # One list for both backends; each object is judged as the build that made it (nvcc, or the
    # emulator's plain, asan or race build: forbidden.object_kind).
    found = forbidden.scan(objects, build=build)
    if found:
        return Refused("the code uses what this assignment forbids (the allow-list: docs/integrity.md): "
                       + forbidden.summary(found))
    return None


# A file the compile was refused (tilelab-confine, grader/cmake/TilelabConfine.cmake): g++ says
# "Permission denied", the assembler "can't open ... for reading" or "file not found".
_REFUSED_READ = re.compile(r"Permission denied|can't open .* for reading|Error: file not found")
_CONFINED = ("\nYour file is compiled where it can read only itself and the system, C++ and CUDA headers: "
             "a file it was refused above (an #include, .incbin or .include of a file of the grader, the "
             "build or the solutions) is not yours to read. Make the file self-contained.")


def quick_datasets(stage: spec.Stage) -> list[str]:
    """What `tilelab check` runs: the public correctness datasets not tagged large (those the
    emulator's race build skips too), smallest first."""
    return [d.name for d in sorted(stage.correctness_datasets, key=lambda d: d.J * d.K * d.L)
            if "large" not in d.tags]


def _quick(tests, stage: spec.Stage, backend: str):
    """The plain correctness checks (check kind = the backend's, e.g. `emu`) of quick_datasets."""
    kind = CORRECT_CHECK.get(backend, "correct")
    small = set(quick_datasets(stage))
    return [t for t in tests if t.check == kind and t.name.split(".")[2] in small]


def _probe(tests, stage: spec.Stage, impl: str, backend: str):
    """The check run first and alone: the plain correctness check of the smallest public dataset
    (the cheapest run of the kernel, so a hang is found after one short timeout)."""
    kind = CORRECT_CHECK.get(backend, "correct")
    names = {t.name for t in tests}
    for d in sorted(stage.correctness_datasets, key=lambda d: d.J * d.K * d.L):
        name = f"{impl}.{stage.id}.{d.name}.{kind}"
        if name in names:
            return name
    return None


def _hung(results_dir: Path, prefix: str, kind: str) -> Hung | None:
    """The first plain correctness check (of kind) whose result says it timed out: the kernel hung.
    A timeout the emulator saw making progress (hint_code too-slow: blocks and barriers still
    finishing, issue #26) is a slow kernel, not a hung one: the stage's other checks still run."""
    for name, r in results_mod.read_json_results(results_dir, prefix).items():
        if name.endswith("." + kind) and r.verdict == "timeout" and r.hint_code != "too-slow":
            return Hung(r.dataset or name.split(".")[2], r.message)
    return None


def _grade_stage(tree: Tree, stage: spec.Stage, impl: str, backend: str, registered, opts: GradeOptions) -> StageScore:
    """Build and run the stage, then score what became of it (scoring.py decides every verdict)."""
    return score_stage(stage, impl, _outcome(tree, stage, impl, backend, registered, opts), _hidden_count(stage, opts),
                       backend, basis=opts.perf_basis)


def _outcome(tree: Tree, stage: spec.Stage, impl: str, backend: str, registered, opts: GradeOptions) -> Outcome:
    """What became of the stage: nothing to check here, refused, did not compile, or built and its
    checks run (their results, and whether a hang or a limit cut the run short)."""
    tests = select(registered, impl, stage.id, backend)
    if opts.quick:
        tests = _quick(tests, stage, backend)
    if not tests:
        return NotChecked(f"no {backend} checks are registered for {stage.id} in this build (is the {backend} "
                          "backend available here? see ./tilelab doctor)")
    step = opts.on_step or (lambda s: None)
    step(f"building {stage.id}")
    runners = tree.runner_targets(impl, stage.id, backend)
    if opts.quick:   # the plain build only: no ASan, no race build
        runners = [r for r in runners if r == f"run-{impl}-{stage.id}-{backend}"]
    if not runners:
        return NotChecked(f"no {backend} runner target for {stage.id} in this build "
                          f"(see {tree.logs / 'configure.log'})")
    # Nothing an earlier build of this stage left (objects, runners, results, logs) is read as this one's.
    since = tree.begin_build(impl, stage.id)
    b = tree.build_targets([f"datasets-{stage.id}", *runners], stage.id, opts.build_timeout)
    objects = artifacts.fresh_objects(tree.build, impl, stage.id, since)
    refused = refusal(tree.build, stage, objects)
    if refused:
        return refused
    if not b.ok:
        why = "the build timed out" if b.timed_out else "the build failed"
        excerpt = compile_excerpt(b.output, tree=tree.build, own=tree.own_folders(impl, stage.id))
        return DidNotCompile(f"{why}:\n{excerpt}" + (_CONFINED if _REFUSED_READ.search(excerpt) else ""))
    if not objects:   # fail closed: nothing was compiled from the file, so nothing was scanned
        return DidNotCompile(f"the build of {stage.id} produced no object from matmul.cu to check "
                             f"(see {tree.logs / f'build-{stage.id}.log'})")
    prefix = f"{impl}.{stage.id}."
    results_mod.clear(tree.results, prefix)
    junit = tree.results / f"junit-{impl}-{stage.id}-{backend}.xml"
    probe_junit = tree.results / f"junit-{impl}-{stage.id}-{backend}-first.xml"
    timed_junit = tree.results / f"junit-{impl}-{stage.id}-{backend}-timed.xml"
    for j in (junit, probe_junit, timed_junit):
        j.unlink(missing_ok=True)
    limit = opts.check_timeout or (sum(t.timeout for t in tests) + 120)
    kind = CORRECT_CHECK.get(backend, "correct")
    probe = _probe(tests, stage, impl, backend)
    # Timed on the GPU: run last, with the GPU to themselves (a batch's other grades wait: GpuTurns).
    # Every other check only computes, so they run side by side, this grade's and the batch's others'.
    timed = [t.name for t in tests if backend == "gpu" and t.check == "perf"]
    turns = opts.check_lock
    step(f"checking {stage.id}")
    started = time.monotonic()
    left = lambda: max(1.0, limit - (time.monotonic() - started))
    with turns.shared() if turns else contextlib.nullcontext():
        # The cheapest run of the kernel first: when it hangs, nothing else is run.
        ran = tree.run_tests([impl, stage.id, backend], probe_junit, f"{stage.id}-{backend}-first", limit,
                             only=[probe]) if probe else None
        hang = _hung(tree.results, prefix, kind)
        if hang is None and not (ran and (ran.timed_out or ran.out_of_memory)):
            ran = tree.run_tests([impl, stage.id, backend], junit, f"{stage.id}-{backend}", left(),
                                 parallel=max(1, tree.jobs),
                                 only=[t.name for t in tests] if opts.quick else None,
                                 exclude=[n for n in [probe, *timed] if n] or None,
                                 stop_when=lambda: _hung(tree.results, prefix, kind) is not None)
            hang = _hung(tree.results, prefix, kind)
    if timed and hang is None and not (ran and (ran.timed_out or ran.out_of_memory or ran.stopped)):
        with turns.alone() if turns else contextlib.nullcontext():
            timed_ran = tree.run_tests([impl, stage.id, backend], timed_junit, f"{stage.id}-{backend}-timed",
                                       left(), only=timed)
        if timed_ran.timed_out or timed_ran.out_of_memory:
            ran = timed_ran
    found_results = results_mod.collect(tree.results, junit, prefix)
    # The probe's and the timed checks' results are checked against their own runs' JUnit reports
    # (a file for them left by another run, which code under test can write, counts for nothing).
    for j, names in ((probe_junit, [probe] if probe else []), (timed_junit, timed)):
        for k in names:
            found_results.pop(k, None)
        if names and j.exists():
            found_results.update({k: v for k, v in results_mod.collect(tree.results, j, prefix).items() if k in names})
    if ran is not None and ran.stopped:
        # CTest was ended before it wrote its JUnit report, so no exit status vouches for a `pass`
        # file (code under test can write the results folder): those checks count as not run.
        found_results = {k: v for k, v in found_results.items() if k == probe or v.verdict != "pass"}
    cut_short = hang
    if hang is None and ran is not None and (ran.timed_out or ran.out_of_memory):
        cut_short = Stopped("time", limit) if ran.timed_out else Stopped("memory")
    return Built(found_results, frozenset(t.name for t in tests), cut_short)


# The solution and the starter are graded in one tree per backend, configured the same way for
# both: the first `grade` after `setup` (which graded the solutions there) reuses its configure, its
# datasets, the core, the emulator's runtimes and the runner's main, and compiles only the
# student's file. A submission gets a tree of its own (grade-submission-<backend>), shared by every
# submission graded in the checkout, so its kit objects are built once.
#
# Grades of one tree take turns (tree.exclusive: an flock held from copying the submission in to
# reading its results; `check` and `batch` go through run() and take it too): a tree per grade
# would rebuild the kit's objects each time, and two grades in one tree overwrite each other's
# submission-src, objects, runners and results.
SHARED_IMPLS = ("solution", "starter")


def default_tree(impl: str, backend: str) -> Path:
    return BUILD_ROOT / (f"grade-{backend}" if impl in SHARED_IMPLS else f"grade-{impl}-{backend}")


def impl_of(opts: GradeOptions) -> str:
    return opts.impl or ("submission" if opts.submission else "starter")


def _tree_path(build_dir: Path | None, impl: str, backend: str) -> Path:
    # Absolute: compiler messages name files by absolute path, and compile_excerpt/scrub cut this prefix.
    return Path(build_dir or default_tree(impl, backend)).resolve()


def tree_of(opts: GradeOptions) -> Path:
    """The build tree a grade with these options uses (the one run() holds)."""
    return _tree_path(opts.build_dir, impl_of(opts), resolve_backend(opts.backend))


def _scrub_report(report: GradeReport, build: Path) -> GradeReport:
    """The report with no path of the grading machine in what a student reads: the report's, each
    stage's and each check's messages (a compile error, a log pointer, the runner's or a refusal's
    text), and the runner's results kept in grade.json (a kernel's source file, a finding's)."""
    scrub = lambda text: tree_mod.scrub(text, build)

    def result(r: Result | None) -> Result | None:
        if r is None:
            return None
        raw = json.dumps(r.raw)
        clean = scrub(raw)
        return r if clean == raw else Result.parse(json.loads(clean))

    return replace(report, message=scrub(report.message), stages=[
        replace(s, error=scrub(s.error), checks=[replace(c, message=scrub(c.message), hint=scrub(c.hint),
                                                         result=result(c.result)) for c in s.checks])
        for s in report.stages])


def default_out(impl: str, backend: str) -> Path:
    """Where `grade` writes results.json and grade.json by default: one folder per implementation."""
    return BUILD_ROOT / f"grade-{impl}-{backend}"


def _measurer(tree: Tree, impl: str, stage_id: str):
    """quiz.score's `measure` for predict-then-measure questions: the student's own kernel, on the
    emulator's count build, at the question's shape, through the judge as a perf-model check runs
    it (the sandbox user, the limits), returning (count, None) or (None, why not). Informational:
    the question is graded on the prediction."""
    runner = tree.build / "runners" / f"run-{impl}-{stage_id}-emu-count"
    cmd = judge.command(runner, tree.runners)
    seen: dict[tuple, tuple] = {}

    def measure(q, shape):
        if not runner.exists() or not Path(cmd[0]).exists():
            return None, "this build has no emulator count build (the CPU emulator measures it)"
        key = (q.measure, *shape)
        if key not in seen:
            out = tree.results / f"predict-{impl}-{stage_id}-{'x'.join(map(str, shape))}.json"
            out.unlink(missing_ok=True)
            tree.run_program([*cmd, "--spec", str(spec.resolved_path(tree.build, stage_id)), "--count-every-block",
                              "--shape", *map(str, shape), "--seed", "1", "--check", "perf", "--json", str(out),
                              "--timeout", "120"], f"predict-{stage_id}", 180)
            r = results_mod.load(out)
            mine = r.timing.impls.get(impl) if r and r.timing else None
            counts = mine.model.get("counts") or {} if mine else {}
            if "global_load_bytes" in counts:
                seen[key] = (float(counts["global_load_bytes"]) / 4, "")
            else:
                seen[key] = (None, f"your kernel's run at this shape ended '{r.verdict if r else 'without a result'}'"
                                   + (f": {r.message}" if r and r.message else ""))
        return seen[key]
    return measure


def _with_questions(stages: list[StageScore], all_stages: dict, impl: str, sub_root: Path | None,
                    opts: GradeOptions, tree: Tree | None = None,
                    backend: str = "emu") -> tuple[list[StageScore], dict]:
    """The stages with their graded questions' checks after the kernel's (quiz.py scores them, from
    answers.toml beside matmul.cu), and the answers graded by stage. The reference solution answers
    none (its checks are the kernel's); the numbers are the student's own when the seed and the
    student are known, or the platform names the code (a PrairieLearn variant's), else those of the
    code in answers.toml (flagged UNVERIFIED where a key grades them)."""
    if impl == "solution":
        return stages, {}
    from ..score import quiz

    code = quiz.code_for(opts.seed, opts.student) if opts.seed and opts.student else opts.quiz_code or None
    device = device_of(stages)
    out, answers = [], {}
    for score in stages:
        stage = all_stages[score.stage]
        folder = (sub_root if sub_root else ROOT / "starter") / stage.id
        ans, note = quiz.attempt(quiz.read_answers(folder / quiz.ANSWERS, stage.id),
                                 opts.earlier_answers.get(stage.id, []), opts.question_attempts)
        if not ans.problem:
            answers[stage.id] = quiz.as_record(ans)
        questions = quiz.score(stage, impl, folder / quiz.ANSWERS, stage.points.questions, code, device,
                               answers=ans, note=note,
                               measure=_measurer(tree, impl, stage.id) if tree and not opts.quick else None,
                               on_gpu=backend == "gpu")
        out.append(replace(score, checks=score.checks + tuple(questions)))
    return out, answers


def _checked(opts: GradeOptions) -> dict[str, spec.Stage]:
    """Every stage by id, once the options are known to be usable (UsageError otherwise)."""
    all_stages = {s.id: s for s in spec.load_all(ROOT)}
    unknown = [s for s in opts.stages or [] if s not in all_stages]
    if unknown:
        raise UsageError(f"unknown stage(s) {unknown}; stages are {list(all_stages)}")
    if opts.hidden and not opts.seed:
        raise UsageError("--hidden needs --seed (the grading seed)")
    return all_stages


def run(opts: GradeOptions) -> GradeReport:
    """Grade one implementation; every failure of the code under test ends up in the report. The
    build tree is held for the whole grade (tree.exclusive): a grade begun meanwhile in it waits."""
    all_stages = _checked(opts)
    impl = impl_of(opts)
    backend = resolve_backend(opts.backend)
    build = _tree_path(opts.build_dir, impl, backend)
    with tree_mod.exclusive(build):   # one grade at a time in a tree
        started = time.monotonic()      # the grade's own time, not the wait for the tree
        report = _run_in(Tree(build, jobs=opts.jobs, memory_bytes=opts.memory_bytes,
                              isolate_network=opts.isolate_network), opts, all_stages, impl, backend)
    return replace(_scrub_report(report, build), seconds=time.monotonic() - started)


def _run_in(tree: Tree, opts: GradeOptions, all_stages: dict, impl: str, backend: str) -> GradeReport:
    """run() in a build tree it holds."""
    build = tree.build
    name = opts.name or (Path(opts.submission).stem if opts.submission else impl)
    hidden = bool(opts.hidden and opts.seed)
    digest = ""
    ended = lambda status, message: GradeReport(name, impl, backend, status=status, message=message, hidden=hidden,
                                                digest=digest)
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
        (opts.on_step or (lambda s: None))("waiting for the kit's build")
        try:
            kit = kit_mod.ensure(opts.kit_root, backend, timeout=opts.build_timeout * 3)
        except kit_mod.KitError as e:
            return ended("error", str(e))
    (opts.on_step or (lambda s: None))("configuring")
    c = tree.configure([] if impl == "submission" else list(SHARED_IMPLS), sub_root,
                       opts.seed if opts.hidden else None, backend, kit=kit)
    if not c.ok:
        return ended("error", f"configuring the build failed:\n{log_tail(c.output)}")
    registered = tree.tests()
    stages = []
    for sid in wanted:
        stage = all_stages[sid]
        if sub_root and not (sub_root / sid / "matmul.cu").exists():
            stages.append(score_stage(stage, impl, NotChecked(f"no {sid}/matmul.cu in the submission"),
                                      _hidden_count(stage, opts), backend))
            continue
        stages.append(_grade_stage(tree, stage, impl, backend, registered, opts))
    answers = {}
    if not opts.quick:   # `check` is the kernel's quick loop: no questions
        stages, answers = _with_questions(stages, all_stages, impl, sub_root, opts, tree, backend)
    status, message = "graded", ""
    if stages and all(any(c.verdict == "compile" for c in s.checks) for s in stages):
        status, message = "build-failed", "no stage compiled"
    return GradeReport(name, impl, backend, stages=stages, status=status, message=message, hidden=hidden,
                       device=device_of(stages), digest=digest, answers=answers)


def write_outputs(report: GradeReport, out: Path, formats: tuple[str, ...] = ("gradescope", "grade")) -> list[Path]:
    """The files of the registered output formats asked for (formats/: results.json,
    prairielearn.json, classroom.json, grade.json, report.html ...), in the folder out."""
    from ..report import formats as registry

    unknown = [f for f in formats if f not in registry.names()]
    if unknown:
        raise ValueError(f"unknown output format(s) {unknown}; the formats are {registry.names()}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in formats:
        fmt = registry.get(name)
        (out / fmt.filename).write_text(registry.render(report, name))
        written.append(out / fmt.filename)
    return written


def exit_status(report: GradeReport) -> int:
    """0: everything passed; 1: something failed or did not compile; 2: the grader could not run
    (the whole grade, or a check: a grading error); 77: nothing could be checked here (every check
    skipped: no GPU, or a tool missing)."""
    if report.status == "error" or any(c.verdict == results_mod.GRADING_ERROR for s in report.stages for c in s.checks):
        return ExitCode.ERROR
    if report.stages and all(s.all_skipped for s in report.stages):
        return ExitCode.SKIPPED
    return ExitCode.PASS if report.passed else ExitCode.WRONG


def grade(stages: list[str] | None = None, submission: str | None = None, backend: str = "auto",
          hidden: bool = False, seed: str | None = None, build_dir: str | None = None,
          impl: str | None = None, out: str | None = None, formats: tuple[str, ...] = ("gradescope", "grade"),
          jobs: int | None = None, perf_basis: str = "auto", table: bool = False) -> int:
    """The `tilelab grade` command; table prints every check, not only the diagnoses."""
    from ..report.formats import terminal

    opts = GradeOptions(stages=stages or None, submission=Path(submission) if submission else None, impl=impl,
                        backend=resolve_backend(backend), perf_basis=perf_basis, hidden=hidden, seed=seed,
                        build_dir=Path(build_dir) if build_dir else None,
                        jobs=jobs or os.cpu_count() or 1, on_step=terminal.step_printer())
    try:
        _checked(opts)
    except UsageError as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    # The tree is held until the files are written too: the default output folder of a submission
    # is its tree, and the next grade there must not overwrite them half-way.
    with tree_mod.exclusive(tree_of(opts)):
        report = run(opts)
        terminal.print_report(report, table=table)
        dest = Path(out) if out else Path(build_dir or default_out(report.impl, report.backend))
        for p in write_outputs(report, dest, formats):
            print(f"wrote {shown(p)}")
    return exit_status(report)
