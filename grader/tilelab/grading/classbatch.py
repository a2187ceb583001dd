"""A batch of a class's submissions as both batch commands run it (`tilelab batch` on this machine,
`tilelab batch --slurm` on a cluster's nodes): its options, its plan worked out before anything is
graded (who is done already, who is to grade, each stage's maximum), one submission's grade in a
build tree of its own, a student's folder marked done, and the gradebook and index. What grades a
submission is handed in (a Grader: implementation.grade, or a test's); the report's files are the
commands' to write (report/formats: formats.write, then mark_done)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from .. import ROOT
from ..report.formats import gradebook
from ..report.model import GradeReport
from ..run import identity, submission as submission_mod, tree as tree_mod
from ..score import quiz
from ..specs import seed as seed_mod, spec
from . import stage as stage_mod
from .options import GradeOptions, resolve_backend

DONE = "done.json"
GRADEBOOK = "gradebook.csv"


@dataclass
class BatchOptions:
    out: Path
    jobs: int = 2
    backend: str = "auto"
    perf_basis: str = "auto"              # gpu | model | auto (GradeOptions)
    stages: list[str] | None = None
    hidden: bool = False
    seed: str | None = None
    build_root: Path | None = None             # default: <out>/.build
    kit_root: Path | None = None               # where the prebuilt kit is built (kit.py); default: <out>/.kit
    prebuilt_kit: bool = True                  # off: every submission's tree builds the whole kit again
    build_timeout: float = 1200                # per stage
    check_timeout: float | None = None         # per stage; default from the checks' timeouts
    memory_bytes: int | None = 8 << 30
    isolate_network: bool = True
    keep_builds: bool = False
    formats: tuple[str, ...] = ("gradescope", "grade", "html")
    regrade: bool = False                      # ignore done.json
    regrade_names: tuple[str, ...] = ()        # ignore these students' done.json
    build_jobs: int | None = None              # compile jobs per submission (default: cores / jobs)

    def __post_init__(self):
        self.seed = seed_mod.text(self.seed)   # any text; the number is derived from it (seed.py)


@dataclass
class BatchSummary:
    reports: dict[str, GradeReport] = field(default_factory=dict)
    graded: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    gradebook: Path | None = None
    interrupted: bool = False

    @property
    def problems(self) -> list[str]:
        return sorted(n for n, r in self.reports.items() if r.status != "graded")


Grader = Callable[[GradeOptions], GradeReport]
OnStep = Callable[[str, str], None]           # (student, "building 02-tiled" ...)


def config_key(opts: BatchOptions, backend: str) -> str:
    """What a grade depends on besides the submission: the settings and the grader itself (its code,
    the stage specs and the reference solutions: identity.digest)."""
    h = hashlib.sha256(json.dumps([opts.stages, backend, opts.hidden, opts.seed if opts.hidden else None,
                                   opts.perf_basis]).encode())
    h.update(identity.digest().encode())
    return h.hexdigest()


def student_dir(out: Path, name: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_.@" else "_" for ch in name)
    if not safe or safe.startswith("."):
        safe = "_" + safe
    return out / "students" / safe


def load_done(folder: Path, digest: str, key: str) -> GradeReport | None:
    """The finished report of an earlier run, if it graded the same files with the same settings."""
    try:
        done = json.loads((folder / DONE).read_text())
        if done.get("digest") != digest or done.get("config") != key:
            return None
        return GradeReport.from_dict(json.loads((folder / "grade.json").read_text()))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _crash_report(name: str, backend: str, exc: BaseException) -> GradeReport:
    tb = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return GradeReport(name, "submission", backend, status="error", message=f"the grader failed: {tb}")


def kit_root(opts: BatchOptions) -> Path | None:
    """Where the batch's prebuilt kit lives (kit.py; implementation.grade builds it at the first grade that
    needs it), or None where each submission's tree builds the whole kit (--no-prebuilt-kit)."""
    return Path(opts.kit_root or opts.out / ".kit").resolve() if opts.prebuilt_kit else None


