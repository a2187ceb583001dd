"""`tilelab batch SUBMISSIONS --slurm`: the same batch, graded by a Slurm job array.

The submitting command works the batch out as a local batch does (grading/classbatch.py's plan:
who is done already, by the same resume key), writes what is left to OUT/.slurm/job-<n>.json, and
submits one array (one task per submission, or per --chunk of them; `%N` caps how many run at
once). Each task runs `tilelab _slurm-task` on its node: it grades its submissions exactly as a
local batch does (classbatch.grade_one, in a node-local scratch build) and writes each student's
folder, done.json last.
It never touches the gradebook. The submitter (or a later `batch --slurm --collect`) waits, then
writes gradebook.csv and index.html from the student folders: the same files a local batch writes.

A filesystem every node sees is assumed, as on every HPC cluster: the kit (with its .venv), the
submissions and OUT must be on it (home or project space; not /tmp).

What the scheduler says of a task is read from `squeue` (pending, running) and `sacct` (how it
ended: TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED, FAILED, with its exit code and reason); where
accounting is off, squeue's memory of finished jobs (MinJobAge) stands in. A student whose task
ended without writing done.json is a failed row in the gradebook naming the task, its state and
its log; `--retry-failed` resubmits those, and a plain rerun submits everything not done (never
what is still queued or running in an earlier array)."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import ROOT
from ..grading import classbatch, implementation
from ..report import formats as formats_mod
from ..report.formats.common import summary_line
from ..report.model import GradeReport
from ..run import submission as submission_mod, tree as tree_mod
from ..specs.contract import ExitCode

STATE_DIR = ".slurm"
JOBS = "jobs.json"
MAX_ARRAY = 1000          # Slurm's default MaxArraySize is 1001 (indices 0..1000)
LIVE = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED", "REQUEUE_HOLD",
        "REQUEUE_FED", "SIGNALING", "STAGE_OUT", "STOPPED"}
WHY = {"TIMEOUT": "it reached its time limit (raise --slurm-time)",
       "OUT_OF_MEMORY": "it ran out of memory (raise --slurm-mem)",
       "NODE_FAIL": "its node failed",
       "BOOT_FAIL": "its node failed to boot",
       "PREEMPTED": "it was preempted by another job",
       "CANCELLED": "it was cancelled",
       "DEADLINE": "it missed its deadline",
       "FAILED": "it exited with an error",
       "COMPLETED": "it ended without writing this student's grade"}


@dataclass
class SlurmOptions:
    partition: str | None = None
    account: str | None = None
    time: str = "01:00:00"                 # per task (sbatch --time)
    max_running: int | None = None         # the array's %N
    chunk: int = 1                         # submissions per task
    cpus: int = 4                          # --cpus-per-task: the compile jobs of one submission
    mem: str | None = "16G"                # --mem per task
    gres: str | None = None                # default: gpu:1 for the gpu backend, none for the emulator
    extra: list[str] = field(default_factory=list)   # more sbatch arguments, as given
    poll: float = 30.0                     # seconds between looks at the queue
    wait: bool = True
    collect: bool = False
    retry_failed: bool = False
    dry_run: bool = False


@dataclass
class TaskState:
    task: str                  # 123_4
    state: str                 # PENDING, RUNNING, COMPLETED, TIMEOUT ...
    reason: str = ""
    exit_code: str = ""


@dataclass
class SlurmSummary:
    job: str | None = None
    submitted: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)       # student -> why
    live: list[str] = field(default_factory=list)              # still pending or running
    script: str = ""
    gradebook: Path | None = None


class SlurmError(RuntimeError):
    pass


# ---- the scheduler's commands -------------------------------------------------------------------

def _run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    if not shutil.which(cmd[0]):
        raise SlurmError(f"`{cmd[0]}` is not on PATH: run this on a Slurm login node (or load its module)")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def parse_squeue(text: str) -> dict[str, TaskState]:
    """`squeue -h -r -o %i|%T|%r` lines: one per array task (JOB_INDEX), -r expands pending ranges."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) >= 2 and "_" in parts[0] and "[" not in parts[0]:
            reason = parts[2] if len(parts) > 2 and parts[2] not in ("None", "") else ""
            out[parts[0]] = TaskState(parts[0], parts[1].split()[0], reason)
    return out


def parse_sacct(text: str) -> dict[str, TaskState]:
    """`sacct -n -P -X -o JobID,State,ExitCode,Reason` lines. A still-pending range (123_[5-9%2])
    is left to squeue; `CANCELLED by 1000` is CANCELLED."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) >= 2 and "_" in parts[0] and "[" not in parts[0]:
            reason = parts[3] if len(parts) > 3 and parts[3] not in ("None", "") else ""
            out[parts[0]] = TaskState(parts[0], parts[1].split()[0] if parts[1] else "UNKNOWN", reason,
                                      parts[2] if len(parts) > 2 else "")
    return out


def task_states(job_ids: list[str]) -> dict[str, TaskState]:
    """Every known task of these jobs: sacct's account of finished ones, squeue's of live ones
    (squeue --states=all also remembers finished tasks for MinJobAge, where accounting is off)."""
    if not job_ids:
        return {}
    ids = ",".join(job_ids)
    states: dict[str, TaskState] = {}
    acct = _run(["sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State,ExitCode,Reason"])
    if acct.returncode == 0:
        states.update(parse_sacct(acct.stdout))
    q = _run(["squeue", "-h", "-r", "--states=all", "-j", ids, "-o", "%i|%T|%r"])
    for tid, st in parse_squeue(q.stdout if q.returncode == 0 else "").items():
        if st.state in LIVE or tid not in states:
            states[tid] = st
    return states


def describe(st: TaskState | None, log: Path) -> str:
    """The gradebook's note for a student whose task ended without their grade."""
    if st is None:
        return (f"the Slurm task is gone and left no grade (the scheduler no longer knows it); "
                f"see {log}; retry with --retry-failed")
    why = WHY.get(st.state, "it ended")
    extra = ", ".join(x for x in (f"exit code {st.exit_code}" if st.exit_code and st.exit_code != "0:0" else "",
                                  f"reason {st.reason}" if st.reason else "") if x)
    return (f"Slurm task {st.task} {st.state}: {why}{f' ({extra})' if extra else ''}; see {log}; "
            f"retry with --retry-failed")


# ---- the job --------------------------------------------------------------------------------------

def state_dir(out: Path) -> Path:
    return Path(out) / STATE_DIR


def load_jobs(out: Path) -> list[dict]:
    try:
        return json.loads((state_dir(out) / JOBS).read_text())
    except (OSError, ValueError):
        return []


def _save_jobs(out: Path, jobs: list[dict]) -> None:
    tmp = state_dir(out) / (JOBS + ".tmp")
    tmp.write_text(json.dumps(jobs, indent=2) + "\n")
    tmp.replace(state_dir(out) / JOBS)


def job_script(opts: classbatch.BatchOptions, sopts: SlurmOptions, backend: str, n_tasks: int, spec: Path) -> str:
    logs = state_dir(opts.out) / "logs"
    gres = sopts.gres if sopts.gres is not None else ("gpu:1" if backend == "gpu" else "")
    array = f"0-{n_tasks - 1}" + (f"%{sopts.max_running}" if sopts.max_running else "")
    lines = ["#!/bin/bash",
             "#SBATCH --job-name=tilelab-batch",
             f"#SBATCH --array={array}",
             f"#SBATCH --output={logs}/%A_%a.log",
             f"#SBATCH --cpus-per-task={sopts.cpus}",
             f"#SBATCH --time={sopts.time}"]
    lines += [f"#SBATCH --mem={sopts.mem}"] if sopts.mem else []
    lines += [f"#SBATCH --partition={sopts.partition}"] if sopts.partition else []
    lines += [f"#SBATCH --account={sopts.account}"] if sopts.account else []
    lines += [f"#SBATCH --gres={gres}"] if gres else []
    lines += [f"#SBATCH {a}" for a in sopts.extra]
    lines += ["# tilelab batch on Slurm: each array task grades its submissions on its node, in a node-local",
              "# scratch build, and writes their folders under OUT. The kit, the submissions and OUT must be",
              "# on a filesystem every node sees.",
              "set -eu",
              f"cd {shlex.quote(str(ROOT))}",
              f'exec {shlex.quote(str(ROOT / "tilelab"))} _slurm-task {shlex.quote(str(spec))} "$SLURM_ARRAY_TASK_ID"',
              ""]
    return "\n".join(lines)


def _options_doc(opts: classbatch.BatchOptions) -> dict:
    d = dataclasses.asdict(opts)
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in d.items()}


