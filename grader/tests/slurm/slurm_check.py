#!/usr/bin/env python3
"""CTest kit.slurm: `tilelab batch --slurm` against a real Slurm (minicluster.py), not a mock.

Starts munged, slurmctld and slurmd on localhost in --work; grades the given known-bad/known-good
submissions of one stage on the emulator twice -- a local batch and a Slurm job array -- and checks:
  * --dry-run prints the job script (the array with its %N cap, no GPU asked for on the emulator);
  * one task killed mid-run (scancel) is reported: a failed row naming the task, CANCELLED and
    --retry-failed, and `batch --collect` exits 1 and shows progress while it waits;
  * the other rows, then after `--retry-failed` every row, equal the local batch's (status, points,
    grader version), and every student has the same files as in a local batch;
  * a rerun submits nothing (resume);
  * each batch built one prebuilt kit (tilelab.run.kit), read-only, and no student's tree built the
    kit's own targets: the local batch in OUT/.kit, the array's tasks one between them on the
    shared filesystem (the first task to grade builds it, the others wait on its lock).
Exits 77 (CTest SKIP_RETURN_CODE) with the reason where Slurm cannot start."""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
from minicluster import MiniCluster, Unavailable  # noqa: E402

COMPARED = ("student", "status", "total", "max", "grader", "seed")


def sh(cmd, env, timeout=3600, check_rc=None) -> subprocess.CompletedProcess:
    print("$", " ".join(str(c) for c in cmd), flush=True)
    r = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, text=True, timeout=timeout)
    print(r.stdout[-3000:], r.stderr[-2000:], sep="", flush=True)
    if check_rc is not None and r.returncode != check_rc:
        fail(f"{cmd[0]} {cmd[1] if len(cmd) > 1 else ''}: exit {r.returncode}, expected {check_rc}")
    return r


def fail(msg: str) -> None:
    raise SystemExit(f"FAIL: {msg}")


def rows(out: Path) -> dict[str, dict]:
    with open(out / "gradebook.csv") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def same(a: dict, b: dict, stage: str) -> bool:
    return all(a[k] == b[k] for k in (*COMPARED, stage))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--stage", default="01-basic")
    ap.add_argument("--submissions", required=True, help="';'-separated names in grader/tests/submissions")
    args = ap.parse_args()
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    subs = work / "subs"
    names = [n for n in args.submissions.split(";") if n]
    sys.path.insert(0, str(ROOT / "grader" / "tests" / "submissions"))
    import mutate   # a mutant is an edit of a solution, written out here as a student's file
    edits = {name: (stage, m) for name, stage, m in mutate.mutants()}
    for n in names:
        src = ROOT / "grader" / "tests" / "submissions" / n / args.stage / "matmul.cu"
        (subs / n / args.stage).mkdir(parents=True)
        if src.is_file():
            shutil.copy(src, subs / n / args.stage / "matmul.cu")
        elif n in edits and edits[n][0] == args.stage:
            (subs / n / args.stage / "matmul.cu").write_text(mutate.apply(n, *edits[n]))
        else:
            fail(f"{n}: no {args.stage}/matmul.cu and no {args.stage} mutant")

    try:
        cluster = MiniCluster(work / "cluster", cpus=2).__enter__()
    except Unavailable as e:
        print(f"SKIP: Slurm cannot start here: {e}")
        return 77
    try:
        return run(cluster, work, subs, names, args.stage)
    finally:
        cluster.stop()


def kit_was_shared(out: Path, names: list[str]) -> None:
    """One prebuilt kit for the whole batch (tilelab.run.kit): built once, complete, read-only, and no
    student's tree built the kit's own targets again."""
    kits = sorted((out / ".kit").glob("kit-emu-*"))
    if len(kits) != 1 or not (kits[0] / "READY").is_file():
        fail(f"{out}: expected one finished prebuilt kit in .kit/, found {[k.name for k in kits]}")
    if os.stat(kits[0] / "runners" / "tilelab-judge").st_mode & 0o222:
        fail(f"{kits[0]}: the kit's judge is writable")
    import re
    # The kit's own outputs named relative to the student's tree (the kit's are absolute paths into
    # .kit/, which its link lines name): built there again.
    own = re.compile(r"(?<![/\w.-])(CMakeFiles/tilelab_emu_rt_\w+\.dir/|CMakeFiles/tilelab-judge\.dir/|"
                     r"runners/tilelab-judge\b|runners/ref-[\w-]+-emu-count\b|libtilelab_emu_rt_\w+\.a\b)")
    logs = [log for n in names for log in (out / "students" / n / "logs").glob("build-*.log")]
    if not logs:
        fail(f"{out}: no student's build log to check")
    for log in logs:
        m = own.search(log.read_text(errors="replace"))
        if m:
            fail(f"{log}: the student's tree built the kit's {m.group(1)} again")


