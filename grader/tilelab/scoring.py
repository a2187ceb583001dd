"""Turn the runner's JSON results into points, as each stage.toml says. Pure functions only:
no files, no processes, so every rule here is unit-tested directly."""

from __future__ import annotations

from dataclasses import dataclass, field

from .spec import Stage


@dataclass
class CheckScore:
    name: str           # <impl>.<stage>.<dataset>.<check>
    dataset: str
    check: str
    verdict: str        # pass, wrong, error, timeout, bad_input, skipped, crash, missing
    points: float
    max_points: float
    message: str = ""
    hint: str = ""
    result: dict | None = None


@dataclass
class StageScore:
    stage: str
    checks: list[CheckScore] = field(default_factory=list)

    @property
    def points(self) -> float:
        return sum(c.points for c in self.checks)

    @property
    def max_points(self) -> float:
        return sum(c.max_points for c in self.checks)

    @property
    def passed(self) -> bool:
        return all(c.verdict == "pass" for c in self.checks if c.verdict != "skipped")


def perf_fraction(ratio: float | None, full: float, zero: float) -> float:
    """Credit for a speed ratio to the reference: 1 at >= full, 0 at <= zero, linear between."""
    if ratio is None or ratio <= zero:
        return 0.0
    if ratio >= full:
        return 1.0
    return (ratio - zero) / (full - zero)


def _check(name: str, result: dict | None, max_points: float, points_if_pass: float | None = None) -> CheckScore:
    parts = name.split(".")
    dataset, check = (parts[2], parts[3]) if len(parts) == 4 else ("?", "?")
    if result is None:
        return CheckScore(name, dataset, check, "missing", 0.0, max_points,
                          "no result: the check did not run (build failed, or it was killed)")
    verdict = result.get("verdict", "crash")
    ok = verdict == "pass"
    pts = (max_points if points_if_pass is None else points_if_pass) if ok else 0.0
    return CheckScore(name, dataset, check, verdict, pts, max_points, result.get("message", ""),
                      result.get("hint", ""), result)


def score_stage(stage: Stage, impl: str, results: dict[str, dict], hidden_count: int = 0) -> StageScore:
    """results maps CTest names (<impl>.<stage>.<dataset>.<check>) to runner JSON objects."""
    out = StageScore(stage.id)
    public = stage.correctness_datasets
    each = stage.points.public / len(public) if public else 0.0
    for d in public:
        name = f"{impl}.{stage.id}.{d.name}.correct"
        out.checks.append(_check(name, results.get(name), each))
    if stage.host_function and public:
        # matmul_host: its points when every public dataset's host result passed.
        host_ok = all((results.get(f"{impl}.{stage.id}.{d.name}.correct") or {}).get("host", {}).get("pass")
                      for d in public)
        out.checks.append(CheckScore(f"{impl}.{stage.id}.matmul_host.correct", "matmul_host", "correct",
                                     "pass" if host_ok else "wrong",
                                     stage.points.host_function if host_ok else 0.0,
                                     stage.points.host_function,
                                     "matmul_host correct on every public dataset" if host_ok
                                     else "matmul_host wrong or not run on some dataset"))
    if hidden_count and stage.hidden:
        each_h = stage.points.hidden / hidden_count
        for i in range(hidden_count):
            name = f"{impl}.{stage.id}.hidden{i}.correct"
            out.checks.append(_check(name, results.get(name), each_h))
    name = f"{impl}.{stage.id}.{stage.performance.dataset}.perf"
    r = results.get(name)
    ratio = (r or {}).get("timing", {}).get("ratio_to_reference")
    frac = perf_fraction(ratio, stage.performance.full_credit_ratio, stage.performance.zero_credit_ratio)
    out.checks.append(_check(name, r, stage.points.performance, stage.points.performance * frac))
    return out
