"""Runner results without a GPU: real H200 results (data/) re-labelled for any stage, dataset and
verdict, and whole GradeReports made from them."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

from tilelab import ROOT
from tilelab.specs import spec
from tilelab.report.model import GradeReport, device_of
from tilelab.score.scoring import score_stage

DATA = Path(__file__).parent / "data"


def fixture(name: str) -> dict:
    return json.loads((DATA / "results" / f"{name}.json").read_text())


PASS_CORRECT = fixture("solution.01-basic.w17.correct")
WRONG_CORRECT = fixture("starter.01-basic.w17.correct")
PASS_PERF = fixture("solution.01-basic.w4096.perf")


def result(stage: str, impl: str, dataset: str, check: str, verdict: str = "pass", ratio: float = 1.0) -> dict:
    base = PASS_PERF if check == "perf" else (PASS_CORRECT if verdict == "pass" else WRONG_CORRECT)
    r = copy.deepcopy(base)
    r.update(stage=stage, impl=impl, dataset=dataset, check=check, verdict=verdict)
    if verdict not in ("pass", "wrong"):
        r["message"] = f"{verdict} on {dataset}"
        r["hint"] = "" if verdict == "skipped" else r.get("hint", "")
    if check == "perf":
        t = r["timing"]
        t["impls"][impl] = t["impls"].pop("solution") | {"name": impl}
        ref = t["impls"]["reference"]["median_ms"]
        t["impls"][impl]["median_ms"] = ref / ratio
        t["impls"][impl]["gflops"] = t["impls"]["reference"]["gflops"] * ratio
        t["ratio_to_reference"] = ratio
        # The fake reference runs at cuBLAS's speed, so `ratio` holds for either performance basis.
        t["impls"]["cublas"] |= {"median_ms": ref, "gflops": t["impls"]["reference"]["gflops"]}
        t["ratio_to_cublas"] = ratio
    return r


def results_for(stage: spec.Stage, impl: str = "submission", verdict: str = "pass", ratio: float = 1.0,
                hidden: int = 0, backend: str = "gpu", wrong: set[str] = frozenset()) -> dict[str, dict]:
    kind = "correct" if backend == "gpu" else "emu"
    out = {}
    for d in stage.correctness_datasets:
        v = "wrong" if d.name in wrong else verdict
        out[f"{impl}.{stage.id}.{d.name}.{kind}"] = result(stage.id, impl, d.name, kind, v)
    for i in range(hidden):
        out[f"{impl}.{stage.id}.hidden{i}.{kind}"] = result(stage.id, impl, f"hidden{i}", kind, verdict)
    if backend == "gpu":
        p = stage.performance.dataset
        out[f"{impl}.{stage.id}.{p}.perf"] = result(stage.id, impl, p, "perf", verdict, ratio)
    elif stage.performance.model:  # the emulator's perf-model check: modelled times, same shape of result
        p = stage.performance.model.check_name
        r = result(stage.id, impl, p, "perf", verdict, ratio)
        r["check"], r["timing"]["basis"] = "perf-model", "model"
        out[f"{impl}.{stage.id}.{p}.perf-model"] = r
    return out


def stages() -> list[spec.Stage]:
    return spec.load_all(ROOT)


def report(name: str = "alice", verdict: str = "pass", ratio: float = 1.0, hidden: bool = True,
           backend: str = "gpu", status: str = "graded") -> GradeReport:
    scored = []
    for st in stages():
        nh = st.hidden.count if hidden and st.hidden else 0
        scored.append(score_stage(st, "submission", results_for(st, verdict=verdict, ratio=ratio, hidden=nh,
                                                                  backend=backend), nh, backend))
    return GradeReport(name, "submission", backend, stages=scored, hidden=hidden, status=status,
                       device=device_of(scored), seconds=12.5)


def boundary_failure(stage: spec.Stage, backend: str = "gpu") -> dict[str, dict]:
    """A stage's results as a kernel without the boundary checks leaves them: w17's last row and
    column of P wrong (with the runner's wrong_map), and a race the race checker names on it."""
    kind = "correct" if backend == "gpu" else "emu"
    res = results_for(stage, backend=backend, ratio=0.8, wrong={"w17"})
    r = res[f"submission.{stage.id}.w17.{kind}"]
    k = r["kernel"]
    k.update(wrong=33, not_finite=0, wrong_rows=[[0, 16]], wrong_cols=[[0, 16]], wrong_tile_count=3,
             wrong_map={"cell_rows": 1, "cell_cols": 1, "rows": ["0" * 16 + "1"] * 16 + ["1" * 17]})
    k["first_wrong"] = [{"row": 0, "col": 16, "expected": 3.25, "actual": 2.5, "allowed": 2e-5}]
    r["hint_code"] = "boundary"
    r["hint"] = ("Only the last row or column of tiles is wrong: an edge load or the store is not bounds-checked, "
                 "or the out-of-range tile elements are not set to 0.")
    race = copy.deepcopy(r) | {"check": "racecheck" if backend == "gpu" else "emu-race", "verdict": "error"}
    msg = "thread (0,15) of block (1,0) reads Nds[15][0] at line 46 that no thread of its block wrote"
    race["emulator" if backend != "gpu" else "sanitizer"] = {
        "tool": "racecheck", "findings": [{"kind": "uninitialized-shared", "file": f"/k/{stage.id}/matmul.cu",
                                           "line": 46, "message": msg, "hint_code": "uninitialized-shared"}],
        "hint_code": "uninitialized-shared",
        "hint": f"matmul.cu:46: {msg}. A thread reads a tile element that no thread of its block stored: does every "
                "thread load its element (0 when it lies outside the matrix)?"}
    race["hint_code"] = "uninitialized-shared"
    res[f"submission.{stage.id}.w17.{race['check']}"] = race
    return res


def failing_report(name: str = "bob") -> GradeReport:
    """A GPU report: every stage passes but 03-boundary, which fails as boundary_failure says."""
    r = report(name, ratio=0.8, hidden=False)
    return replace(r, stages=[score_stage(st, "submission", boundary_failure(st), 0, "gpu") if st.id == "03-boundary"
                              else s for st, s in zip(stages(), r.stages)])