def run(cluster: MiniCluster, work: Path, subs: Path, names: list[str], stage: str) -> int:
    env = dict(cluster.env)
    env.pop("TILELAB_SANDBOX_USER", None)
    (work / "tmp").mkdir()
    env["TMPDIR"] = str(work / "tmp")
    tl = ROOT / "tilelab"
    common = ["--backend", "emu", "--stage", stage, "--memory-mib", "2048"]
    slurm = [tl, "batch", subs, "--out", work / "slurm", *common, "--slurm", "--poll", "1",
             "--cpus-per-task", "1", "--slurm-mem", "", "--slurm-time", "00:20:00", "--max-running", "2"]

    t0 = time.monotonic()
    sh([tl, "batch", subs, "--out", work / "local", *common, "-j", "2"], env, check_rc=0)
    local = rows(work / "local")
    kit_was_shared(work / "local", names)
    print(f"local batch: {time.monotonic() - t0:.0f} s", flush=True)

    dry = sh([*slurm, "--dry-run"], env, check_rc=0).stdout
    for want in (f"#SBATCH --array=0-{len(names) - 1}%2", "_slurm-task", "#SBATCH --cpus-per-task=1"):
        if want not in dry:
            fail(f"--dry-run's job script lacks {want!r}")
    if "--gres" in dry:
        fail("an emulator batch asked for a GPU (--gres)")
    if (work / "slurm" / ".slurm" / "jobs.json").exists():
        fail("--dry-run submitted a job")

    t1 = time.monotonic()
    out = sh([*slurm, "--no-wait"], env, check_rc=0).stdout
    if "submitted Slurm job" not in out:
        fail("the Slurm batch was not submitted")
    job = out.split("submitted Slurm job ")[1].split(":")[0]
    # Fault injection: cancel the first task seen running, before it writes its grade.
    victim, task = None, None
    import json
    tasks = json.loads((work / "slurm" / ".slurm" / "jobs.json").read_text())[0]["tasks"]
    deadline = time.monotonic() + 300
    while victim is None and time.monotonic() < deadline:
        q = subprocess.run(["squeue", "-h", "-r", "-j", job, "-t", "RUNNING", "-o", "%i"], env=env,
                           capture_output=True, text=True).stdout.split()
        for t in q:
            student = tasks[t][0]
            if not (work / "slurm" / "students" / student / "done.json").exists():
                subprocess.run(["scancel", t], env=env, check=True)
                victim, task = student, t
                break
        time.sleep(0.5)
    if victim is None:
        fail("no task was seen running to cancel")
    print(f"cancelled task {task} ({victim}) mid-run", flush=True)

    col = sh([*slurm, "--collect"], env, check_rc=1)
    if "running" not in col.stdout or f"FAILED {victim}" not in col.stdout:
        fail("--collect showed no progress or did not name the failed student")
    got = rows(work / "slurm")
    if got[victim]["status"] != "error" or "CANCELLED" not in got[victim]["note"] \
            or "--retry-failed" not in got[victim]["note"] or task not in got[victim]["note"]:
        fail(f"the cancelled task's row does not say what happened: {got[victim]}")
    for n in names:
        if n != victim and not same(got[n], local[n], stage):
            fail(f"{n}: Slurm {got[n]} != local {local[n]}")

    sh([*slurm, "--retry-failed"], env, check_rc=0)
    got = rows(work / "slurm")
    for n in names:
        if not same(got[n], local[n], stage):
            fail(f"after --retry-failed, {n}: Slurm {got[n]} != local {local[n]}")
        for f in ("grade.json", "results.json", "report.html", "done.json"):
            if not (work / "slurm" / "students" / n / f).is_file():
                fail(f"{n}: no {f} in the Slurm batch's folder")
    if not (work / "slurm" / "index.html").is_file():
        fail("no index.html")
    kit_was_shared(work / "slurm", names)   # the array's tasks took one kit, on the shared filesystem
    again = sh([*slurm], env, check_rc=0).stdout
    if "nothing to submit" not in again:
        fail("a rerun of a finished batch submitted again")
    print(f"slurm batch, cancel, collect, retry: {time.monotonic() - t1:.0f} s")
    print(f"PASS: {len(names)} submissions graded through Slurm match the local batch; "
          f"the cancelled task ({victim}) was reported and retried")
    return 0


if __name__ == "__main__":
    sys.exit(main())
