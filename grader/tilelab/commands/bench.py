"""`tilelab bench`: each stage's reference solution and cuBLAS FP32 at several sizes on the GPU.

Runs each stage's solution runner directly with `--shape J K L --check perf` (the runner's bench
mode) and reads its JSON; prints a table and saves bench.json and bench.png."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT
from ..report import benchtable, plot
from ..run import ctest_results as results, judge
from ..score import metrics
from ..specs import spec
from ..specs.contract import SCHEMAS
from ..score.metrics import Metrics
from ..run.result import Result
from ..run.sandbox import run_limited
from ..run.tree import Tree, select

DEFAULT_SIZES = (256, 512, 1024, 2048, 4096)


@dataclass
class BenchRow:
    """One stage at one size: what was run, and its speed as every report reads it (metrics.Metrics)."""
    stage: str
    size: int
    verdict: str
    m: Metrics = field(default_factory=Metrics)
    message: str = ""

    # bench.json's row (its schema, SCHEMAS["bench"]): these of the speed's figures.
    FIGURES = ("median_ms", "gflops", "cublas_gflops", "previous_gflops", "pct_of_cublas", "pct_of_peak")

    def to_dict(self) -> dict:
        return {"stage": self.stage, "size": self.size, "verdict": self.verdict,
                **{k: getattr(self.m, k) for k in self.FIGURES}, "message": self.message}


def row_from(stage: str, size: int, r: Result | None, fallback: str = "") -> BenchRow:
    if r is None:
        return BenchRow(stage, size, "missing", message=fallback or "no result")
    return BenchRow(stage, size, r.verdict, metrics.of_result(r), r.message)


def measure(exe: str, spec_path: str, size: int, out: Path, timeout: float) -> Result | None:
    out.unlink(missing_ok=True)
    run_limited(judge.command(exe, spec=spec_path, shape=(size, size, size), check="perf", out=out, timeout=timeout),
                timeout=timeout + 30, log=out.with_suffix(".log"))
    return results.load(out)


def run(build: Path, stages: list[str] | None = None, sizes=DEFAULT_SIZES, timeout: float = 300,
        on_step=None) -> tuple[list[BenchRow], dict]:
    tree = Tree(Path(build))
    all_stages = {s.id: s for s in spec.load_all(ROOT)}
    ids = stages or list(all_stages)
    if not tree.configure(["solution"], backend="gpu").ok:
        raise RuntimeError(f"configuring {build} failed: see {tree.logs / 'configure.log'}")
    registered = tree.tests()
    rows, device = [], {}
    for sid in ids:
        runners = tree.runner_targets("solution", sid, "gpu")
        if not runners or not select(registered, "solution", sid, "perf", "gpu"):
            why = f"no GPU runner for this stage in the tree (see {tree.logs / 'configure.log'})"
            rows += [BenchRow(sid, n, "missing", message=why) for n in sizes]
            continue
        if not tree.build_targets(runners, f"bench-{sid}").ok:
            rows += [BenchRow(sid, n, "compile", message="build failed") for n in sizes]
            continue
        exe, spec_path = str(tree.build / "runners" / f"run-solution-{sid}-gpu"), str(spec.resolved_path(tree.build, sid))
        for n in sizes:
            if on_step:
                on_step(f"{sid} at {n}")
            r = measure(exe, spec_path, n, tree.build / "bench" / f"{sid}.{n}.json", timeout)
            # r is a parsed Result (result.py), never the JSON: its device is an attribute; the
            # first result that names one gives bench.json's device.
            device = device or (r.device if r is not None else {})
            rows.append(row_from(sid, n, r))
    return rows, device


def save(rows: list[BenchRow], device: dict, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    doc = {"format": SCHEMAS["bench"], "device": device, "rows": [r.to_dict() for r in rows]}
    (out / "bench.json").write_text(json.dumps(doc, indent=2) + "\n")
    written = [out / "bench.json"]
    png = plot.bench_png([r.to_dict() for r in rows if r.verdict == "pass"])
    if png:
        (out / "bench.png").write_bytes(png)
        written.append(out / "bench.png")
    return written


def table_lines(rows: list[BenchRow]) -> list[str]:
    """The rows as the one speed table (report/benchtable.py)."""
    return benchtable.speed_lines((r.stage, str(r.size), r.verdict, r.m) for r in rows)