def _options_from(d: dict) -> classbatch.BatchOptions:
    d = dict(d)
    d["out"] = Path(d["out"])
    d["build_root"] = Path(d["build_root"]) if d.get("build_root") else None
    d["kit_root"] = Path(d["kit_root"]) if d.get("kit_root") else None
    d["formats"] = tuple(d.get("formats") or ())
    d["regrade_names"] = tuple(d.get("regrade_names") or ())
    return classbatch.BatchOptions(**d)


def submit(opts: classbatch.BatchOptions, sopts: SlurmOptions, p: classbatch.Plan,
           items: list[tuple[submission_mod.Submission, Path, str]], summary: SlurmSummary) -> None:
    chunk = max(sopts.chunk, -(-len(items) // MAX_ARRAY))       # at most MAX_ARRAY tasks
    tasks = [items[i:i + chunk] for i in range(0, len(items), chunk)]
    sd = state_dir(opts.out)
    jobs = load_jobs(opts.out)
    spec = sd / f"job-{len(jobs) + 1}.json"
    summary.script = job_script(opts, sopts, p.backend, len(tasks), spec)
    if sopts.dry_run:
        return
    (sd / "logs").mkdir(parents=True, exist_ok=True)
    for _, folder, _ in items:      # regraded: the old done.json must not pass for the new grade
        (folder / classbatch.DONE).unlink(missing_ok=True)
    spec.write_text(json.dumps({"options": _options_doc(opts), "key": p.key, "backend": p.backend,
                                "stage_ids": p.stage_ids,
                                "tasks": [[{"name": s.name, "path": str(Path(s.path).resolve()), "digest": d}
                                           for s, _, d in t] for t in tasks]}, indent=1) + "\n")
    script = spec.with_suffix(".sh")
    script.write_text(summary.script)
    r = _run(["sbatch", "--parsable", str(script)])
    if r.returncode != 0:
        raise SlurmError(f"sbatch refused the job: {r.stderr.strip() or r.stdout.strip()} (script: {script})")
    job = r.stdout.strip().split(";")[0]
    jobs.append({"job": job, "spec": spec.name, "submitted": time.time(),
                 "tasks": {f"{job}_{i}": [s.name for s, _, _ in t] for i, t in enumerate(tasks)}})
    _save_jobs(opts.out, jobs)
    summary.job = job
    summary.submitted = [s.name for s, _, _ in items]


# ---- where each student stands ----------------------------------------------------------------------

def standing(out: Path, names: list[str]) -> dict[str, tuple[str, TaskState | None]]:
    """For each student not done: (the task id of their latest submission, what Slurm says of it)."""
    jobs = load_jobs(out)
    latest: dict[str, str] = {}
    for j in jobs:
        for tid, who in j["tasks"].items():
            for name in who:
                latest[name] = tid
    wanted = {latest[n] for n in names if n in latest}
    states = task_states(sorted({t.split("_")[0] for t in wanted})) if wanted else {}
    return {n: (latest[n], states.get(latest[n])) for n in names if n in latest}


def classify(out: Path, p: classbatch.Plan) -> tuple[list[str], dict[str, str], list[str], list[str]]:
    """(live, failed{student: why}, never submitted, done) for the plan's students."""
    todo = [sub.name for sub, _, _ in p.todo]
    where = standing(out, todo)
    live, failed, never = [], {}, []
    for name in todo:
        if name not in where:
            never.append(name)
            continue
        tid, st = where[name]
        if st is not None and st.state in LIVE:
            live.append(name)
        else:
            failed[name] = describe(st, state_dir(out) / "logs" / f"{tid}.log")
    return live, failed, never, list(p.summary.reused)


def _failed_report(name: str, backend: str, why: str) -> GradeReport:
    return GradeReport(name, "submission", backend, status="error", message=why)


def finish(submissions: Path, opts: classbatch.BatchOptions, summary: SlurmSummary) -> classbatch.Plan:
    """Write the gradebook and index.html from the student folders: done students, failed tasks
    (status error, the scheduler's reason), and pending rows for what is still queued."""
    p = classbatch.plan(submissions, opts)
    live, failed, never, done = classify(opts.out, p)
    for name, why in failed.items():
        p.summary.reports[name] = _failed_report(name, p.backend, why)
    summary.done, summary.failed, summary.live = done, failed, live
    summary.gradebook = p.summary.gradebook
    p.write_book(opts)
    return p


def wait(submissions: Path, opts: classbatch.BatchOptions, sopts: SlurmOptions,
         on_progress: Callable[[dict[str, int], dict[str, str]], None] | None = None) -> None:
    """Until nothing of the batch is queued or running: on_progress(counts, failed) at each change."""
    last = None
    while True:
        p = classbatch.plan(submissions, opts)
        live, failed, never, done = classify(opts.out, p)
        where = standing(opts.out, live)
        running = sum(1 for n in live if where.get(n, ("", None))[1] and where[n][1].state != "PENDING")
        counts = {"pending": len(live) - running, "running": running, "done": len(done), "failed": len(failed),
                  "not submitted": len(never)}
        if counts != last and on_progress:
            on_progress(counts, failed)
        last = counts
        if not live:
            return
        time.sleep(sopts.poll)


def run(submissions: Path, opts: classbatch.BatchOptions, sopts: SlurmOptions,
        on_progress: Callable[[dict[str, int], dict[str, str]], None] | None = None) -> SlurmSummary:
    """Submit what is not done (or, with retry_failed, what failed), then wait and collect."""
    summary = SlurmSummary()
    # --regrade chooses what is submitted; once submitted, a student is done when their task is.
    settled = dataclasses.replace(opts, regrade=False, regrade_names=())
    if not sopts.collect:
        p = classbatch.plan(submissions, opts)
        live, failed, never, _ = classify(opts.out, p) if not sopts.dry_run else ([], {}, [], [])
        if sopts.retry_failed:
            items = [t for t in p.todo if t[0].name in failed]
        else:
            items = [t for t in p.todo if t[0].name not in live]
        summary.live = live
        if sopts.dry_run:
            if items:
                submit(opts, sopts, p, items, summary)
            else:
                summary.script = "# nothing to submit: every submission is done, queued or running\n"
            return summary
        if items:
            submit(opts, sopts, p, items, summary)
    if sopts.wait:
        wait(submissions, settled, sopts, on_progress)
    finish(submissions, settled, summary)     # with --no-wait: pending rows now, `--collect` later
    return summary


# ---- one array task, on its node -----------------------------------------------------------------------

def run_task(spec_path: Path, index: int, grader: classbatch.Grader | None = None) -> int:
    """Grade task `index` of a submitted job: its submissions, one after another, each written to
    its folder (done.json last) exactly as a local batch writes it."""
    doc = json.loads(Path(spec_path).read_text())
    opts = _options_from(doc["options"])
    stage_ids, backend = doc["stage_ids"], doc["backend"]
    if classbatch.config_key(opts, backend) != doc["key"]:
        print("tilelab: the grader or its settings changed since this job was submitted; "
              "its grades would not be what was asked for: submit the batch again", file=sys.stderr)
        return ExitCode.BAD_INPUT
    opts.build_jobs = int(os.environ.get("SLURM_CPUS_PER_TASK", tree_mod.usable_cores()))
    scratch = Path(tempfile.mkdtemp(prefix=f"tilelab-{os.environ.get('SLURM_JOB_ID', 'task')}-"))
    scratch.chmod(0o755)                      # the sandbox user builds inside (mkdtemp makes it 0700)
    opts.build_root = scratch                 # node-local: builds are many small files
    try:
        # One kit for the whole array, on the shared filesystem (OUT/.kit): the first task to grade
        # builds it on its node while the others wait on its lock (kit.ensure, through implementation.grade).
        for item in doc["tasks"][index]:
            sub = submission_mod.Submission(item["name"], Path(item["path"]))
            print(f"tilelab: grading {sub.name} on {os.uname().nodename}", flush=True)
            report = classbatch.grade_one(sub, opts, backend, grader or implementation.grade, stage_ids)
            folder = classbatch.student_dir(opts.out, sub.name)
            formats_mod.write(report, folder, opts.formats)    # done.json last: the folder is whole
            classbatch.mark_done(report, folder, opts, doc["key"], item["digest"])
            print(summary_line(report), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0
