"""Diagnoses (diagnoses.py): one per distinct problem, root causes first, and a failing stage's
terminal output on one screen. The known-bad suite asserts the first diagnosis of real runs
(`diagnosis = [...]` in expect.toml, checked by check.py and grade_check.py); these tests hold the
ranking rules and the suite's table of bug classes."""

import copy
import io

import pytest

import fakes
from tilelab import ROOT
from tilelab.score import diagnoses
from tilelab.report.formats import terminal
from tilelab.report.model import GradeReport
from tilelab.score.scoring import Built, Cause, DidNotCompile, Hung, score_stage
from tilelab.specs.compat import tomllib

STAGE = next(s for s in fakes.stages() if s.id == "02-tiled")
SUITE = ROOT / "grader" / "tests" / "submissions"


def _finding(ds, check, kind, line, hint_code=None, hint="", message=None):
    r = fakes.result(STAGE.id, "submission", ds, check, "error")
    msg = message or f"thread (3,0) of block (1,0): {kind} at line {line}"
    # As the runner writes it: the advice is the finding's own field (contract.toml [findings.advice]).
    r["emulator"] = {"build": check, "findings": [{"kind": kind, "file": f"/x/{STAGE.id}/matmul.cu", "line": line,
                                                   "hint_code": hint_code or kind, "message": msg, "count": 4,
                                                   "advice": hint}],
                     "hint_code": hint_code or kind, "hint": f"matmul.cu:{line}: {msg}. {hint}"}
    r["hint_code"], r["hint"] = hint_code or kind, f"matmul.cu:{line}: {msg}. {hint}"
    return r


def _wrong(results, ds, code, hint):
    r = results[f"submission.{STAGE.id}.{ds}.emu"]
    r.update(verdict="wrong", hint_code=code, hint=hint)
    r["kernel"] = copy.deepcopy(fakes.WRONG_CORRECT["kernel"])


def _stage(**findings):
    """02-tiled on the emulator: w64-int wrong with the generic symptom, plus the findings given."""
    results = fakes.results_for(STAGE, backend="emu")
    _wrong(results, "w64-int", "wrong-sum", "Every element is wrong: check the dot-product loop.")
    for name, r in findings.items():
        results[name] = r
    return score_stage(STAGE, "submission", results, backend="emu")


def test_an_emulator_race_outranks_the_generic_symptom_and_is_one_diagnosis_for_every_dataset():
    race = {f"submission.{STAGE.id}.{ds}.emu-race": _finding(ds, "emu-race", "race", 40, "missing-barrier-before-use",
                                                             "A __syncthreads() is missing between loading the tiles "
                                                             "and using them.")
            for d in STAGE.correctness_datasets[:5] for ds in [d.name]}
    ds = diagnoses.of_stage(_stage(**race))
    assert ds[0].what == "race: missing barrier before use" and ds[0].where == "matmul.cu:40"
    assert len(ds[0].datasets) == 5 and ds[0].hint.startswith("A __syncthreads() is missing")
    assert "thread (3,0) of block (1,0)" in ds[0].detail
    assert [d.what for d in ds].count("race: missing barrier before use") == 1
    assert ds[-1].what == "every element is wrong" and ds[-1].datasets == ["w64-int"]


def test_barrier_and_bounds_findings_come_before_overruns_and_races():
    ds = diagnoses.of_stage(_stage(**{
        f"submission.{STAGE.id}.w32.emu-race": _finding("w32", "emu-race", "race", 40),
        f"submission.{STAGE.id}.w96.emu": _finding("w96", "emu", "global-overrun", 0),
        f"submission.{STAGE.id}.w17.emu-asan": _finding("w17", "emu-asan", "out-of-bounds-global", 24),
        f"submission.{STAGE.id}.w33.emu-race": _finding("w33", "emu-race", "barrier-skipped", 30)}))
    assert [d.what.split(":")[0] for d in ds[:4]] == ["barrier skipped", "out of bounds global", "global overrun",
                                                      "race"]


def test_a_recognised_wrong_result_comes_before_a_generic_one_and_names_the_element():
    results = fakes.results_for(STAGE, backend="emu")
    _wrong(results, "w64-int", "wrong-sum", "Every element is wrong.")
    _wrong(results, "w32", "boundary", "Only the last row or column of tiles is wrong.")
    r = results[f"submission.{STAGE.id}.w32.emu"]
    r["kernel"]["wrong"] = 17
    ds = diagnoses.of_stage(score_stage(STAGE, "submission", results, backend="emu"))
    assert ds[0].what.endswith("(boundary)") and ds[0].where == "P[0][0]" and "17 of 289" in ds[0].detail
    assert ds[1].what == "every element is wrong" and ds[1].where == "", "all wrong: no element singled out"


