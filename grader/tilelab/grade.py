"""`tilelab grade`: configure a scratch build tree, build each stage's runner, run its checks
through CTest, read the runner's JSON results and print a score table.

Measuring stays in C++ (the runner) and scoring in scoring.py; this module only drives CMake and
CTest and reads result files -- it never parses human-readable output.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from . import ROOT, spec
from .scoring import StageScore, score_stage

BUILD_ROOT = ROOT / "build"


def _run(cmd: list[str], log: Path | None = None, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if log:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"$ {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p


def configure(build: Path, impl: str, submission: Path | None, seed: str | None,
              backend: str = "auto") -> subprocess.CompletedProcess:
    cmd = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
           f"-DTILELAB_IMPLS={impl if impl != 'submission' else ''}",
           "-DTILELAB_STARTER_EXPECT_FAIL=OFF",
           f"-DTILELAB_GRADING_SEED={seed or ''}",
           f"-DTILELAB_CUDA={'OFF' if backend == 'emu' else 'AUTO'}"]
    if submission:
        cmd.append(f"-DTILELAB_SUBMISSION={submission.resolve()}")
    return _run(cmd, build / "logs" / "configure.log")


def build_stage(build: Path, impl: str, stage_id: str, backend: str) -> subprocess.CompletedProcess:
    target = f"run-{impl}-{stage_id}-{backend}"
    return _run(["cmake", "--build", str(build), "--parallel", "--target", "datasets", target],
                build / "logs" / f"build-{stage_id}.log")


def run_checks(build: Path, impl: str, stage_id: str, backend: str) -> None:
    junit = build / "results" / f"junit-{impl}-{stage_id}.xml"
    _run(["ctest", "--test-dir", str(build), "-L", f"^{stage_id}$", "-L", f"^{impl}$", "-L", f"^{backend}$",
          "--output-junit", str(junit), "--timeout", "900"], build / "logs" / f"ctest-{stage_id}.log")


def read_results(build: Path, impl: str, stage_id: str) -> dict[str, dict]:
    out = {}
    for f in (build / "results").glob(f"{impl}.{stage_id}.*.json"):
        try:
            out[f.stem] = json.loads(f.read_text())
        except ValueError:
            pass  # a half-written file is a missing result
    return out


def gpu_available() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    return subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def print_table(scores: list[StageScore]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # before ./tilelab setup has installed rich
        for s in scores:
            print(f"== {s.stage}: {s.points:.1f} / {s.max_points:.1f}")
            for c in s.checks:
                print(f"  {c.dataset:14} {c.check:8} {c.verdict:8} {c.points:5.1f}/{c.max_points:<5.1f} {c.message}")
                if c.hint and c.verdict != "pass":
                    print(f"      hint: {c.hint}")
        return
    console = Console()
    for s in scores:
        t = Table(title=f"{s.stage}: {s.points:.1f} / {s.max_points:.1f} points", title_justify="left")
        for col in ("dataset", "check", "verdict", "GFLOP/s", "% of ref", "% of cuBLAS", "points"):
            t.add_column(col)
        for c in s.checks:
            timing = (c.result or {}).get("timing", {})
            mine = timing.get("impls", {}).get((c.result or {}).get("impl", ""), {})
            style = {"pass": "green", "skipped": "yellow"}.get(c.verdict, "red")
            t.add_row(c.dataset, c.check, f"[{style}]{c.verdict}[/]",
                      f"{mine['gflops']:.0f}" if mine else "",
                      f"{100 * timing['ratio_to_reference']:.0f}%" if "ratio_to_reference" in timing else "",
                      f"{100 * timing['ratio_to_cublas']:.0f}%" if "ratio_to_cublas" in timing else "",
                      f"{c.points:.1f}/{c.max_points:.1f}")
        console.print(t)
        for c in s.checks:
            if c.verdict not in ("pass", "skipped"):
                console.print(f"  [bold]{c.dataset}[/]: {c.message}")
                if c.hint:
                    console.print(f"    hint: {c.hint}")
            elif c.verdict == "skipped":
                console.print(f"  [yellow]{c.dataset}[/]: skipped ({c.message})")


def grade(stages: list[str] | None = None, submission: str | None = None, backend: str = "auto",
          hidden: bool = False, seed: str | None = None, build_dir: str | None = None,
          impl: str | None = None) -> int:
    all_stages = {s.id: s for s in spec.load_all(ROOT)}
    wanted = stages or list(all_stages)
    unknown = [s for s in wanted if s not in all_stages]
    if unknown:
        print(f"tilelab: unknown stage(s) {unknown}; stages are {list(all_stages)}")
        return 4
    sub = Path(submission) if submission else None
    impl = impl or ("submission" if sub else "starter")
    if backend == "auto":
        backend = "gpu" if gpu_available() else "emu"
    build = Path(build_dir) if build_dir else BUILD_ROOT / f"grade-{impl}"
    if hidden and not seed:
        print("tilelab: --hidden needs --seed (the grading seed)")
        return 4
    p = configure(build, impl, sub, seed if hidden else None, backend)
    if p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:])
        return 2
    scores = []
    for sid in wanted:
        stage = all_stages[sid]
        b = build_stage(build, impl, sid, backend)
        if b.returncode != 0:
            s = score_stage(stage, impl, {}, stage.hidden.count if hidden and stage.hidden else 0)
            for c in s.checks:
                c.verdict, c.message = "compile", f"build failed: see {build / 'logs' / f'build-{sid}.log'}"
            scores.append(s)
            continue
        run_checks(build, impl, sid, backend)
        results = read_results(build, impl, sid)
        scores.append(score_stage(stage, impl, results, stage.hidden.count if hidden and stage.hidden else 0))
    print_table(scores)
    return 0 if all(s.passed for s in scores) else 1
