"""`tilelab calibrate`: suggest each stage's performance thresholds for the GPU at hand.

Runs every stage's solution perf check several times (the registered CTest command, so the same
dataset and timing rules), and reads two ratios from the JSON: the reference solution against
itself (ratio_to_reference: pure measurement noise) and against the previous stage's reference
(ratio_to_previous). Full credit is set just under what the reference itself reliably reaches;
zero credit just above what the previous stage's method reaches, so resubmitting the previous
stage's kernel earns nothing."""

from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT
from ..run import ctest_results as results_mod
from ..specs import spec
from ..run.result import Result
from ..run.sandbox import run_limited
from ..run.tree import Tree, select


@dataclass
class Suggestion:
    stage: str
    runs: int
    self_ratios: list[float] = field(default_factory=list)
    previous_ratios: list[float] = field(default_factory=list)
    gflops: list[float] = field(default_factory=list)
    full_credit_ratio: float | None = None
    zero_credit_ratio: float | None = None
    current: tuple[float, float] | None = None
    note: str = ""


def floor_to(x: float, step: float = 0.05) -> float:
    return round(math.floor(x / step + 1e-9) * step, 2)


def ceil_to(x: float, step: float = 0.05) -> float:
    return round(math.ceil(x / step - 1e-9) * step, 2)


def suggest(stage: str, results: list[Result], current: tuple[float, float] | None = None) -> Suggestion:
    """Thresholds from repeated perf results of one stage's solution (pure; unit-tested)."""
    s = Suggestion(stage, len(results), current=current)
    for r in results:
        if r.verdict != "pass" or r.timing is None:
            continue
        t = r.timing
        if t.ratio_to_reference:
            s.self_ratios.append(t.ratio_to_reference)
        if t.ratio_to_previous:
            s.previous_ratios.append(t.ratio_to_previous)
        if g := t.gflops(r.impl):
            s.gflops.append(g)
    if not s.self_ratios:
        s.note = "no passing timed run: nothing to suggest"
        return s
    spread = statistics.pstdev(s.self_ratios) if len(s.self_ratios) > 1 else 0.0
    low = min(s.self_ratios) - 2 * spread
    s.full_credit_ratio = min(0.95, max(0.5, floor_to(low - 0.05)))
    if s.previous_ratios:
        prev_speed = 1 / statistics.median(s.previous_ratios)   # the previous method, as a share of this one
        s.zero_credit_ratio = min(ceil_to(prev_speed + 0.05), floor_to(s.full_credit_ratio - 0.1))
        s.note = f"previous stage's method reaches {prev_speed:.2f}x of this reference"
    else:
        s.zero_credit_ratio = floor_to(s.full_credit_ratio * 0.55)
        s.note = "no previous stage: zero credit at about half of full credit"
    s.zero_credit_ratio = max(0.0, s.zero_credit_ratio)
    return s


def toml_snippet(s: Suggestion, device: str) -> str:
    return (f"# {s.stage}: calibrated on {device or 'this GPU'} from {len(s.self_ratios)} runs\n[performance]\n"
            f"full_credit_ratio = {s.full_credit_ratio}\nzero_credit_ratio = {s.zero_credit_ratio}\n")


def write_thresholds(path: Path, full: float, zero: float) -> None:
    """Replace the two values in a stage.toml, keeping everything else (comments included)."""
    text = path.read_text()
    for key, val in (("full_credit_ratio", full), ("zero_credit_ratio", zero)):
        text, n = re.subn(rf"(?m)^(\s*{key}\s*=\s*)[0-9.]+", rf"\g<1>{val}", text, count=1)
        if n != 1:
            raise ValueError(f"{path}: no '{key} = ...' line to update")
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text)
    spec.load(tmp)
    tmp.replace(path)


def run(build: Path, stages: list[str] | None = None, repeats: int = 5, on_step=None) -> tuple[list[Suggestion], str]:
    tree = Tree(Path(build))
    all_stages = {s.id: s for s in spec.load_all(ROOT)}
    if not tree.configure(["solution"], backend="gpu").ok:
        raise RuntimeError(f"configuring {build} failed: see {tree.logs / 'configure.log'}")
    registered = tree.tests()
    out, device = [], ""
    for sid in stages or list(all_stages):
        st = all_stages[sid]
        current = (st.performance.full_credit_ratio, st.performance.zero_credit_ratio)
        runners = tree.runner_targets("solution", sid, "gpu")
        if not runners or not select(registered, "solution", sid, "perf", "gpu"):
            out.append(Suggestion(sid, 0, current=current, note="no GPU perf check registered"))
            continue
        if not tree.build_targets(["datasets", *runners], f"calibrate-{sid}").ok:
            out.append(Suggestion(sid, 0, current=current, note="build failed"))
            continue
        tests = select(tree.tests(), "solution", sid, "perf", "gpu")   # commands show once built
        cmd = list(tests[0].command)
        if "--json" not in cmd:
            out.append(Suggestion(sid, 0, current=current, note="the perf check has no command"))
            continue
        results = []
        for i in range(repeats):
            if on_step:
                on_step(f"{sid} run {i + 1}/{repeats}")
            js = tree.build / "calibrate" / f"{sid}.{i}.json"
            js.parent.mkdir(parents=True, exist_ok=True)
            c = cmd[:]
            c[c.index("--json") + 1] = str(js)
            run_limited(c, timeout=tests[0].timeout + 30)
            if (r := results_mod.load(js)) is not None:
                results.append(r)
                device = device or r.device.get("name", "")
        out.append(suggest(sid, results, current))
    return out, device