def test_a_stage_that_did_not_compile_is_one_diagnosis_naming_the_line():
    err = "the build failed:\n/b/submission-src/02-tiled/matmul.cu:22:5: error: expected ';' before '}' token"
    s = score_stage(STAGE, "submission", DidNotCompile(err), 0, "emu")
    ds = diagnoses.of_stage(s)
    assert len(ds) == 1 and ds[0].what == "it does not compile" and ds[0].where == "matmul.cu:22"
    assert "expected ';'" in ds[0].detail and "compiler" in ds[0].hint


def test_a_hang_is_the_first_diagnosis_with_the_timeout_hint():
    name = f"submission.{STAGE.id}.w32.emu"
    hung = fakes.result(STAGE.id, "submission", "w32", "emu", "timeout")
    hung["hint"] = "A kernel or loop that never ends: check loop bounds and every __syncthreads()."
    # The kernel hung on w32 and no other check was started: the engine (run/engine.py) hands the hang to scoring.
    s = score_stage(STAGE, "submission", Built({name: hung}, cut_short=Hung("w32")), backend="emu")
    assert s.error == "the kernel hung on w32: timed out"
    assert {(c.verdict, c.message) for c in s.checks if c.name != name} == \
        {("timeout", "not run: the kernel hung on w32 (timed out)")}
    ds = diagnoses.of_stage(s)
    assert ds[0].rank == 0 and "hung" in ds[0].what and "never ends" in ds[0].hint and ds[0].datasets == ["w32"]


def test_a_failing_stage_fits_on_one_screen():
    """Every dataset wrong in a different way, with findings on every build: still 40 lines."""
    results = fakes.results_for(STAGE, backend="emu")
    long = "A long hint. " * 40
    for i, d in enumerate(STAGE.correctness_datasets):
        _wrong(results, d.name, f"code-{i}", long)
        results[f"submission.{STAGE.id}.{d.name}.emu-race"] = _finding(d.name, "emu-race", "race", 40 + i, hint=long)
        results[f"submission.{STAGE.id}.{d.name}.emu-asan"] = _finding(d.name, "emu-asan", "out-of-bounds-shared",
                                                                      30 + i, hint=long, message="x " * 200)
    s = score_stage(STAGE, "submission", results, backend="emu")
    assert len(diagnoses.of_stage(s)) > terminal.SHOWN
    out = io.StringIO()
    terminal.print_report(GradeReport("bob", "submission", "emu", stages=[s]), file=out)
    lines = out.getvalue().splitlines()
    assert len(lines) <= 40, "\n".join(lines)
    assert lines[0].startswith(f"{STAGE.id} -- ") and "failed" in lines[0]
    assert "more (./tilelab grade --table" in out.getvalue()
    full = io.StringIO()
    terminal.print_report(GradeReport("bob", "submission", "emu", stages=[s]), file=full, table=True)
    assert all(d.name in full.getvalue() for d in STAGE.correctness_datasets), "--table shows every check"


def test_every_format_renders_the_same_first_diagnosis():
    from tilelab.report.formats import classroom, gradescope, html, prairielearn

    s = _stage(**{f"submission.{STAGE.id}.w32.emu-race": _finding("w32", "emu-race", "race", 40,
                                                                   "missing-barrier-before-use", "Add a barrier.")})
    r = GradeReport("bob", "submission", "emu", stages=[s])
    head = diagnoses.first(s).headline()
    assert head in gradescope.results(r)["output"] and head in prairielearn.results(r)["output"]
    assert any(head in t["message"] for t in classroom.results(r)["tests"])
    page = html.render(r)
    assert "race: missing barrier before use" in page and "matmul.cu:40" in page


# The known-bad suite's table: each bug class, a submission of it, and the words its first
# diagnosis must contain there (asserted on real runs by check.py and grade_check.py).
BUG_CLASSES = {
    "missing barrier": "missing-barrier-1",
    "race": "02-missing-barrier",
    "race between blocks": "02-writes-neighbour",
    "missing bounds check": "missing-bounds-check",
    "overrun": "03-unguarded-store",
    "swapped indices": "swapped-row-col",
    "compile error": "compile-error",
    "hang": "hang",
    "cheat (a forbidden library call)": "cublas-call",
    "swapped operands (P = N M)": "02-swapped-operands",
    "NaN read from outside M and N": "04-nan-from-guard-zone",
    "a removed CUDA call": "01-thread-synchronize",
    "the grader's own bad input (a grading error)": "04-grader-bad-input",
}


