"""calibrate's threshold rule and bench's table/JSON/plot, from runner JSON (no GPU)."""

import copy
import json
import shutil

import pytest

import fakes
from tilelab import ROOT
from tilelab.commands import bench, calibrate
from tilelab.run import ctest_results as results
from tilelab.specs import spec
from tilelab.specs.contract import SCHEMAS
from tilelab.run.result import Result


def perf(ratio_ref, ratio_prev=None):
    r = copy.deepcopy(fakes.PASS_PERF)
    r["timing"]["ratio_to_reference"] = ratio_ref
    if ratio_prev:
        r["timing"]["ratio_to_previous"] = ratio_prev
    return Result.parse(r)


def test_full_credit_sits_under_the_references_own_noise():
    s = calibrate.suggest("02-tiled", [perf(x, 3.0) for x in (0.98, 1.0, 1.02, 0.99, 1.01)])
    assert s.full_credit_ratio == pytest.approx(0.9)
    assert s.zero_credit_ratio == pytest.approx(0.4), "just above the previous stage's 0.33x"
    assert 0 <= s.zero_credit_ratio < s.full_credit_ratio <= 0.95


def test_noisy_timings_lower_full_credit_and_keep_the_order():
    s = calibrate.suggest("x", [perf(x, 1.1) for x in (0.7, 1.0, 1.3)])
    assert 0.5 <= s.full_credit_ratio < 0.9
    assert s.zero_credit_ratio < s.full_credit_ratio


def test_without_a_previous_stage_zero_is_about_half():
    s = calibrate.suggest("01-basic", [perf(1.0)] * 3)
    assert s.full_credit_ratio == pytest.approx(0.95) and s.zero_credit_ratio == pytest.approx(0.5)


def test_failed_runs_suggest_nothing():
    bad = Result.parse(copy.deepcopy(fakes.PASS_PERF) | {"verdict": "wrong"})
    assert calibrate.suggest("x", [bad]).full_credit_ratio is None


def test_thresholds_are_written_in_place(tmp_path):
    src = ROOT / "assignments" / "01-basic" / "stage.toml"
    p = tmp_path / "stage.toml"
    shutil.copy(src, p)
    calibrate.write_thresholds(p, 0.85, 0.4)
    st = spec.load(p)
    assert (st.performance.full_credit_ratio, st.performance.zero_credit_ratio) == (0.85, 0.4)
    assert p.read_text().count("#") == src.read_text().count("#"), "comments kept"
    with pytest.raises(ValueError):
        calibrate.write_thresholds(p, 0.2, 0.4)   # zero >= full: the spec refuses it, file untouched
    assert spec.load(p).performance.full_credit_ratio == 0.85


def test_bench_rows_table_json_and_plot(tmp_path):
    rows = [bench.row_from("01-basic", int(f.stem.split(".")[1].split("x")[0]), results.load(f))
            for f in sorted((fakes.DATA / "bench").glob("*.json"))]
    assert all(r.verdict == "pass" and r.m.gflops > 0 and r.m.cublas_gflops > r.m.gflops for r in rows)
    rows.append(bench.row_from("01-basic", 8192, None, "timed out"))
    lines = bench.table_lines(rows)
    assert "GFLOP/s" in lines[0] and len(lines) == len(rows) + 1 and "missing" in lines[-1]
    written = bench.save(rows, fakes.PASS_PERF["device"], tmp_path)
    doc = json.loads((tmp_path / "bench.json").read_text())
    assert doc["format"] == SCHEMAS["bench"] and doc["device"]["name"] == "NVIDIA H200"
    assert len(doc["rows"]) == len(rows) and (tmp_path / "bench.png").read_bytes()[:4] == b"\x89PNG"
    assert len(written) == 2


def test_bench_and_benchtable_print_one_speed_table():
    """issue #43 item 6: `tilelab bench` and `python3 -m tilelab.report.benchtable` print the same
    table -- one header, the same figures of the same results -- differing only in the size column."""
    from tilelab.report import benchtable

    files = sorted((fakes.DATA / "bench").glob("*.json"))
    mine = bench.table_lines([bench.row_from("01-basic", int(f.stem.split(".")[1].split("x")[0]), results.load(f))
                              for f in files])
    theirs = benchtable.bench_rows(fakes.DATA / "bench")
    assert mine[0] == theirs[0] and len(mine) == len(theirs) == len(files) + 1
    figures = lambda line: line[34:]   # noqa: E731  (after the stage and size columns)
    assert [figures(x) for x in mine[1:]] == [figures(x) for x in theirs[1:]]
