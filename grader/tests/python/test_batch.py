"""Batch grading with a fake grader (no builds): one row per student whatever happens to their
submission, per-student outputs, and resuming without regrading finished students."""

import csv
import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import fakes
from tilelab.commands import batch
from tilelab.grading import classbatch
from tilelab.run import sandbox
from tilelab.report.model import GradeReport
from tilelab import ROOT
from tilelab.score import quiz
from tilelab.score.scoring import NotChecked, score_stage
from tilelab.specs import spec

STAGE = "01-basic"


def make_subs(root, contents: dict[str, str]):
    for name, text in contents.items():
        d = root / name / STAGE
        d.mkdir(parents=True)
        (d / "matmul.cu").write_text(text)
    return root


class FakeGrader:
    """Reads the student's file and behaves as it says: good, wrong, raise, hang."""

    def __init__(self):
        self.calls = []
        self.lock = threading.Lock()

    def __call__(self, go):
        with self.lock:
            self.calls.append(go.name)
        text = (go.submission / STAGE / "matmul.cu").read_text()
        if text == "raise":
            raise RuntimeError("the grader tripped")
        if text == "hang":
            ran = sandbox.run_limited(["sleep", "30"], timeout=go.build_timeout)
            r = GradeReport(go.name, "submission", go.backend, status="timeout" if ran.timed_out else "graded",
                            message="the build timed out")
            return r
        if text == "interrupt":
            raise KeyboardInterrupt
        return fakes.report(go.name, verdict="pass" if text == "good" else "wrong", hidden=False)


def opts(tmp_path, **kw):
    base = dict(out=tmp_path / "out", jobs=2, backend="gpu", stages=[STAGE], build_timeout=0.5,
                formats=("gradescope", "grade"))
    return classbatch.BatchOptions(**(base | kw))


def rows(out):
    return {r["student"]: r for r in csv.DictReader(open(out / classbatch.GRADEBOOK))}


