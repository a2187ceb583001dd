"""Points follow stage.toml: shares of public/hidden points, host function, performance ramp."""

from __future__ import annotations

import dataclasses

import pytest

from tilelab import ROOT
from tilelab.specs import spec
from tilelab.score.scoring import (CORRECT_CHECK, Built, DidNotCompile, Hung, NotChecked, Refused, StageScore, Stopped,
                             perf_fraction, score_stage)

STAGE = spec.load(ROOT / "assignments" / "01-basic" / "stage.toml")


@pytest.mark.parametrize("ratio, frac", [(None, 0), (0.3, 0), (0.5, 0), (0.7, 0.5), (0.9, 1), (1.4, 1)])
def test_perf_fraction_is_linear_between_the_thresholds(ratio, frac):
    assert perf_fraction(ratio, 0.9, 0.5) == pytest.approx(frac)


def _results(verdict="pass", ratio=1.0, host=True):
    r = {}
    for d in STAGE.correctness_datasets:
        r[f"solution.01-basic.{d.name}.correct"] = {"verdict": verdict, "host": {"pass": host}}
    r[f"solution.01-basic.{STAGE.performance.dataset}.perf"] = {
        "verdict": verdict, "timing": {"ratio_to_reference": ratio}}
    return r


def test_everything_right_earns_every_point():
    s = score_stage(STAGE, "solution", _results())
    assert s.points == pytest.approx(STAGE.points.public + STAGE.points.host_function + STAGE.points.performance)
    assert s.passed


def test_wrong_results_earn_nothing_not_even_performance():
    s = score_stage(STAGE, "solution", _results("wrong", ratio=2.0, host=False))
    assert s.points == 0
    assert not s.passed


def test_missing_results_count_as_failures():
    s = score_stage(STAGE, "solution", {})
    assert s.points == 0
    assert {c.verdict for c in s.checks} == {"missing", "wrong"}


def test_slow_but_correct_loses_only_performance_points():
    s = score_stage(STAGE, "solution", _results(ratio=0.7))
    assert s.points == pytest.approx(STAGE.points.public + STAGE.points.host_function + STAGE.points.performance / 2)


def test_hidden_points_are_shared_by_the_hidden_datasets():
    r = _results()
    r["solution.01-basic.hidden0.correct"] = {"verdict": "pass"}
    s = score_stage(STAGE, "solution", r, hidden_count=STAGE.hidden.count)
    hidden = [c for c in s.checks if c.dataset.startswith("hidden")]
    assert len(hidden) == STAGE.hidden.count
    assert sum(c.points for c in hidden) == pytest.approx(STAGE.points.hidden / STAGE.hidden.count)


def test_a_cublas_basis_grades_the_fraction_of_cublas():
    stage = spec.load(ROOT / "assignments" / "06-register-tiled" / "stage.toml")
    assert stage.performance.basis == "cublas"
    name = f"solution.{stage.id}.{stage.performance.dataset}.perf"
    full, zero = stage.performance.full_credit_ratio, stage.performance.zero_credit_ratio
    mid = (full + zero) / 2
    r = {name: {"verdict": "pass", "timing": {"ratio_to_reference": 1.0, "ratio_to_cublas": mid}}}
    # (right on every dataset: performance is credited only then)
    r |= {f"solution.{stage.id}.{d.name}.correct": {"verdict": "pass"} for d in stage.correctness_datasets}
    s = score_stage(stage, "solution", r)
    perf = [c for c in s.checks if c.check == "perf"][0]
    assert perf.points == pytest.approx(stage.points.performance / 2)


def test_datasets_the_backend_does_not_check_share_out_their_points():
    public = STAGE.correctness_datasets
    small = [d for d in public if max(d.J, d.K, d.L) <= 129]
    registered = {f"solution.01-basic.{d.name}.emu" for d in small}
    r = {name: {"verdict": "pass", "host": {"pass": True}} for name in registered}
    s = score_stage(STAGE, "solution", Built(r, frozenset(registered)), backend="emu")
    skipped = [c for c in s.checks if c.verdict == "skipped" and c.check == "emu"]
    assert {c.dataset for c in skipped} == {d.name for d in public} - {d.name for d in small}
    assert all(c.max_points == 0 for c in skipped)
    public_pts = sum(c.points for c in s.checks if c.check == "emu" and c.verdict == "pass"
                     and c.dataset != "matmul_host")
    assert public_pts == pytest.approx(STAGE.points.public)


