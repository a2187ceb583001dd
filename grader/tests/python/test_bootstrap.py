"""`tilelab setup` in the student repository: the starter's failures are the assignment (exit 0),
a stage that does not build is not (exit 1), a grader that cannot run is not either (exit 2)."""

from fakes import results_for

from tilelab import ROOT
from tilelab.commands import bootstrap
from tilelab.specs import spec
from tilelab.report.model import GradeReport
from tilelab.score.scoring import DidNotCompile, score_stage


def report(*stages, **kw):
    return GradeReport("starter", "starter", "emu", stages=stages, **kw)


def test_the_starter_failing_is_the_assignment():
    a, b = spec.load_all(ROOT)[:2]
    done = score_stage(a, "starter", results_for(a, "starter", backend="emu"), 0, "emu")
    todo = score_stage(b, "starter", results_for(b, "starter", verdict="wrong", backend="emu"), 0, "emu")
    rc, lines = bootstrap.explain(report(done, todo))
    text = "\n".join(lines)
    assert rc == 0
    assert f"Stages still to do: {b.id}" in text and "are the assignment" in text
    assert f"./tilelab grade {b.id}" in text and f"passing every check: {a.id}" in text


def test_a_stage_that_does_not_build_is_a_failure():
    a = spec.load_all(ROOT)[0]
    rc, lines = bootstrap.explain(report(score_stage(a, "starter", DidNotCompile("error: x"), 0, "emu")))
    assert rc == 1 and a.id in lines[0] and "does not build" in lines[0]


def test_a_grader_that_cannot_run_is_a_failure():
    r = report(status="error", message="configuring the build failed")
    assert bootstrap.explain(r)[0] == 2


def test_the_kit_and_the_student_repository_are_told_apart(tmp_path):
    assert bootstrap.is_student_repository(ROOT) != (ROOT / "solutions").is_dir()
    assert bootstrap.is_student_repository(tmp_path)