@pytest.mark.skipif(not SUITE.is_dir(), reason="the known-bad suite is instructor material (not in a student repository)")
@pytest.mark.parametrize("bug, name", BUG_CLASSES.items())
def test_each_bug_class_states_its_first_diagnosis_in_the_suite(bug, name):
    doc = tomllib.loads((SUITE / name / "expect.toml").read_text())
    cases = [c for key in ("emu", "emu-asan", "emu-race", "grade")
             for c in (doc.get(key) if isinstance(doc.get(key), list) else [doc.get(key)]) if c]
    assert any(c.get("diagnosis") for c in cases), f"{name}/expect.toml states no first diagnosis for {bug}"


# ---- #26: messages that pointed the wrong way ----

def test_the_removed_cudaThreadSynchronize_points_to_cudaDeviceSynchronize_not_the_compilers_guess():
    err = ("the build failed:\n02-tiled/matmul.cu:50:5: error: 'cudaThreadSynchronize' was not declared in this "
           "scope; did you mean 'cudaStreamSynchronize'?")
    ds = diagnoses.of_stage(score_stage(STAGE, "submission", DidNotCompile(err), 0, "emu"))
    assert "cudaDeviceSynchronize()" in ds[0].hint and ds[0].where == "matmul.cu:50"


def test_a_grading_error_comes_first_and_is_not_worded_as_the_students_failure():
    results = fakes.results_for(STAGE, backend="emu")
    ds0 = STAGE.correctness_datasets[0].name
    results[f"submission.{STAGE.id}.{ds0}.emu"] = {"verdict": "bad_input",
                                                   "exit_code": 4,
                                                   "message": "the grader's command line for this check is bad"}
    ds = diagnoses.of_stage(score_stage(STAGE, "submission", results, backend="emu"))
    assert ds[0].what.startswith("grading error") and "instructor" in ds[0].hint
    assert "crash" not in ds[0].text()


def test_performance_kept_back_by_a_wrong_dataset_is_not_called_slow():
    ds = diagnoses.of_stage(_gated_stage())   # 04-rectangular: one dataset wrong, the model's row passed
    assert ds and not any("slower" in d.what for d in ds)


def test_the_findings_order_and_advice_have_one_owner():
    """issue #29 item 2: the order and the advice are contract.toml's [findings]; the runner writes the
    advice as a field (emu_backend.cpp reads the generated header), and nothing splits hint prose."""
    from tilelab.specs import contract
    assert diagnoses.FINDING_ORDER is contract.FINDING_ORDER and "race" in contract.FINDING_ORDER
    assert contract.FINDING_ADVICE["out-of-bounds-global"] == contract.HINTS["global-overrun"]   # same_as
    assert contract.FINDING_ADVICE["uninitialized-shared.warning"] != contract.FINDING_ADVICE["uninitialized-shared"]
    assert not hasattr(contract, "finding_advice")   # the lookup is the generated C++ one alone (test_result.cpp)
    f = _finding("w32", "emu-race", "race", 40, "missing-barrier-before-use", "do this")
    ds = diagnoses.of_stage(_stage(**{f"submission.{STAGE.id}.w32.emu-race": f}))
    assert ds[0].hint == "do this"
    src = (ROOT / "grader" / "runner" / "emu_backend.cpp").read_text()
    assert "finding_advice(" in src and "__syncthreads() is missing" not in src   # the texts live in the contract only
    assert ".find(\"misaligned\")" not in src   # the finding's variant picks its advice, not its message's words


# ---- #43 item 2: causes are data. Scoring sets a check's cause where it decides it; diagnoses reads
# the cause, so rewording scoring's sentences (or the compiler's) changes no diagnosis. ----

def _reworded(s, which):
    """The stage with the messages of the checks `which` picks replaced by other words."""
    from dataclasses import replace
    return replace(s, checks=[replace(c, message=f"(reworded) {c.verdict}") if which(c) else c for c in s.checks])


def _shown(ds):
    return [(d.what, d.hint, d.rank, sorted(d.names)) for d in ds]