def test_the_host_check_shows_the_transfer_costs_of_the_largest_dataset():
    r = _results()
    big = max(STAGE.correctness_datasets, key=lambda d: d.J * d.K * d.L)
    r[f"solution.01-basic.{big.name}.correct"]["host"]["timing"] = {
        "alloc_ms": 0.5, "copy_in_ms": 3.0, "kernel_ms": 4.0, "copy_out_ms": 1.5, "free_ms": 0.1, "matmul_host_ms": 9.2}
    host = next(c for c in score_stage(STAGE, "solution", r).checks if c.dataset == "matmul_host")
    assert f"on {big.name}: matmul_host 9.20 ms" in host.message
    assert "copies in 3.00 ms, kernel 4.00 ms, copy out 1.50 ms (the copies: 50% of it)" in host.message
    plain = next(c for c in score_stage(STAGE, "solution", _results()).checks if c.dataset == "matmul_host")
    assert "matmul_host" in plain.message and "copies in" not in plain.message


# ---- #26 item 6: performance is credited only to a kernel correct and safe on every dataset ----

RECT = spec.load(ROOT / "assignments" / "04-rectangular" / "stage.toml")


def _rect_results(wrong: str | None = None, finding: str | None = None) -> dict:
    """04-rectangular on the emulator: every public dataset's emu check, the perf-model check at
    full modelled speed; `wrong` names a dataset whose check failed, `finding` one whose ASan
    build found an out-of-bounds read."""
    r = {}
    for d in RECT.correctness_datasets:
        r[f"sub.04-rectangular.{d.name}.emu"] = {"verdict": "wrong" if d.name == wrong else "pass"}
    m = RECT.performance.model
    r[f"sub.04-rectangular.{m.check_name}.perf-model"] = {
        "verdict": "pass", "timing": {"basis": "model", "ratio_to_reference": 1.0}}
    if finding:
        r[f"sub.04-rectangular.{finding}.emu-asan"] = {
            "verdict": "error", "emulator": {"findings": [{"kind": "out-of-bounds-global", "line": 30,
                                                            "file": "matmul.cu", "message": "read past M"}]}}
    return r


def _perf_row(s):
    return s.check("perf-model")


def test_a_kernel_wrong_on_one_dataset_earns_no_performance_points():
    bad = RECT.correctness_datasets[3].name
    s = score_stage(RECT, "sub", _rect_results(wrong=bad), backend="emu")
    p = _perf_row(s)
    assert p.verdict == "pass" and p.points == 0 and p.max_points == RECT.points.performance
    assert "correct and safe on every dataset" in p.message and bad in p.message


def test_a_kernel_unsafe_on_one_dataset_earns_no_performance_points():
    ds = RECT.correctness_datasets[0].name
    s = score_stage(RECT, "sub", _rect_results(finding=ds), backend="emu")
    assert _perf_row(s).points == 0 and f"unsafe on {ds}" in _perf_row(s).message


def test_a_wrong_hidden_dataset_withholds_performance_points_too():
    r = _rect_results()
    r["sub.04-rectangular.hidden1.emu"] = {"verdict": "wrong"}
    r["sub.04-rectangular.hidden0.emu"] = {"verdict": "pass"}
    s = score_stage(RECT, "sub", r, hidden_count=2, backend="emu")
    assert _perf_row(s).points == 0 and "hidden1 (hidden)" in _perf_row(s).message


def test_a_kernel_right_everywhere_keeps_its_performance_points():
    s = score_stage(RECT, "sub", _rect_results(), backend="emu")
    assert _perf_row(s).points == RECT.points.performance


def test_requires_all_correct_false_credits_the_timed_check_alone():
    import dataclasses

    lax = dataclasses.replace(RECT, performance=dataclasses.replace(RECT.performance, requires_all_correct=False))
    s = score_stage(lax, "sub", _rect_results(wrong=RECT.correctness_datasets[3].name), backend="emu")
    assert _perf_row(s).points == RECT.points.performance


def test_the_gpu_timed_check_is_gated_the_same_way():
    r = _results()
    r["solution.01-basic.w17.correct"]["verdict"] = "wrong"
    s = score_stage(STAGE, "solution", r)
    assert s.check("perf").points == 0 and "w17" in s.check("perf").message


# ---- #26: the grader's own failure is a grading error, never the student's crash ----

def test_the_judges_bad_input_is_a_grading_error_not_a_verdict_on_the_code():
    r = _results()
    r["solution.01-basic.w17.correct"] = {"verdict": "bad_input", "exit_code": 4,
                                           "message": "the grader's command line for this check is bad: --seed"}
    s = score_stage(STAGE, "solution", r)
    c = next(c for c in s.checks if c.dataset == "w17")
    assert c.verdict == "grading_error" and c.points == 0
    assert "not a verdict on the submission" in c.message and "instructor" in c.hint
    assert s.check("perf").points == STAGE.points.performance   # the grader's failure costs nothing more


