"""Issue #12, items 3 and 6, in every output format.

Skipped is not failed: a check the backend cannot run (performance on the CPU emulator, a dataset
too large for it) shows as skipped in the table, HTML, Gradescope, PrairieLearn and GitHub
Classroom, and stage.toml's [points] unearnable decides whether its points leave the maximum
("exclude", the default: a correct submission scores full marks) or stay ("keep").

Unsafe code loses points: a memory-safety finding (ASan, race build, compute-sanitizer, guard
zones) withholds the correctness points of the dataset where it was found, or [points]
safety_penalty of them, and every format says why."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

import fakes
from tilelab.report.formats import classroom as classroom_format, gradescope as gradescope_format, \
    html as html_report, prairielearn as prairielearn_format
from tilelab.score import diagnoses
from tilelab.report.formats import common, terminal
from tilelab.report import view
from tilelab.report.model import GradeReport
from tilelab.score.scoring import Built, score_stage

STAGE = next(s for s in fakes.stages() if s.id == "01-basic")
# what score_stage gives one grade without the seed (the questions are scored apart, by quiz.py)
NO_HIDDEN = STAGE.points.total - STAGE.points.hidden - STAGE.points.questions


def _with_points(**kw):
    return dataclasses.replace(STAGE, points=dataclasses.replace(STAGE.points, **kw))


def _emu_run(stage=STAGE, too_large: int = 2, asan: dict | None = None):
    """A correct submission graded on the emulator, whose last `too_large` public datasets have no
    check (too large), plus emu-asan results {dataset: result}. Graded with --perf-basis gpu, so the
    performance points are ones the emulator cannot earn (the model's check: test_perf_model.py)."""
    results = fakes.results_for(stage, backend="emu")
    small = stage.correctness_datasets[:-too_large] if too_large else stage.correctness_datasets
    registered = {f"submission.{stage.id}.{d.name}.emu" for d in small}
    results = {k: v for k, v in results.items() if k in registered}
    for ds, r in (asan or {}).items():
        name = f"submission.{stage.id}.{ds}.emu-asan"
        results[name], registered = r, registered | {name}
    return score_stage(stage, "submission", Built(results, frozenset(registered)), backend="emu", basis="gpu")


def _report(*stages) -> GradeReport:
    return GradeReport("alice", "submission", "emu", stages=list(stages), seconds=3)


def _asan_finding(ds="w17"):
    r = fakes.result(STAGE.id, "submission", ds, "emu-asan", "error")
    r["emulator"] = {"build": "asan", "findings": [{"kind": "out-of-bounds-global", "file": "/x/01-basic/matmul.cu",
                                                    "line": 24, "message": "read past the end of N"}]}
    r["hint_code"] = "out-of-bounds-global"
    r["hint"] = "An index past the end of N."
    return r


def test_a_correct_submission_on_the_emulator_fails_nothing_and_scores_full_marks():
    s = _emu_run()
    assert [c.check for c in s.checks if c.skipped] == ["emu", "emu", "perf"]
    assert s.points == pytest.approx(s.max_points) and s.max_points == pytest.approx(
        STAGE.points.public + STAGE.points.host_function)
    r = _report(s)

    gs = json.loads(json.dumps(gradescope_format.results(r)))
    assert gs["score"] == pytest.approx(s.max_points)
    assert not [t for t in gs["tests"] if t.get("status") == "failed"]
    skipped = [t for t in gs["tests"] if "skipped" in t["tags"]]
    assert len(skipped) == 3
    for t in skipped:     # no status: Gradescope infers it from 0 / 0; the output says why
        assert "status" not in t and t["max_score"] == 0 and "(skipped here)" in t["name"]
        assert t["output"].startswith("skipped: not ")

    pl = prairielearn_format.results(r)
    assert pl["gradable"] and pl["score"] == 1.0
    assert all("(skipped here)" in t["name"] for t in pl["tests"] if t["max_points"] == 0 and t["points"] == 0
               and "not run" in t["description"])

    gc = classroom_format.results(r)
    assert gc["status"] == "pass" and {t["status"] for t in gc["tests"]} == {"pass"}
    assert sum(t["score"] for t in gc["tests"]) == pytest.approx(gc["max_score"], abs=0.01)
    assert not [t for t in gc["tests"] if "skipped" in t["name"]]

    rows = terminal.rows(s, view.of(GradeReport("x", "submission", "emu", stages=[s])))
    assert [row[-1] for row, c in zip(rows, s.checks) if c.skipped] == ["-", "-", "-"]
    assert {common.style(c) for c in s.checks} == {"pass", "skipped"}
    assert "not run on this backend" in common.summary_line(r)

    html = html_report.render(r)
    assert 'class="v v-skipped"' in html and 'class="v v-fail"' not in html


def test_keep_counts_the_unearnable_points_in_the_maximum_and_still_says_skipped():
    stage = _with_points(unearnable="keep")
    s = _emu_run(stage)
    each = STAGE.points.public / len(STAGE.correctness_datasets)
    assert s.max_points == pytest.approx(NO_HIDDEN)
    assert s.points == pytest.approx(NO_HIDDEN - STAGE.points.performance - 2 * each)
    perf = s.check("perf")
    assert perf.skipped and perf.max_points == STAGE.points.performance and "stay in the maximum" in perf.message
    r = _report(s)
    gs = gradescope_format.results(r)
    t = next(t for t in gs["tests"] if t["tags"] == [STAGE.id, "perf", "skipped"])
    assert t["max_score"] == STAGE.points.performance and "status" not in t
    assert prairielearn_format.results(r)["score"] < 1
    gc = classroom_format.results(r)
    kept = [t for t in gc["tests"] if "(skipped here)" in t["name"]]
    assert len(kept) == 3 and all(t["status"] == "fail" and t["message"].startswith("skipped:") for t in kept)
    assert f"{STAGE.points.performance + 2 * each:g} points in the maximum" in common.summary_line(r)


def test_a_safety_finding_withholds_the_datasets_correctness_points():
    s = _emu_run(asan={"w17": _asan_finding()})
    each = STAGE.points.public / len(STAGE.correctness_datasets[:-2])
    w17 = next(c for c in s.checks if c.dataset == "w17" and c.check == "emu")
    assert w17.passed and w17.points == 0 and w17.withheld == pytest.approx(each)
    assert "withheld" in w17.message and "out-of-bounds-global at matmul.cu:24" in w17.message
    asan = s.check("emu-asan")
    assert f"costs {each:g} points of w17's correctness check" in asan.message
    assert s.points == pytest.approx(s.max_points - each) and not s.passed
    r = _report(s)
    gs = gradescope_format.results(r)
    t = next(t for t in gs["tests"] if t["name"] == common.test_name(STAGE.id, w17))
    assert t["status"] == "failed" and t["score"] == 0 and "withheld" in t["output"]
    gc = classroom_format.results(r)
    t = next(t for t in gc["tests"] if t["test_code"] == w17.name)
    assert t["status"] == "fail" and "withheld" in t["message"]
    assert terminal.rows(s, view.of(GradeReport("x", "submission", "emu", stages=[s])))[s.checks.index(w17)][2] == "pass (unsafe)"
    assert any(d.withheld for d in diagnoses.of_stage(s))
    assert "pass (unsafe)" in html_report.render(r)


@pytest.mark.parametrize("penalty, lost", [(2.0, 2.0), (0.0, 0.0), (1000.0, None)])
def test_safety_penalty_sets_the_cost_per_dataset(penalty, lost):
    stage = _with_points(safety_penalty=penalty)
    s = _emu_run(stage, asan={"w17": _asan_finding()})
    each = STAGE.points.public / len(STAGE.correctness_datasets[:-2])
    w17 = next(c for c in s.checks if c.dataset == "w17" and c.check == "emu")
    assert w17.points == pytest.approx(each - (each if lost is None else lost))


def test_only_findings_cost_points_not_a_wrong_result_or_a_crash_of_the_safety_build():
    crashed = fakes.result(STAGE.id, "submission", "w17", "emu-asan", "crash")
    s = _emu_run(asan={"w17": crashed})
    assert all(c.withheld == 0 for c in s.checks)
    assert s.check("emu-asan").verdict == "crash" and not s.passed


def test_a_gpu_sanitizer_finding_costs_the_gpu_correctness_points():
    results = fakes.results_for(STAGE)
    r = copy.deepcopy(results[f"submission.{STAGE.id}.w33.correct"])
    r.update(check="racecheck", verdict="error",
             sanitizer={"tool": "racecheck", "findings": [{"kind": "race", "file": "matmul.cu", "line": 31}]})
    results[f"submission.{STAGE.id}.w33.racecheck"] = r
    s = score_stage(STAGE, "submission", results)
    w33 = next(c for c in s.checks if c.dataset == "w33" and c.check == "correct")
    assert w33.points == 0 and "racecheck: race at matmul.cu:31" in w33.message
    # and the performance points: they go only to a kernel safe on every dataset (#26)
    assert s.points == pytest.approx(NO_HIDDEN - w33.withheld - STAGE.points.performance) and w33.withheld > 0
    assert s.check("perf").points == 0 and "w33" in s.check("perf").message


def test_withheld_points_survive_the_grade_json_round_trip():
    r = _report(_emu_run(asan={"w17": _asan_finding()}))
    back = GradeReport.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back.points == pytest.approx(r.points)
    assert [c.withheld for c in back.stages[0].checks] == [c.withheld for c in r.stages[0].checks]


def _race(ds):
    r = fakes.result(STAGE.id, "submission", ds, "emu-race", "error")
    r["emulator"] = {"build": "race", "findings": [{"kind": "race", "file": "/x/01-basic/matmul.cu", "line": 31,
                                                     "message": "Nds[k][tx] read while written"}]}
    r["hint_code"], r["hint"] = "missing-barrier-before-overwrite", "Add __syncthreads() after the tiles are used."
    return r


def test_a_root_cause_comes_first_and_once_for_every_dataset_that_found_it():
    results = fakes.results_for(STAGE, backend="emu", wrong={"w64-int"})
    for ds in ("w17", "w33"):
        results[f"submission.{STAGE.id}.{ds}.emu-race"] = _race(ds)
    s = score_stage(STAGE, "submission", results, backend="emu")
    ds = diagnoses.of_stage(s)
    each = STAGE.points.public / len(STAGE.correctness_datasets)
    assert (ds[0].what, ds[0].where, ds[0].datasets) == ("race", "matmul.cu:31", ["w17", "w33"])
    assert ds[0].withheld == pytest.approx(2 * each) and ds[0].hint == "Add __syncthreads() after the tiles are used."
    assert sum("race" in d.what for d in ds) == 1
    symptom = next(i for i, d in enumerate(ds) if "w64-int" in d.datasets)
    assert symptom > 0
    out = gradescope_format.results(_report(s))["output"].splitlines()
    assert out[2].startswith("  1. race at matmul.cu:31 -- on w17, w33 (emu-race")
    assert any("w64-int" in line for line in out[3:])


def test_a_kernel_reaching_host_memory_withholds_every_correctness_point_of_the_stage():
    """Issue #39, family 3 (known-bad redteam2-host-ptr-int): the race build's kernel-accessed-host
    on one dataset withholds the correctness points of every dataset and of matmul_host, whatever
    safety_penalty says: the checks that cannot see it (the plain build, larger datasets) would pay
    a product the host computed."""
    r = fakes.result(STAGE.id, "submission", "w17", "emu-race", "error")
    r["emulator"] = {"build": "emu-race", "findings": [{"kind": "kernel-accessed-host", "file": "/x/01-basic/matmul.cu",
                                                        "line": 34, "message": "the kernel Out wrote host memory"}]}
    r["hint_code"] = "kernel-accessed-host"
    for stage in (STAGE, _with_points(safety_penalty=1.0)):
        results = fakes.results_for(stage, backend="emu")
        name = f"submission.{stage.id}.w17.emu-race"
        results[name] = r
        s = score_stage(stage, "submission", Built(results, frozenset(results)), backend="emu", basis="gpu")
        rows = [c for c in s.checks if c.check == "emu"]
        assert rows and all(c.points == 0 for c in rows)
        assert any(c.dataset == "matmul_host" and c.withheld > 0 for c in rows)
        assert all("kernel-accessed-host at matmul.cu:34" in c.message for c in rows if c.withheld)
