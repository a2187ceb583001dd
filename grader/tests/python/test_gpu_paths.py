"""The GPU-only branches of the commands, run here without a GPU (issue #40, item 5).

`tilelab bench` crashed on every GPU run (`'Result' object has no attribute 'get'`): its loop read
the typed runner result (run/result.py) as the dict it had once been, and no test ever reached
that line, because only a GPU takes it. Here each command's result handling is fed a Result parsed
from what the judge writes for a GPU perf check (data/results/*.perf.json and data/bench/*.json:
real H200 results with `timing.impls`, `timing.ratio_to_cublas`, `gflops`, `device`), through the
command's own run() and the CLI's printing, with only the CMake tree and the judge's process faked.
A command that handles a Result as a dict fails here, in CI, with no GPU."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import fakes
from tilelab import cli
from tilelab.commands import bench, calibrate
from tilelab.run import sanitize
from tilelab.report.formats import common, terminal
from tilelab.run.result import Result
from tilelab.run.sandbox import Ran
from tilelab.run.tree import RegisteredTest
from tilelab.score import metrics
from tilelab.score.scoring import score_stage
from tilelab.specs import spec

GPU_PERF = fakes.fixture("solution.01-basic.w4096.perf")
BENCH = json.loads((fakes.DATA / "bench" / "01-basic.1024x1024x1024.json").read_text())


def gpu_perf_doc(stage: str, ratio_prev: float | None = 3.0) -> dict:
    """A GPU perf check's result as judge.cpp writes it, relabelled for `stage`."""
    d = copy.deepcopy(GPU_PERF) | {"stage": stage}
    if ratio_prev is not None:
        d["timing"]["ratio_to_previous"] = ratio_prev
    return d


class FakeTree:
    """tree.Tree with nothing built: every stage has a GPU runner and a registered perf check
    whose command writes its JSON (the judge's part is run_limited, faked per test)."""

    def __init__(self, build: Path, *_, **__):
        self.build = Path(build)

    @property
    def logs(self) -> Path:
        return self.build / "logs"

    def configure(self, impls, backend="auto", **_):
        assert backend == "gpu" and impls == ["solution"]
        return Ran(0, 0.0)

    def runner_targets(self, impl, stage, backend):
        return [f"run-{impl}-{stage}-{backend}"]

    def build_targets(self, targets, log_name, timeout=1800):
        return Ran(0, 0.0)

    def tests(self):
        return [RegisteredTest(f"solution.{s.id}.{s.performance.dataset}.perf",
                               ("solution", s.id, "perf", "gpu", "public"),
                               ("tilelab-judge", "--worker", f"run-solution-{s.id}-gpu", "--check", "perf",
                                "--json", str(self.build / "results" / f"{s.id}.perf.json")), 60.0)
                for s in spec.load_all()]


def judge_writing(doc_for):
    """run_limited as the judge would run: it writes doc_for(stage) to the command's --json."""
    calls = []

    def run_limited(cmd, **_):
        out = Path(cmd[cmd.index("--json") + 1])
        stage = next(a for a in cmd if a.startswith("run-solution-") or "/run-solution-" in a)
        stage = stage.rsplit("run-solution-", 1)[1].removesuffix("-gpu")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc_for(stage)))
        calls.append(cmd)
        return Ran(0, 0.1)
    return run_limited, calls


@pytest.fixture
def gpu_here(monkeypatch):
    """The commands' GPU probe says yes; the tree and the judge's process are faked."""
    monkeypatch.setattr(sanitize, "gpu_present", lambda: True)
    for mod in (bench, calibrate):
        monkeypatch.setattr(mod, "Tree", FakeTree)


def test_bench_run_reads_the_gpu_result_as_a_result(tmp_path, monkeypatch, gpu_here):
    fake, calls = judge_writing(lambda s: copy.deepcopy(BENCH) | {"stage": s})
    monkeypatch.setattr(bench, "run_limited", fake)
    rows, device = bench.run(tmp_path, ["01-basic", "02-tiled"], sizes=(256, 1024))
    assert len(calls) == 4 and [r.verdict for r in rows] == ["pass"] * 4
    assert device["name"] == "NVIDIA H200" and device["fp32_peak_gflops"] > 0
    r = rows[0]
    assert r.m.gflops > 0 and r.m.cublas_gflops > r.m.gflops and 0 < r.m.pct_of_cublas < 100


def test_bench_run_survives_a_missing_result(tmp_path, monkeypatch, gpu_here):
    """A judge that wrote nothing (killed, crashed) is a `missing` row, and the device comes from
    the next size that has a result."""
    def fake(cmd, **_):
        out = Path(cmd[cmd.index("--json") + 1])
        if ".256." not in out.name:
            out.write_text(json.dumps(BENCH))
        return Ran(1, 0.1)
    monkeypatch.setattr(bench, "run_limited", fake)
    (tmp_path / "bench").mkdir()
    rows, device = bench.run(tmp_path, ["01-basic"], sizes=(256, 1024))
    assert [r.verdict for r in rows] == ["missing", "pass"] and device["name"] == "NVIDIA H200"