def test_a_grade_with_a_grading_error_exits_as_the_grader_could_not_run():
    """`grade --impl solution --hidden --seed ...` must not exit 1 ("something failed") for the
    grader's own failure: it exits 2, as when the grader could not run at all."""
    from tilelab.specs.contract import ExitCode
    from tilelab.grading.implementation import exit_status
    from tilelab.report.model import GradeReport

    r = _results()
    assert exit_status(GradeReport("s", "solution", "gpu", stages=[score_stage(STAGE, "solution", r)])) == 0
    r["solution.01-basic.w17.correct"] = {"verdict": "bad_input", "exit_code": 4, "message": "bad --seed"}
    report = GradeReport("s", "solution", "gpu", stages=[score_stage(STAGE, "solution", r)])
    assert exit_status(report) == ExitCode.ERROR


def test_scoring_alone_gives_the_checks_that_never_ran_their_verdict():
    """issue #29 item 1: a hang or a stopped run is handed to scoring (Built's cut_short), which
    gives every check without a result its verdict and the stage its error; the engine (run/engine.py) sets none itself."""
    import fakes
    results = {k: v for k, v in fakes.results_for(STAGE, backend="gpu").items() if ".w1." in k or ".w2-int." in k}
    s = score_stage(STAGE, "submission", Built(results, cut_short=Hung("w15", "9 s")), 0, "gpu")
    by = {c.dataset: c for c in s.checks}
    assert by["w1"].verdict == "pass" and by["w2-int"].verdict == "pass"
    assert by["w17"].verdict == "timeout" and by["w17"].message == "not run: the kernel hung on w15 (9 s)"
    assert s.error == "the kernel hung on w15: 9 s" and not any(c.verdict == "missing" for c in s.checks)
    plain = score_stage(STAGE, "submission", results, 0, "gpu")
    assert {c.dataset: c for c in plain.checks}["w17"].verdict == "missing" and not plain.error


# What each stage outcome gave before issue #29 item 1, when fail_stage stamped the verdict grade.py
# chose on every check, and grade.py chose the verdict of the checks a hang or a limit kept from running.
NOT_RUN = [(NotChecked("no gpu checks are registered"), "missing"),
           (Refused("the code uses what this assignment forbids: cublasSgemm_v2"), "forbidden"),
           (DidNotCompile("the build failed:\n01-basic/matmul.cu:22:5: error: expected ';'"), "compile")]


@pytest.mark.parametrize("backend", ["gpu", "emu"])
@pytest.mark.parametrize("outcome, verdict", NOT_RUN, ids=lambda x: type(x).__name__ if not isinstance(x, str) else x)
def test_a_stage_none_of_whose_checks_ran_gives_each_check_its_outcomes_verdict(outcome, verdict, backend):
    import fakes
    s = score_stage(STAGE, "submission", outcome, 2, backend)
    whole = score_stage(STAGE, "submission", fakes.results_for(STAGE, backend=backend, hidden=2), 2, backend)
    assert [c.name for c in s.checks] == [c.name for c in whole.checks], "every check the stage would have had"
    assert {(c.verdict, c.message, c.points) for c in s.checks} == {(verdict, outcome.why, 0.0)}
    assert s.error == outcome.why and s.title == STAGE.title and not s.passed
    assert s.max_points == pytest.approx(whole.max_points) == 100
    assert [c.hidden for c in s.checks] == [False] * 12 + [True, True, False] and s.points == 0
    free = dataclasses.replace(STAGE, points=dataclasses.replace(STAGE.points, performance=0.0))
    kinds = [c.check for c in score_stage(free, "submission", outcome, 0, backend).checks]
    assert kinds == [CORRECT_CHECK[backend]] * 12, "a check worth nothing that never ran is not listed"