def grade_one(sub: submission_mod.Submission, opts: BatchOptions, backend: str, grader: Grader,
              stage_ids: list[str], on_step: OnStep | None = None) -> GradeReport:
    build = (opts.build_root or opts.out / ".build") / student_dir(Path(), sub.name).name
    go = GradeOptions(stages=stage_ids, submission=sub.path, name=sub.name, student=sub.name, impl="submission",
                      backend=backend, perf_basis=opts.perf_basis, hidden=opts.hidden, seed=opts.seed, build_dir=build,
                      kit_root=kit_root(opts),
                      jobs=opts.build_jobs or max(1, (os.cpu_count() or 1) // max(1, opts.jobs)),
                      build_timeout=opts.build_timeout,
                      check_timeout=opts.check_timeout, memory_bytes=opts.memory_bytes,
                      isolate_network=opts.isolate_network,
                      on_step=(lambda step: on_step(sub.name, step)) if on_step else None)
    # The tree is held from the clean start to its removal (implementation.grade takes it again at no cost): two
    # submissions whose names give one folder, or two batches writing one --out, take turns in it.
    with tree_mod.exclusive(build, remove=not opts.keep_builds):
        if not opts.keep_builds:
            tree_mod.clear(build)   # left by an interrupted run: start from nothing
        try:
            report = grader(go)
        except Exception as e:  # a bug in grading one submission must not end the batch
            report = _crash_report(sub.name, backend, e)
        report = replace(report, submission=sub.name)
        if not opts.keep_builds and (build / "logs").exists():
            logs = student_dir(opts.out, sub.name) / "logs"
            shutil.rmtree(logs, ignore_errors=True)
            shutil.copytree(build / "logs", logs)
    return report


def mark_done(report: GradeReport, folder: Path, opts: BatchOptions, key: str, digest: str) -> None:
    """done.json in a student's folder, written last (after the report's files: formats.write), so
    that a folder with it is whole: a later run with the same files, settings and grader reuses it
    (load_done)."""
    done = {"digest": digest, "config": key, "status": report.status,
            "points": report.points, "max_points": report.max_points, "finished": time.time(),
            **made_with(opts)}
    tmp = folder / (DONE + ".tmp")
    tmp.write_text(json.dumps(done, indent=2) + "\n")
    tmp.replace(folder / DONE)


def made_with(opts: BatchOptions) -> dict:
    """The grader version and seed a grade is made with (done.json, the gradebook's last columns)."""
    return {"grader": identity.version(), "seed": opts.seed if opts.hidden and opts.seed else ""}


def read_made_with(folder: Path) -> dict:
    try:
        done = json.loads((folder / DONE).read_text())
        return {"grader": done.get("grader", ""), "seed": done.get("seed", "")}
    except (OSError, ValueError, AttributeError):
        return {}


def maxima(stage_ids: list[str], opts: BatchOptions, backend: str) -> dict[str, float]:
    """Each stage's full points in this batch: its checks (hidden datasets included when they are
    graded) and its graded questions, counted as a grade counts them (quiz.score: out of the maximum
    where no key is at hand, or a GPU question off the GPU), so a student's total is never over it."""
    stages = {s.id: s for s in spec.load_all(ROOT)}
    out = {}
    for sid in stage_ids:
        st = stages[sid]
        questions = quiz.score(st, "submission", None, st.points.questions, on_gpu=backend == "gpu")
        # opts: a batch's options hold what not_checked reads of a grade's (hidden, seed)
        out[sid] = (stage_mod.not_checked(st, "submission", "", opts, backend).max_points
                    + sum(q.max_points for q in questions))
    return out


def write_index(out: Path, reports: list[GradeReport], stage_ids: list[str], maxima: dict[str, float] | None = None,
                settings: dict | None = None) -> None:
    rows = []
    for r in sorted(reports, key=lambda r: r.submission):
        row = gradebook.row(r, stage_ids, maxima)
        row["link"] = str(student_dir(Path(), r.submission) / "report.html")
        row["has_report"] = (student_dir(out, r.submission) / "report.html").exists()
        rows.append(row)
    (out / "index.html").write_text(gradebook.render_index(rows, f"tilelab batch: {len(rows)} submissions",
                                                             stage_ids, settings or {}))


def pending(sub: submission_mod.Submission, folder: Path, backend: str) -> GradeReport:
    """The row of a student the batch did not (re)grade: their previous grade if any, marked."""
    try:
        prev = GradeReport.from_dict(json.loads((folder / "grade.json").read_text()))
        message = "not regraded yet (the batch was stopped): these are the previous run's points"
    except (OSError, ValueError, TypeError, KeyError):
        prev = GradeReport(sub.name, "submission", backend)
        message = "not graded yet (the batch was stopped)"
    return replace(prev, submission=sub.name, status=gradebook.PENDING, message=message)


@dataclass
class Plan:
    """A batch worked out before anything is graded: who is done already (reused), who is to grade."""
    subs: list[submission_mod.Submission]
    stage_ids: list[str]
    backend: str
    key: str
    most: dict[str, float]
    settings: dict
    summary: BatchSummary
    todo: list[tuple[submission_mod.Submission, Path, str]]      # (submission, its folder, digest)
    waiting: dict[str, GradeReport]                              # todo's rows until graded
    made: dict[str, dict]                                        # student -> grader version, seed

    def book(self) -> list[GradeReport]:
        """Every submission: graded, reused, or pending (not yet graded in this run)."""
        return [self.summary.reports.get(sub.name) or self.waiting[sub.name] for sub in self.subs]

    def write_book(self, opts: BatchOptions, index: bool = True) -> None:
        gradebook.write(self.summary.gradebook, self.book(), self.stage_ids, self.most, self.made)
        if index and "html" in opts.formats:
            write_index(opts.out, self.book(), self.stage_ids, self.most, self.settings)


class BatchError(ValueError):
    """A batch that cannot start: said to the instructor as it is."""


def plan(submissions: Path, opts: BatchOptions,
         on_event: Callable[[str, GradeReport, bool], None] | None = None) -> Plan:
    all_ids = [s.id for s in spec.load_all(ROOT)]
    stage_ids = opts.stages or all_ids
    backend = resolve_backend(opts.backend)
    key = config_key(opts, backend)
    # Absolute from here on: compiler messages name the build tree's files by absolute path, and
    # the scratch prefix is cut from them only when it is spelled the same way.
    opts.out = Path(opts.out).resolve()
    opts.build_root = Path(opts.build_root).resolve() if opts.build_root else None
    opts.out.mkdir(parents=True, exist_ok=True)
    subs = submission_mod.discover(submissions)
    unknown = sorted(set(opts.regrade_names) - {s.name for s in subs})
    if unknown:
        raise BatchError(f"--regrade names no submission: {', '.join(unknown)} "
                         f"(submissions are named by their folder or zip: {', '.join(s.name for s in subs[:5])} ...)")
    summary = BatchSummary(gradebook=opts.out / GRADEBOOK)
    settings = {"backend": backend, "stages": ", ".join(stage_ids),
                "hidden datasets": f"yes, seed {opts.seed}" if opts.hidden and opts.seed else "no",
                "grader": identity.version(),
                "written": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    todo, made = [], {}
    for sub in subs:
        folder = student_dir(opts.out, sub.name)
        made[sub.name] = read_made_with(folder)
        try:
            digest = submission_mod.digest_of(sub.path, stage_ids)
        except submission_mod.SubmissionError:
            digest = ""
        again = opts.regrade or sub.name in opts.regrade_names
        prior = None if again else load_done(folder, digest, key)
        if prior is not None:
            summary.reports[sub.name] = prior
            summary.reused.append(sub.name)
            if on_event:
                on_event(sub.name, prior, True)
        else:
            todo.append((sub, folder, digest))
    waiting = {sub.name: pending(sub, folder, backend) for sub, folder, _ in todo}   # read once
    return Plan(subs, stage_ids, backend, key, maxima(stage_ids, opts, backend), settings, summary, todo,
                waiting, made)
