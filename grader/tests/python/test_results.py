"""Reading what CTest left: the runner's JSON files first, CTest's JUnit report for the gaps."""

import json
import shutil

import fakes
from tilelab.run import ctest_results as results

JUNIT = fakes.DATA / "junit.xml"


def test_junit_statuses_are_read():
    cases = results.read_junit(JUNIT)
    assert {n: c.status for n, c in cases.items()} == {
        "submission.01-basic.w1.correct": "notrun", "submission.01-basic.w15.correct": "run",
        "submission.01-basic.w16.correct": "fail", "submission.01-basic.w17.correct": "fail"}
    assert cases["submission.01-basic.w16.correct"].message == "Timeout"
    assert cases["submission.01-basic.w16.correct"].seconds > 90


def test_missing_or_broken_junit_is_none(tmp_path):
    assert results.read_junit(tmp_path / "none.xml") is None
    (tmp_path / "bad.xml").write_text("<testsuite")
    assert results.read_junit(tmp_path / "bad.xml") is None
    (tmp_path / "folder.xml").mkdir()   # the attack of issue #39: a folder where CTest writes its report
    assert results.read_junit(tmp_path / "folder.xml") is None
    (tmp_path / "other.xml").write_text("<html/>")
    assert results.read_junit(tmp_path / "other.xml") is None


def test_results_no_report_vouches_for_count_for_nothing(tmp_path):
    """Fails closed (#39): with the JUnit report missing or turned into a folder, a `pass` file
    earns nothing; a file for a check the report does not list is dropped too."""
    for ds in ("w15", "w99"):
        r = fakes.result("01-basic", "submission", ds, "correct")
        (tmp_path / f"submission.01-basic.{ds}.correct.json").write_text(json.dumps(r))
    (tmp_path / "junit.xml").mkdir()
    assert results.collect(tmp_path, tmp_path / "junit.xml", "submission.01-basic.") == {}
    assert results.collect(tmp_path, tmp_path / "none.xml", "submission.01-basic.") == {}
    got = results.collect(tmp_path, JUNIT, "submission.01-basic.")
    assert got["submission.01-basic.w15.correct"].verdict == "pass"
    assert "submission.01-basic.w99.correct" not in got   # not a check of this run


def test_json_results_win_and_junit_fills_the_gaps(tmp_path):
    r = fakes.result("01-basic", "submission", "w15", "correct")
    (tmp_path / "submission.01-basic.w15.correct.json").write_text(json.dumps(r))
    (tmp_path / "submission.01-basic.w2-int.correct.json").write_text("{half a fi")   # killed mid-write
    (tmp_path / "other.01-basic.w15.correct.json").write_text(json.dumps(r))
    got = results.collect(tmp_path, JUNIT, "submission.01-basic.")
    assert got["submission.01-basic.w15.correct"].verdict == "pass"
    assert got["submission.01-basic.w16.correct"].verdict == "timeout"
    assert got["submission.01-basic.w17.correct"].verdict == results.GRADING_ERROR   # no result: the grader's
    assert got["submission.01-basic.w1.correct"].verdict == "skipped"

    assert "submission.01-basic.w2-int.correct" not in got and "other.01-basic.w15.correct" not in got


def test_clear_removes_only_the_prefix(tmp_path):
    for n in ("submission.01-basic.a.correct", "submission.02-tiled.a.correct"):
        (tmp_path / f"{n}.json").write_text("{}")
    results.clear(tmp_path, "submission.01-basic.")
    assert [p.name for p in tmp_path.iterdir()] == ["submission.02-tiled.a.correct.json"]


def test_every_fixture_is_a_result_of_the_documented_schema():
    for f in (fakes.DATA / "results").glob("*.json"):
        r = json.loads(f.read_text())
        assert r["schema"] == results.SCHEMA
        for key in ("stage", "impl", "backend", "dataset", "check", "verdict", "exit_code", "message"):
            assert key in r, f"{f.name}: {key}"
    assert shutil.which("true")  # sanity: a POSIX userland for the other tests


def test_a_check_ctest_could_not_start_is_missing_not_skipped():
    case = results.JunitCase("x.s.d.correct", "notrun", 0.0, "Unable to find executable")
    assert results.synthesize(case).verdict == "missing"
    assert results.synthesize(results.JunitCase("x", "notrun", 0.0, "SKIP_RETURN_CODE=77")).verdict == "skipped"


def test_a_pass_the_exit_status_does_not_back_is_forged(tmp_path):
    """Code under test may write the results folder: a `pass` file for a check CTest saw fail (w17)
    or not run (w1) was written by something other than that check's runner."""
    for ds in ("w15", "w17", "w1"):
        r = fakes.result("01-basic", "submission", ds, "correct")
        (tmp_path / f"submission.01-basic.{ds}.correct.json").write_text(json.dumps(r))
    got = results.collect(tmp_path, JUNIT, "submission.01-basic.")
    assert got["submission.01-basic.w15.correct"].verdict == "pass"     # CTest saw it pass
    for ds in ("w17", "w1"):
        assert got[f"submission.01-basic.{ds}.correct"].verdict == "error"
        assert got[f"submission.01-basic.{ds}.correct"].hint_code == "forged-result"


def test_a_check_that_ended_without_a_result_is_a_grading_error_never_the_students_crash():
    """The judge writes a result for whatever the code under test does (its worker is another
    process) and for its own bad input; a check with none at all died on the grader's side (#26)."""
    r = results.synthesize(results.JunitCase("x.s.d.correct", "fail", 1.0, "Failed"))
    assert r.verdict == results.GRADING_ERROR and r.hint_code == "grading-error"
    assert "not a verdict on the submission" in r.message and "crash" not in r.message
