"""Every output format, checked field by field against its documented schema:
Gradescope's results.json, PrairieLearn's results.json, the CSV gradebook, grade.json, HTML."""

import copy
import csv
import io
import json
import numbers
from dataclasses import replace

import pytest

import fakes
from tilelab.report.formats import classroom as classroom_format, gradebook, gradescope as gradescope_format, \
    html as html_report, prairielearn as prairielearn_format, terminal as table
from tilelab.report.model import GradeReport

GS_TOP = {"score", "execution_time", "output", "output_format", "visibility", "stdout_visibility", "tests", "leaderboard", "extra_data"}   # extra_data: the spec's "optional extra data to be stored"
GS_TEST_REQUIRED = {"name", "score", "max_score", "output", "visibility"}   # status: not on a skipped check
GS_TEST_ALLOWED = GS_TEST_REQUIRED | {"status", "number", "output_format", "tags", "name_format", "extra_data"}


def _is_num(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def test_gradescope_results_follow_the_spec():
    r = fakes.report(ratio=0.7)
    doc = json.loads(json.dumps(gradescope_format.results(r)))   # what is written is plain JSON
    assert set(doc) == GS_TOP
    assert _is_num(doc["score"]) and doc["score"] == pytest.approx(r.points, abs=1e-3)
    assert isinstance(doc["execution_time"], int)
    assert doc["visibility"] in gradescope_format.VISIBILITIES
    assert doc["stdout_visibility"] in gradescope_format.VISIBILITIES
    assert len(doc["tests"]) == sum(len(s.checks) for s in r.stages)
    names = [t["name"] for t in doc["tests"]]
    assert len(set(names)) == len(names), "test names are unique"
    for t in doc["tests"]:
        assert GS_TEST_REQUIRED <= set(t) <= GS_TEST_ALLOWED
        assert isinstance(t["name"], str) and t["name"]
        assert _is_num(t["score"]) and _is_num(t["max_score"]) and 0 <= t["score"] <= t["max_score"] + 1e-9
        assert t.get("status", "passed") in ("passed", "failed")
        assert isinstance(t["output"], str)
        assert t["visibility"] in gradescope_format.VISIBILITIES
        assert t["output_format"] in ("text", "html", "simple_format", "md", "ansi")
        assert all(isinstance(tag, str) for tag in t["tags"])
    assert sum(t["score"] for t in doc["tests"]) == pytest.approx(doc["score"], abs=0.01)


def test_hidden_tests_are_shown_after_publishing_and_public_ones_at_once():
    doc = gradescope_format.results(fakes.report())
    hidden = [t for t in doc["tests"] if "(hidden)" in t["name"]]
    assert hidden and all(t["visibility"] == "after_published" for t in hidden)
    assert all(t["visibility"] == "visible" for t in doc["tests"] if "(hidden)" not in t["name"])


def test_leaderboard_holds_each_timed_stage_gflops():
    r = fakes.report()
    doc = gradescope_format.results(r)
    timed = [s for s in r.stages if s.check("perf") and s.check("perf").passed]
    assert len(doc["leaderboard"]) == len(timed)
    for entry in doc["leaderboard"]:
        assert set(entry) <= {"name", "value", "order"}
        assert entry["name"].endswith("GFLOP/s") and _is_num(entry["value"]) and entry["value"] > 0
        assert entry.get("order", "desc") in ("asc", "desc")


def test_wrong_results_fail_with_the_hint_and_the_first_wrong_elements():
    doc = gradescope_format.results(fakes.report(verdict="wrong"))
    t = doc["tests"][0]
    assert t["status"] == "failed" and t["score"] == 0
    assert "Hint:" in t["output"] and "expected" in t["output"]
    assert doc["leaderboard"] == []


def test_a_broken_submission_still_makes_a_valid_results_file():
    r = GradeReport("bob", "submission", "gpu", status="error", message="the grader failed: boom")
    doc = gradescope_format.results(r)
    assert doc["score"] == 0 and doc["tests"] == [] and "boom" in doc["output"]


def test_prairielearn_results_follow_the_spec():
    r = fakes.report(ratio=0.7)
    doc = prairielearn_format.results(r)
    assert doc["gradable"] is True
    assert 0.0 <= doc["score"] <= 1.0 and doc["score"] == pytest.approx(r.points / r.max_points, abs=1e-6)
    assert isinstance(doc["message"], str) and isinstance(doc["output"], str)
    # the speed chart, as the HTML report shows it (it was never passed before: images was always [])
    assert [i["url"][:22] for i in doc["images"]] == ["data:image/png;base64,"] and doc["images"][0]["label"]
    for t in doc["tests"]:
        assert set(t) == {"name", "description", "points", "max_points", "message", "output"}
        assert _is_num(t["points"]) and _is_num(t["max_points"]) and t["points"] <= t["max_points"] + 1e-9
    assert len(json.dumps(doc)) < 1_000_000, "PrairieLearn limits results to 1 MB"


def test_prairielearn_does_not_count_an_attempt_that_does_not_compile():
    r = GradeReport("bob", "submission", "gpu", status="build-failed", message="no stage compiled")
    doc = prairielearn_format.results(r)
    assert doc["gradable"] is False and doc["format_errors"]


def test_gradebook_has_a_row_per_student_and_a_column_per_stage(tmp_path):
    reps = [fakes.report("bob", verdict="wrong"), fakes.report("alice"),
            GradeReport("carol", "submission", "gpu", status="build-failed", message="no stage compiled\nmore")]
    ids = [s.id for s in fakes.stages()]
    gradebook.write(tmp_path / "g.csv", reps, ids)
    rows = list(csv.DictReader(open(tmp_path / "g.csv")))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol"]
    assert list(rows[0]) == ["student", "status", *ids, "total", "max", "note", "grader", "seed"]
    alice = rows[0]
    assert float(alice["total"]) == pytest.approx(sum(float(alice[i]) for i in ids), abs=0.05)
    assert float(alice["total"]) == pytest.approx(float(alice["max"]), abs=0.05)
    assert float(rows[1]["total"]) == 0 and rows[2]["status"] == "build-failed"
    assert rows[2]["note"] == "no stage compiled" and rows[2][ids[0]] == "0.00", "a stage not graded counts 0"


def test_grade_json_round_trips():
    r = fakes.report(ratio=0.8)
    again = GradeReport.from_dict(json.loads(json.dumps(r.to_dict())))
    assert again.to_dict() == r.to_dict()
    assert again.points == pytest.approx(r.points)
    with pytest.raises(ValueError):
        GradeReport.from_dict({"format": "something else"})


def test_html_report_shows_verdicts_hints_resources_and_the_plot():
    r = fakes.report(verdict="wrong")
    first = r.stages[0]
    first = replace(first, checks=[replace(first.checks[0], message="<script>alert(1)</script>"), *first.checks[1:]])
    r = replace(r, stages=[first, *r.stages[1:]])
    html = html_report.render(r)
    assert "<script>alert" not in html, "everything from results is escaped"
    assert "Hint:" in html and "wrong" in html
    good = html_report.render(fakes.report())
    assert "data:image/png;base64," in good and "registers per thread" in good
    assert "registers allow — <strong>binds</strong>" in good
    assert "speed of the timed run" in good and "map of P" not in good, "a passing stage has no error map"


def test_terminal_table_has_every_column_behind_the_flag(capsys):
    table.print_report(fakes.report(ratio=0.7), table=True)
    out = capsys.readouterr().out
    for col in ("dataset", "verdict", "error", "GFLOP/s", "% of ref", "% of cuBLAS", "points"):
        assert col in out
    assert "70%" in out
    table.print_report(fakes.report(ratio=0.7))
    short = capsys.readouterr().out
    assert "GFLOP/s" not in short and "slower than full performance credit" in short


def test_github_classroom_payload():
    r = fakes.report(verdict="wrong")
    doc = classroom_format.results(r)
    assert doc["version"] == 1 and doc["status"] == "fail"
    assert doc["max_score"] == pytest.approx(r.max_points, abs=1e-3)
    for t in doc["tests"]:
        assert {"name", "status", "score", "message"} <= set(t) and t["status"] in ("pass", "fail")
    assert classroom_format.results(fakes.report())["status"] == "pass"


def test_formats_do_not_import_one_another_and_each_registers_one_file():
    """Adding a format touches one file: each module imports only the registry (registry.py) and common.py,
    and write_outputs writes every registered format by its name."""
    import ast
    from pathlib import Path

    from tilelab.report import formats

    pkg = Path(formats.__file__).parent
    for f in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module in (None, "common", "registry"), f"{f.name} imports .{node.module}"
                if node.module in (None, "registry"):
                    assert {a.name for a in node.names} <= {"Format", "Platform", "RenderOptions", "register", "get", "names"}, \
                        f"{f.name} imports a sibling"
    # What is registered is what the package's modules register, one format a module: no list here
    # to keep by hand (a new format is its module and its own test).
    registered = []
    for f in pkg.glob("*.py"):
        calls = [n for n in ast.walk(ast.parse(f.read_text())) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", "") == "register" and n.args and isinstance(n.args[0], ast.Call)]
        assert len(calls) <= 1, f"{f.name} registers {len(calls)} formats"
        registered += [c.args[0].args[0].value for c in calls]
    assert sorted(formats.names()) == sorted(registered) and len(registered) >= 5


def test_write_outputs_writes_every_registered_format(tmp_path):
    from tilelab.report import formats

    written = formats.write(fakes.report(verdict="wrong"), tmp_path, tuple(formats.names()))
    assert sorted(p.name for p in written) == sorted(formats.get(n).filename for n in formats.names())
    assert all(p.stat().st_size > 0 for p in written)
    with pytest.raises(ValueError, match="unknown output format"):
        formats.write(fakes.report(), tmp_path, ("nope",))


def test_emulator_warnings_reach_every_report_and_cost_nothing():
    """A warning (issue #26: a duplicate store of equal values, shared memory read unwritten where
    no stored element depends on it) fails nothing and is shown in the terminal, the HTML report
    and Gradescope's output, once per kind and line."""
    st = next(s for s in fakes.stages() if s.id == "04-rectangular")
    res = fakes.results_for(st, backend="emu")
    warned = 0
    for key, r in res.items():
        if r["check"] in ("emu", "emu-race"):
            r["emulator"] = {"build": r["check"], "findings": [], "warnings": [{
                "kind": "duplicate-store", "file": "/k/matmul.cu", "line": 71, "count": 4,
                "message": "blocks (1,0) and (2,0) store the same values to P[0][16]",
                "advice": "each element of P needs one thread: check the grid"}]}
            warned += 1
    assert warned > 1
    r = GradeReport("carol", "submission", "emu", stages=[fakes.score_stage(st, "submission", res, 0, "emu")])
    s = r.stages[0]
    assert s.points == s.max_points, "a warning costs no points"
    want = "Warning (no points lost): duplicate-store at matmul.cu:71"
    import io
    buf = io.StringIO()
    table.print_report(r, file=buf)
    assert buf.getvalue().count(want) == 1, buf.getvalue()
    page = html_report.render(r)
    assert page.count("duplicate-store at matmul.cu:71") == 1
    gs = gradescope_format.results(r)
    assert want in gs["output"]
    assert any(want in t["output"] for t in gs["tests"])


def test_every_output_goes_through_one_render_with_the_platforms_options():
    """issue #29 item 4: the autograder used to call the Gradescope writer with extra arguments,
    past the registry; now it renders by name with RenderOptions, as write_outputs does."""
    from tilelab.report import formats, view
    from tilelab.score.scoring import CheckScore
    r = fakes.report(hidden=False)
    q = CheckScore("submission.01-basic.q.question", "q", "question", "pass", 1.0, 1.0)
    r = replace(r, stages=[replace(r.stages[0], checks=r.stages[0].checks + (q,)), *r.stages[1:]])
    default = json.loads(formats.render(r, "gradescope"))
    shown = json.loads(formats.render(r, "gradescope", formats.RenderOptions(question_visibility="visible")))
    q = lambda doc: [t["visibility"] for t in doc["tests"] if "question" in t["tags"]]  # noqa: E731
    assert q(default) == ["after_due_date"] and q(shown) == ["visible"]
    for name in formats.names():
        assert formats.render(r, name) == formats.get(name).render(view.of(r), formats.RenderOptions())


def test_a_hosted_platforms_recipe_lives_beside_its_format(monkeypatch):
    """Gradescope's and PrairieLearn's paths and files are their formats' (Platform); the
    autograder command only runs them, so a new platform is one format module."""
    from pathlib import Path

    from tilelab.commands import autograder
    from tilelab.report import formats

    platforms = [n for n in formats.names() if formats.get(n).platform]
    assert {"gradescope", "prairielearn"} <= set(platforms)
    for name in platforms:   # a rule over every platform, not a list of them: a new one is its format's module
        p = formats.get(name).platform
        monkeypatch.setenv(p.root_env, "/tmp/moved")
        assert autograder.platform_paths(name) == {"submission": Path("/tmp/moved") / p.submission,
                                                   "results": Path("/tmp/moved") / p.results}
    gs, pl = formats.get("gradescope").platform, formats.get("prairielearn").platform
    monkeypatch.delenv(gs.root_env, raising=False)
    monkeypatch.delenv(pl.root_env, raising=False)
    assert autograder.platform_paths("gradescope") == {"submission": Path("/autograder/submission"),
                                                       "results": Path("/autograder/results/results.json")}
    assert autograder.platform_paths("prairielearn") == {"submission": Path("/grade/student"),
                                                         "results": Path("/grade/results/results.json")}
    monkeypatch.setenv(pl.root_env, "/tmp/pl-root")
    assert autograder.platform_paths("prairielearn")["results"] == Path("/tmp/pl-root/results/results.json")
    assert [(name, executable) for name, _, executable in gs.files] == [("setup.sh", True), ("run_autograder", True)]
    assert "./tilelab gradescope --prepare" in dict((n, t) for n, t, _ in gs.files)["setup.sh"]


def test_a_hidden_dataset_shows_where_p_is_wrong_never_a_value():
    """A hidden check's result carries positions and counts only (the judge's values_withheld,
    issue #39): no output, diagnosis or metric shows a number the kernel put in P, or the hidden
    reference's; a public check keeps "expected ..., got ..."."""
    from tilelab.score import diagnoses, scoring

    st = next(s for s in fakes.stages() if s.id == "03-boundary")
    res = fakes.boundary_failure(st)
    public = res[f"submission.{st.id}.w17.correct"]
    hidden = copy.deepcopy(public) | {"dataset": "hidden0"}
    k = hidden["kernel"]
    k["first_wrong"] = [{"row": 0, "col": 16}]
    k["values_withheld"] = True
    for key in ("max_abs_error", "rel_fro_error", "max_error_ratio"):
        k.pop(key, None)
    res = {f"submission.{st.id}.hidden0.correct": hidden}
    score = scoring.score_stage(st, "submission", res, 1, "gpu")
    report = GradeReport("eve", "submission", "gpu", stages=[score], hidden=True)
    text = (gradescope_format.results(report)["tests"][0]["output"] + "\n" +
            "\n".join(d.text() for d in diagnoses.of_stage(score)))
    assert "P[0][16]" in text and "values of a hidden dataset are not shown" in text, text
    assert "3.25" not in text and "2.5" not in text and "expected 3" not in text, text
    public_text = gradescope_format.results(fakes.failing_report())
    assert "expected 3.25, got 2.5" in json.dumps(public_text), "a public dataset keeps its values"


# --- Issue #42 item 1: nothing about a graded question is more visible than the question itself ---

QIDS = ("qleak-bound", "qleak-choice")   # ids no other field of a report could hold by chance


def _with_questions(r: GradeReport, verdict: str, worth: float = 3.25) -> GradeReport:
    """r with two graded questions on its first stage, every one `verdict` ("pass" or "wrong"),
    each worth `worth`: as quiz.score writes them (message, hint, points)."""
    from tilelab.score.scoring import CheckScore
    s = r.stages[0]
    qs = tuple(CheckScore(f"submission.{s.stage}.{q}.question", q, "question", verdict,
                          worth if verdict == "pass" else 0.0, worth,
                          "right" if verdict == "pass" else "1.0 is not the right answer",
                          "" if verdict == "pass" else "see PMPP 4.6") for q in QIDS)
    return replace(r, stages=[replace(s, checks=s.checks + qs), *r.stages[1:]])


def _strings(x):
    """Every key and text in a JSON document, at any depth."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)
    elif isinstance(x, str):
        yield x


def _seen_on_gradescope(doc: dict) -> dict:
    """What a student sees of a Gradescope results.json before the due date: every field but the
    tests that wait for it (after_due_date), extra_data (stored for the autograder, never shown;
    it holds only the answers the student handed in) and execution_time."""
    seen = {k: v for k, v in doc.items() if k not in ("extra_data", "execution_time")}
    seen["tests"] = [t for t in doc["tests"] if t["visibility"] != "after_due_date"]
    return seen


def test_gradescope_shows_no_question_before_the_due_date():
    """The question tests were after_due_date, but the visible top-level output named each wrong
    one ('wrong: 1.0 is not the right answer -- on tiled-bound (question)'), the stage line gave
    the question points and the verdict 'failed', and score held them: with three attempts a
    student could fix every two-choice question. Now what is visible is the same whether the
    answers are right or wrong, whatever they are worth, and names no question."""
    base = fakes.report(hidden=False)
    right, wrong, dearer = _with_questions(base, "pass"), _with_questions(base, "wrong"), _with_questions(base, "wrong", 9.5)
    docs = [json.loads(json.dumps(gradescope_format.results(r))) for r in (right, wrong, dearer)]
    seen = [_seen_on_gradescope(d) for d in docs]
    assert seen[0] == seen[1] == seen[2], "a visible field depends on a question's verdict or points"
    text = "\n".join(_strings(seen[1]))
    assert not any(q in text for q in QIDS) and "not the right answer" not in text
    assert "graded after the due date" in seen[1]["output"]
    assert "score" not in docs[1], "the total (questions included) is left to Gradescope, which hides it"
    # The questions are still graded, in their own tests, and Gradescope's total counts them.
    qtests = [t for t in docs[0]["tests"] if "question" in t["tags"]]
    assert len(qtests) == 2 and {t["visibility"] for t in qtests} == {"after_due_date"}
    assert sum(t["score"] for t in docs[0]["tests"]) == pytest.approx(right.points)
    assert sum(t["score"] for t in docs[1]["tests"]) == pytest.approx(wrong.points)
    # Shown at once when the instructor says so: then the top-level score is back.
    shown = gradescope_format.results(wrong, question_visibility="visible")
    assert shown["score"] == pytest.approx(wrong.points) and "qleak-bound" in shown["output"]


def test_prairielearn_shows_no_question_unless_told_to():
    """PrairieLearn shows the whole results.json at once (it has no per-test visibility): it held
    each question's points and verdict. Now, unless the question visibility is "visible", no field
    depends on the questions or names one; the score is the kernel's."""
    base = fakes.report(hidden=False)
    right, wrong, dearer = _with_questions(base, "pass"), _with_questions(base, "wrong"), _with_questions(base, "wrong", 9.5)
    docs = [json.loads(json.dumps(prairielearn_format.results(r))) for r in (right, wrong, dearer)]
    assert docs[0] == docs[1] == docs[2], "a field depends on a question's verdict or points"
    text = "\n".join(_strings(docs[1]))
    assert not any(q in text for q in QIDS) and "not the right answer" not in text
    assert "graded after the due date" in docs[1]["output"]
    assert docs[1]["score"] == pytest.approx(base.points / base.max_points)
    for name in ("prairielearn",):   # the registry passes the option through
        from tilelab.report import formats
        assert json.loads(formats.render(wrong, name)) == docs[1]
        shown = json.loads(formats.render(wrong, name, formats.RenderOptions(question_visibility="visible")))
        assert any("qleak-bound" in t["name"] for t in shown["tests"])
        assert shown["score"] == pytest.approx(wrong.points / wrong.max_points)


def test_what_the_student_may_fix_is_still_said_before_the_due_date():
    """A missing answers.toml, or one written for another quiz code or past the cap on attempts,
    says nothing of which answer is right and can still be put right: it is shown on both platforms.
    Which note is which is the check's data (CheckScore.notes, quiz.py's Note), never its sentence: a
    message that says it without the note shows nothing, a note says it whatever its words, and it
    goes through grade.json."""
    from tilelab.score.scores import CheckScore, Note
    base = fakes.report(hidden=False)
    s = base.stages[0]
    question = lambda q, verdict, message, notes=(): CheckScore(  # noqa: E731
        f"submission.{s.stage}.{q}.question", q, "question", verdict, 0.0, 1.0, message, notes=notes)
    wrong_code = "these answers were for quiz code 'practice', not yours ('pl1f'): run `./tilelab quiz 01-basic --code pl1f`"
    missing = tuple(question(q, "missing", f"no {s.stage}/answers.toml beside matmul.cu: run `./tilelab quiz {s.stage}`")
                    for q in QIDS)
    other = tuple(question(q, "wrong", f"1.0 is not the right answer; {wrong_code}", ((Note.WRONG_CODE, wrong_code),))
                  for q in QIDS)
    capped = tuple(question(q, "wrong", "1.0 is not the right answer; the cap", ((Note.ATTEMPTS_USED, "the cap"),),)
                   for q in QIDS)
    unnoted = tuple(question(q, "wrong", f"1.0 is not the right answer; {wrong_code}") for q in QIDS)
    for checks, want in ((missing, "answers.toml beside matmul.cu"), (other, "not yours ('pl1f')"), (capped, "the cap"),
                         (unnoted, None)):
        r = replace(base, stages=[replace(s, checks=s.checks + checks), *base.stages[1:]])
        r = GradeReport.from_dict(json.loads(json.dumps(r.to_dict())))
        gs, pl = gradescope_format.results(r)["output"], prairielearn_format.results(r)["output"]
        if want:
            assert want in gs and want in pl
        else:
            assert "not yours" not in gs + pl, "the notice is the check's note, not a sentence of its message"
        assert not any(q in gs + pl for q in QIDS) and "not the right answer" not in gs + pl


def test_every_format_reads_the_diagnoses_and_figures_computed_once(tmp_path, monkeypatch):
    """issue #43 item 4: writing every format (and printing the terminal's) computes each stage's
    diagnoses and each check's figures once (report/view.py), where each format used to compute
    its own."""
    from tilelab.report import formats, view
    from tilelab.score import diagnoses, metrics

    calls = {"of_stage": 0, "of": 0}

    def counted(name, f):
        def wrapped(*a, **k):
            calls[name] += 1
            return f(*a, **k)
        return wrapped

    monkeypatch.setattr(diagnoses, "of_stage", counted("of_stage", diagnoses.of_stage))
    monkeypatch.setattr(metrics, "of", counted("of", metrics.of))
    r = fakes.report(verdict="wrong")
    shown = view.of(r)
    table.print_report(shown, file=io.StringIO(), table=True)
    formats.write(shown, tmp_path, tuple(formats.names()))
    assert calls == {"of_stage": len(r.stages), "of": sum(len(s.checks) for s in r.stages)}, calls