def test_a_run_cut_short_gives_the_checks_it_kept_from_running_its_verdict():
    import fakes
    full = fakes.results_for(STAGE, backend="gpu")
    ran = {k: v for k, v in full.items() if ".w1." in k or ".w2-int." in k}
    ran[f"submission.{STAGE.id}.w15.correct"] = fakes.result(STAGE.id, "submission", "w15", "correct", "timeout")
    for cut, verdict, error, message in [
            (Hung("w15", "timed out after 9 s"), "timeout", "the kernel hung on w15: timed out after 9 s",
             "not run: the kernel hung on w15 (timed out after 9 s)"),
            (Hung("w15"), "timeout", "the kernel hung on w15: timed out",
             "not run: the kernel hung on w15 (timed out)"),
            (Stopped("time", 312.4), "timeout", "the checks were stopped after 312 s",
             "the checks were stopped after 312 s"),
            (Stopped("memory"), "crash", "the checks were stopped: memory limit",
             "the checks were stopped: memory limit")]:
        s = score_stage(STAGE, "submission", Built(ran, cut_short=cut), 0, "gpu")
        by = {c.dataset: c for c in s.checks}
        assert s.error == error
        assert (by["w1"].verdict, by["w2-int"].verdict, by["w15"].verdict) == ("pass", "pass", "timeout")
        assert by["w15"].message == "timeout on w15", "a check that ran keeps its own result"
        not_run = [c for c in s.checks if c.dataset not in ("w1", "w2-int", "w15", "matmul_host")]
        assert len(not_run) == 9 and {(c.verdict, c.message, c.points) for c in not_run} == {(verdict, message, 0)}
        # matmul_host is scored from the datasets' host results, which some lack: wrong, as before
        assert by["matmul_host"].verdict == "wrong" and by["matmul_host"].points == 0
        assert s.points == pytest.approx(2 * STAGE.points.public / len(STAGE.correctness_datasets))
    built = score_stage(STAGE, "submission", Built(full), 0, "gpu")
    assert built == score_stage(STAGE, "submission", full, 0, "gpu"), "a mapping of results is short for Built"
    assert built.passed and not built.error and built.points == pytest.approx(STAGE.points.public
                                                                             + STAGE.points.host_function
                                                                             + STAGE.points.performance)


def test_scores_and_reports_are_read_only():
    """issue #29 item 1: nothing after scoring rewrites a verdict; a changed copy is a new value."""
    import fakes
    from tilelab.report.model import GradeReport
    r = fakes.report(verdict="wrong", hidden=False)
    s, c = r.stages[0], r.stages[0].checks[0]
    for obj, field, value in [(c, "verdict", "pass"), (c, "points", 1.0), (c, "message", ""), (c, "result", None),
                              (s, "error", "x"), (s, "checks", ()), (r, "status", "graded"), (r, "stages", ()),
                              (r, "submission", "eve"), (Hung("w1"), "dataset", "w2"), (Built({}), "cut_short", None)]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, value)
    with pytest.raises(AttributeError):
        s.checks.append(c)
    with pytest.raises(AttributeError):
        r.stages.append(s)
    handed = [c]
    kept = StageScore("01-basic", handed)
    handed.append(c)
    assert len(kept.checks) == 1 and len(GradeReport("x", "submission", "gpu", stages=[kept]).stages) == 1
    copy = dataclasses.replace(c, verdict="pass")
    assert c.verdict == "wrong" and copy.verdict == "pass", "replace makes a new value"


# ---- an emulator timeout that is the emulator's pace (issue #40, item 6) ----
def _too_slow(phases=256, needed=2, backend="emu", hint_code="too-slow"):
    """04-rectangular on the emulator, 4093x17x1021-primes timed out as 04-max-phases-slow does."""
    r = _rect_results()
    r["sub.04-rectangular.4093x17x1021-primes.emu"] = {
        "verdict": "timeout", "backend": backend, "hint_code": hint_code, "hint": "The emulator runs every thread.",
        "message": "the run did not finish within 4 s: the kernel was not hung but too slow for the emulator",
        "shape": {"J": 4093, "K": 17, "L": 1021},
        "progress": {"hung": False, "blocks_done": 10, "blocks_total": 16384,
                     "phases_per_block": phases, "phases_needed": needed, "seconds": 4.0}}
    s = score_stage(RECT, "sub", r, backend="emu")
    return next(c for c in s.checks if c.dataset == "4093x17x1021-primes")


def test_an_emulator_too_slow_whose_work_a_gpu_runs_in_time_says_it_would_pass_there():
    c = _too_slow()
    assert c.verdict == "timeout" and c.points == 0          # the verdict stays the emulator's
    assert "on a GPU this check would pass" in c.message
    assert "9.1e+09 multiply-adds" in c.hint and "The emulator runs every thread." in c.hint


@pytest.mark.parametrize("kw", [dict(backend="gpu"), dict(hint_code="timeout"), dict(needed=0), dict(phases=0),
                                dict(phases=2_000_000)])   # not the emulator's pace, unknown work, or too much
def test_no_gpu_claim_without_the_emulators_pace_and_a_known_work_a_gpu_runs_in_time(kw):
    c = _too_slow(**kw)
    assert "would pass" not in c.message and "would pass" not in c.hint