def test_cli_bench_prints_the_device_table_and_writes_bench_json(tmp_path, monkeypatch, capsys, gpu_here):
    fake, _ = judge_writing(lambda s: copy.deepcopy(BENCH) | {"stage": s})
    monkeypatch.setattr(bench, "run_limited", fake)
    rc = cli.main(["bench", "--stage", "01-basic", "--sizes", "512", "--build-dir", str(tmp_path / "t"),
                   "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "device: NVIDIA H200, FP32 peak 66908 GFLOP/s" in out and "01-basic" in out
    doc = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert doc["device"]["name"] == "NVIDIA H200" and doc["rows"][0]["pct_of_cublas"] > 0


def test_calibrate_run_reads_ratios_from_gpu_results(tmp_path, monkeypatch, gpu_here):
    fake, calls = judge_writing(gpu_perf_doc)
    monkeypatch.setattr(calibrate, "run_limited", fake)
    sugg, device = calibrate.run(tmp_path, ["02-tiled"], repeats=3)
    assert len(calls) == 3 and device == "NVIDIA H200"
    s = sugg[0]
    assert len(s.self_ratios) == 3 and s.previous_ratios == [3.0, 3.0, 3.0] and s.gflops
    assert 0 <= s.zero_credit_ratio < s.full_credit_ratio <= 0.95


def test_cli_calibrate_prints_suggestions(tmp_path, monkeypatch, capsys, gpu_here):
    fake, _ = judge_writing(gpu_perf_doc)
    monkeypatch.setattr(calibrate, "run_limited", fake)
    rc = cli.main(["calibrate", "--stage", "02-tiled", "--repeats", "2", "--build-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "02-tiled" in out and "[performance]" in out and "calibrated on NVIDIA H200" in out


def gpu_stage_results(st: spec.Stage) -> dict[str, Result]:
    """A stage's results as a GPU grade reads them (results.read_json_results: parsed Results),
    timed halfway between the stage's zero- and full-credit ratios: partial performance points."""
    p = st.performance
    ratio = (p.full_credit_ratio + p.zero_credit_ratio) / 2
    return {k: Result.parse(v) for k, v in fakes.results_for(st, backend="gpu", ratio=ratio).items()}


@pytest.mark.parametrize("stage", [s.id for s in spec.load_all()])
def test_grade_scores_and_shows_gpu_results(stage, capsys):
    """grade/batch/check's path after the checks ran on a GPU: scoring (the timed check's ratio,
    to the reference or cuBLAS), the metrics every output shows, the terminal table and the
    summary line, all from parsed Results."""
    st = {s.id: s for s in spec.load_all()}[stage]
    scored = score_stage(st, "submission", gpu_stage_results(st), 0, "gpu")
    perf = scored.check("perf")
    assert perf is not None and perf.verdict == "pass" and 0 < perf.points < perf.max_points
    m = metrics.of(perf)
    assert m.gflops and m.cublas_gflops and m.pct_of_cublas and m.registers is not None
    from tilelab.report.model import GradeReport, device_of
    report = GradeReport("alice", "submission", "gpu", stages=[scored], device=device_of([scored]))
    assert "NVIDIA H200" in common.summary_line(report)
    terminal.print_report(report, table=True)
    assert "perf" in capsys.readouterr().out


def test_results_are_not_dicts():
    """The contract the crash broke: a parsed result has attributes, not dict methods; code that
    needs the JSON reads `raw`."""
    r = Result.parse(GPU_PERF)
    assert not hasattr(r, "get") and not hasattr(r, "__getitem__")
    assert r.device["name"] == "NVIDIA H200" and r.timing.ratio_to_cublas == GPU_PERF["timing"]["ratio_to_cublas"]


def _gpu_suite():
    """The known-bad suite's GPU runner (grader/tests/submissions/gpu_suite.py): the instructor's kit
    only; the student repository has no known-bad suite."""
    import importlib
    import sys
    folder = Path(__file__).resolve().parents[1] / "submissions"
    if not (folder / "gpu_suite.py").exists():
        pytest.skip("needs the instructor's kit (the known-bad suite)")
    sys.path.insert(0, str(folder))
    return importlib.import_module("gpu_suite")


def test_gpu_suite_names_the_credit_band_of_a_timed_07_check():
    """gpu_suite.py's `credit` (a perf case's band under the stage's thresholds) on 07, whose
    reference is the PTX kernel (issue #45.3): a plain wmma kernel's 0.40 is partial, the cp.async
    step's 0.49 full, 06's 0.27 none; no ratio, no band."""
    gpu_suite = _gpu_suite()
    from tilelab import ROOT
    st = spec.load(ROOT / "assignments" / "07-tensor-cores" / "stage.toml")

    def band(ratio):
        return gpu_suite.credit_band({"timing": {"ratio_to_reference": ratio}}, st)
    assert band(0.40) == "partial (0.40)"
    assert band(0.49) == "full (0.49)"
    assert band(0.27) == "none (0.27)"
    assert gpu_suite.credit_band({"verdict": "pass"}, st) == ""


def test_gpu_suite_keeps_a_sealed_emulator_case_sealed_on_the_gpu():
    """A case with [emu] checks only is run on the GPU with their datasets; a seed there (a sealed
    grade's values drawn for the grade) must go with it, or the GPU runs the check unsealed and the
    case passes (attack-public-table-host-fallback on the H200, 2026-11-29; seen failing before)."""
    gpu_suite = _gpu_suite()
    from tilelab import ROOT
    st = spec.load(ROOT / "assignments" / "07-tensor-cores" / "stage.toml")
    doc = {"emu": [{"dataset": "1x1x1", "seed": 424242, "verdict": "wrong"}, {"dataset": "w32", "verdict": "pass"}]}
    derived, from_emu = gpu_suite.cases_of(doc, st)
    assert from_emu and [c.get("seed") for c in derived] == [424242, None]