def test_every_student_gets_a_row_whatever_their_code_does(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good", "bob": "wrong", "carol": "raise", "dave": "hang"})
    (tmp_path / "subs" / "erin.zip").write_bytes(b"not a zip")
    g = FakeGrader()
    s = batch.run_batch(subs, opts(tmp_path), grader=g)
    assert sorted(g.calls) == ["alice", "bob", "carol", "dave", "erin"]
    book = rows(tmp_path / "out")
    assert set(book) == {"alice", "bob", "carol", "dave", "erin"}
    assert book["alice"]["status"] == "graded" and float(book["alice"]["total"]) > 0
    assert float(book["bob"]["total"]) == 0
    assert book["carol"]["status"] == "error" and "tripped" in book["carol"]["note"]
    assert book["dave"]["status"] == "timeout"
    assert s.problems == ["carol", "dave", "erin"] and book["erin"]["status"] == "error"


def test_each_student_gets_their_files(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    batch.run_batch(subs, opts(tmp_path, formats=("gradescope", "grade", "html")), grader=FakeGrader())
    d = classbatch.student_dir(tmp_path / "out", "alice")
    gs = json.loads((d / "results.json").read_text())
    assert gs["score"] > 0 and gs["tests"]
    assert GradeReport.from_dict(json.loads((d / "grade.json").read_text())).submission == "alice"
    assert "<html" in (d / "report.html").read_text()
    assert "alice" in (tmp_path / "out" / "index.html").read_text()
    done = json.loads((d / classbatch.DONE).read_text())
    assert done["status"] == "graded" and done["digest"]


def test_a_second_run_regrades_only_what_changed(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good", "bob": "wrong", "carol": "good"})
    batch.run_batch(subs, opts(tmp_path), grader=FakeGrader())
    g = FakeGrader()
    s = batch.run_batch(subs, opts(tmp_path), grader=g)
    assert g.calls == [] and sorted(s.reused) == ["alice", "bob", "carol"]
    assert set(rows(tmp_path / "out")) == {"alice", "bob", "carol"}
    (subs / "bob" / STAGE / "matmul.cu").write_text("good")
    g = FakeGrader()
    batch.run_batch(subs, opts(tmp_path), grader=g)
    assert g.calls == ["bob"]
    assert float(rows(tmp_path / "out")["bob"]["total"]) > 0
    g = FakeGrader()
    batch.run_batch(subs, opts(tmp_path, hidden=True, seed="7"), grader=g)
    assert sorted(g.calls) == ["alice", "bob", "carol"], "other settings: everyone is regraded"


def test_an_interrupted_batch_resumes_where_it_stopped(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good", "bob": "interrupt"})
    s = batch.run_batch(subs, opts(tmp_path, jobs=1), grader=FakeGrader())
    assert s.interrupted and "alice" in s.reports and "bob" not in s.reports
    assert not (classbatch.student_dir(tmp_path / "out", "bob") / classbatch.DONE).exists()
    (subs / "bob" / STAGE / "matmul.cu").write_text("good")
    g = FakeGrader()
    s = batch.run_batch(subs, opts(tmp_path, jobs=1), grader=g)
    assert g.calls == ["bob"] and s.reused == ["alice"] and not s.interrupted
    assert not sandbox.STOP.is_set()


def test_a_half_written_student_folder_is_regraded(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    batch.run_batch(subs, opts(tmp_path), grader=FakeGrader())
    (classbatch.student_dir(tmp_path / "out", "alice") / "grade.json").write_text("{trunc")
    g = FakeGrader()
    batch.run_batch(subs, opts(tmp_path), grader=g)
    assert g.calls == ["alice"]


@pytest.mark.parametrize("name, safe", [("alice", "alice"), ("a b/c", "a_b_c"), ("..", "_.."), ("", "_"), (".git", "_.git")])
def test_student_folders_have_safe_names(tmp_path, name, safe):
    assert classbatch.student_dir(tmp_path, name).name == safe


def test_a_build_tree_left_by_an_interrupted_run_is_not_graded_in(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    o = opts(tmp_path)
    left = o.out / ".build" / "alice" / "CMakeFiles" / "obj" / "matmul.cu.o"
    left.parent.mkdir(parents=True)
    left.write_text("the previous run's object")
    seen = []

    def grader(go):
        seen.append(any(go.build_dir.rglob("*.o")) if go.build_dir.exists() else False)
        return fakes.report(go.name, verdict="pass", hidden=False)

    batch.run_batch(subs, o, grader=grader)
    assert seen == [False]


def test_an_interrupted_batch_keeps_every_student_in_the_gradebook_and_index(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good", "bob": "good", "carol": "good"})
    html = ("gradescope", "grade", "html")
    batch.run_batch(subs, opts(tmp_path, jobs=1, formats=html), grader=FakeGrader())
    # bob and carol hand in again; the regrade stops at bob (carol never starts).
    (subs / "bob" / STAGE / "matmul.cu").write_text("interrupt")
    (subs / "carol" / STAGE / "matmul.cu").write_text("wrong")
    (subs / "dave" / STAGE).mkdir(parents=True)
    (subs / "dave" / STAGE / "matmul.cu").write_text("good")
    s = batch.run_batch(subs, opts(tmp_path, jobs=1, formats=html), grader=FakeGrader())
    assert s.interrupted
    book = rows(tmp_path / "out")
    assert set(book) == {"alice", "bob", "carol", "dave"}, "nobody vanishes from the gradebook"
    assert book["alice"]["status"] == "graded"
    for name in ("bob", "carol"):   # the previous run's points, marked as such
        assert book[name]["status"] == "pending" and float(book[name]["total"]) > 0
        assert "previous" in book[name]["note"]
    assert book["dave"]["status"] == "pending" and book["dave"]["total"] == "" and "not graded" in book["dave"]["note"]
    index = (tmp_path / "out" / "index.html").read_text()
    assert all(n in index for n in ("alice", "bob", "carol", "dave"))


def test_every_student_has_the_same_maximum_and_a_zero_for_a_stage_not_handed_in(tmp_path):
    two = ["01-basic", "02-tiled"]
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    (subs / "bob" / "02-tiled").mkdir(parents=True)
    (subs / "bob" / "02-tiled" / "matmul.cu").write_text("good")
    (subs / "carol").mkdir()
    (subs / "carol" / "notes.txt").write_text("forgot the code")
    seen = {}

    def grader(go):   # reports only the stages handed in, or none at all, as a grader may
        seen[go.name] = go.stages
        handed_in = {p.parent.name for p in go.submission.rglob("matmul.cu")}
        if not handed_in:
            return GradeReport(go.name, "submission", go.backend, status="empty", message="no matmul.cu")
        r = fakes.report(go.name, hidden=False)
        return replace(r, stages=[s for s in r.stages if s.stage in handed_in])
    batch.run_batch(subs, opts(tmp_path, stages=two), grader=grader)
    assert seen == {n: two for n in ("alice", "bob", "carol")}, "each student is graded on every stage"
    book = rows(tmp_path / "out")
    assert len({book[n]["max"] for n in book}) == 1 and float(book["alice"]["max"]) > 0
    full = classbatch.maxima(two, opts(tmp_path, stages=two), "gpu")
    assert float(book["alice"]["max"]) == pytest.approx(sum(full.values()), abs=0.01)
    assert all(book[n][s] != "" for n in book for s in two), "no blanks: a stage not graded is 0"


@pytest.mark.skipif(not (ROOT / "solutions").exists(), reason="needs the instructor's answer keys")
def test_the_maximum_counts_the_graded_questions_as_a_grade_does(tmp_path):
    # The gradebook's maximum left the questions out (80 of a grade's 90 for 02-tiled on an H200,
    # session 18): a student who answered them all was over the maximum.
    st = next(s for s in spec.load_all(ROOT) if s.id == "02-tiled")
    checks = score_stage(st, "submission", NotChecked(""), 0, "gpu").max_points
    on_gpu = classbatch.maxima([st.id], opts(tmp_path, stages=[st.id]), "gpu")[st.id]
    assert st.points.questions > 0 and on_gpu == pytest.approx(checks + st.points.questions)
    on_emu = classbatch.maxima([st.id], opts(tmp_path, stages=[st.id]), "emu")[st.id]
    gpu_only = [q for q in quiz.load_questions(ROOT / "assignments" / st.id) if q.gpu]
    if gpu_only and st.points.unearnable == "exclude":   # a question about the grading GPU: not on the emulator
        assert on_emu < score_stage(st, "submission", NotChecked(""), 0, "emu").max_points + st.points.questions


def test_each_student_reports_its_steps_as_it_goes(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    steps = []

    def grader(go):
        go.on_step("configuring")
        go.on_step(f"building {STAGE}")
        return fakes.report(go.name, hidden=False)
    batch.run_batch(subs, opts(tmp_path), grader=grader, on_step=lambda name, what: steps.append((name, what)))
    assert steps == [("alice", "configuring"), ("alice", f"building {STAGE}")]


def test_a_relative_out_gives_the_grader_absolute_paths(tmp_path, monkeypatch):
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    monkeypatch.chdir(tmp_path)
    seen = []

    def grader(go):
        seen.append(go.build_dir)
        return fakes.report(go.name, hidden=False)
    batch.run_batch(subs, opts(tmp_path, out=Path("grades")), grader=grader)
    (build,) = seen
    assert build.is_absolute() and build == tmp_path / "grades" / ".build" / "alice"
    assert (tmp_path / "grades" / classbatch.GRADEBOOK).exists()


def test_the_index_shows_stages_backend_and_seed(tmp_path):
    subs = make_subs(tmp_path / "subs", {"alice": "good"})
    batch.run_batch(subs, opts(tmp_path, hidden=True, seed="4242", formats=("grade", "html")), grader=FakeGrader())
    index = (tmp_path / "out" / "index.html").read_text()
    assert f">{STAGE}</th>" in index and "gpu" in index and "4242" in index