def _hung_stage():
    name = f"submission.{STAGE.id}.w32.emu"
    hung = fakes.result(STAGE.id, "submission", "w32", "emu", "timeout")
    hung["hint"] = "A kernel or loop that never ends: check loop bounds and every __syncthreads()."
    return score_stage(STAGE, "submission", Built({name: hung}, cut_short=Hung("w32")), backend="emu")


def _gated_stage():
    """04-rectangular with one dataset wrong and the model's performance row passed."""
    rect = next(s for s in fakes.stages() if s.id == "04-rectangular")
    results = {f"submission.{rect.id}.{d.name}.emu": {"verdict": "pass"} for d in rect.correctness_datasets}
    results[f"submission.{rect.id}.{rect.correctness_datasets[2].name}.emu"] = {"verdict": "wrong"}
    results[f"submission.{rect.id}.{rect.performance.model.check_name}.perf-model"] = {
        "verdict": "pass", "timing": {"basis": "model", "ratio_to_reference": 1.0}}
    return score_stage(rect, "submission", results, backend="emu")


def test_the_checks_a_hang_kept_from_running_are_found_by_their_cause_not_their_sentence():
    s = _hung_stage()
    not_run = [c for c in s.checks if c.cause is Cause.HUNG]
    assert not_run and all(c.message.startswith("not run: the kernel hung") for c in not_run)
    assert _shown(diagnoses.of_stage(_reworded(s, lambda c: c.cause is Cause.HUNG))) == _shown(diagnoses.of_stage(s))
    assert len(diagnoses.of_stage(s)) == 1


def test_performance_kept_back_is_found_by_its_cause_not_its_sentence():
    s = _gated_stage()
    perf = s.check("perf-model")
    assert perf.cause is Cause.PERF_GATED and perf.points == 0
    assert _shown(diagnoses.of_stage(_reworded(s, lambda c: c.cause is not None))) == _shown(diagnoses.of_stage(s))
    assert not any("pass" in d.what for d in diagnoses.of_stage(_reworded(s, lambda c: c.cause is not None)))


def test_a_removed_cuda_call_is_read_from_the_compilers_text_once_where_the_build_failed():
    err = ("the build failed:\n02-tiled/matmul.cu:50:5: error: 'cudaThreadSynchronize' was not declared in this "
           "scope; did you mean 'cudaStreamSynchronize'?")
    assert DidNotCompile(err).removed_cuda_call and not DidNotCompile("error: x").removed_cuda_call
    s = score_stage(STAGE, "submission", DidNotCompile(err), 0, "emu")
    assert {c.cause for c in s.checks} == {Cause.REMOVED_CUDA_CALL}
    # The stage's error in other words (no cudaThread* in it): the cause still picks the hint.
    from dataclasses import replace
    other = replace(s, error="the build failed:\n02-tiled/matmul.cu:50:5: error: a call the compiler does not know")
    assert "cudaDeviceSynchronize()" in diagnoses.of_stage(other)[0].hint


def test_a_checks_cause_goes_through_grade_json_and_only_where_it_is_set():
    import json
    report = GradeReport("s", "submission", "emu", stages=[_gated_stage(), _hung_stage()])
    doc = json.loads(json.dumps(report.to_dict()))
    checks = [c for st in doc["stages"] for c in st["checks"]]
    assert {c.get("cause") for c in checks} == {None, "perf-gated", "hung"}
    assert all("cause" not in c for c in checks if c["verdict"] != "timeout" and c["check"] != "perf-model")
    back = GradeReport.from_dict(doc)
    assert [[c.cause for c in st.checks] for st in back.stages] == [[c.cause for c in st.checks] for st in report.stages]
    assert [_shown(diagnoses.of_stage(st)) for st in back.stages] == [_shown(diagnoses.of_stage(st)) for st in report.stages]


def test_a_wrong_results_title_and_rank_are_its_codes_in_the_contract():
    from tilelab.specs.contract import HINT_CODES
    results = fakes.results_for(STAGE, backend="emu")
    ds0, ds1 = (d.name for d in STAGE.correctness_datasets[:2])
    _wrong(results, ds0, "wrong-sum", "a symptom's hint")
    _wrong(results, ds1, "transposed", "a cause's hint")
    ds = diagnoses.of_stage(score_stage(STAGE, "submission", results, backend="emu"))
    assert [(d.what, d.rank) for d in ds[:2]] == [(HINT_CODES["transposed"].title, 2), (HINT_CODES["wrong-sum"].title, 3)]
