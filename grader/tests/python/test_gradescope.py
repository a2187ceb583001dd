"""The Gradescope autograder zip, and the in-container entry: a results file is always written."""

import json
import stat
import subprocess
import zipfile

import pytest

import fakes
from tilelab import ROOT
from tilelab.commands import autograder
from tilelab.report.formats import gradescope as gradescope_format


def test_zip_has_the_entry_points_the_kit_and_the_config(tmp_path):
    cfg = autograder.AutograderConfig(stages=["01-basic"], seed="1234")
    names = autograder.make_zip(tmp_path / "ag.zip", cfg)
    assert {"setup.sh", "run_autograder", f"tilelab/{autograder.CONFIG}"} <= set(names)
    assert "tilelab/tilelab" in names and "tilelab/grader/tilelab/cli.py" in names
    if (ROOT / "solutions").exists():
        assert "tilelab/solutions/01-basic/matmul.cu" in names, "the reference is needed for timing"
    assert not any(n.startswith(("tilelab/build/", "tilelab/.venv/", "tilelab/.git/")) for n in names)
    with zipfile.ZipFile(tmp_path / "ag.zip") as z:
        for n in ("setup.sh", "run_autograder", "tilelab/tilelab"):
            assert (z.getinfo(n).external_attr >> 16) & stat.S_IXUSR, f"{n} is executable"
        conf = json.loads(z.read(f"tilelab/{autograder.CONFIG}"))
        assert conf["seed"] == "1234" and conf["hidden_visibility"] == "after_published"
        assert '"$here/results/results.json"' in z.read("run_autograder").decode()
        assert "./tilelab gradescope --prepare" in z.read("setup.sh").decode()


def test_unknown_stages_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown stage"):
        autograder.make_zip(tmp_path / "z.zip", autograder.AutograderConfig(stages=["99-nope"]))


def test_config_round_trips(tmp_path):
    (tmp_path / autograder.CONFIG).write_text(json.dumps({"seed": "9", "stages": ["01-basic"], "extra": 1}))
    cfg = autograder.AutograderConfig.load(tmp_path)
    assert cfg.seed == "9" and cfg.stages == ["01-basic"]
    assert autograder.AutograderConfig.load(tmp_path / "none") == autograder.AutograderConfig()


@pytest.mark.parametrize("fmt", ["gradescope", "prairielearn"])
def test_results_are_written_even_when_grading_blows_up(tmp_path, monkeypatch, fmt):
    def boom(opts):
        raise RuntimeError("disk full")
    monkeypatch.setattr(autograder.implementation, "grade", boom)
    report, path = autograder.autograde(fmt, tmp_path / "sub", tmp_path / "res" / "results.json", tmp_path / "b",
                                        autograder.AutograderConfig())
    doc = json.loads(path.read_text())
    assert report.status == "error"
    if fmt == "gradescope":
        assert doc["score"] == 0 and "disk full" in doc["output"]
    else:
        assert doc["gradable"] is False and any("disk full" in e for e in doc["format_errors"])


def test_hidden_runs_use_the_seed_and_after_published(tmp_path, monkeypatch):
    seen = {}

    def fake(opts):
        seen.update(hidden=opts.hidden, seed=opts.seed, impl=opts.impl, net=opts.isolate_network)
        return fakes.report("submission")
    monkeypatch.setattr(autograder.implementation, "grade", fake)
    _, path = autograder.autograde("gradescope", tmp_path, tmp_path / "r.json", tmp_path / "b",
                                   autograder.AutograderConfig(seed="42"))
    assert seen == {"hidden": True, "seed": "42", "impl": "submission", "net": True}
    doc = json.loads(path.read_text())
    assert {t["visibility"] for t in doc["tests"] if "(hidden)" in t["name"]} == {"after_published"}


def test_run_autograder_finds_the_kit_and_folders_from_its_own_place(tmp_path):
    """Gradescope copies run_autograder to /autograder; it works wherever that folder is, and is
    executed directly (no shell, from any folder)."""
    ag = tmp_path / "autograder"
    launcher = ag / "source" / "tilelab" / "tilelab"
    launcher.parent.mkdir(parents=True)
    launcher.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    launcher.chmod(0o755)
    (ag / "run_autograder").write_text(gradescope_format.RUN_AUTOGRADER)
    (ag / "run_autograder").chmod(0o755)
    p = subprocess.run([str(ag / "run_autograder")], cwd="/", capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    args = p.stdout.split("\n")
    assert args[0] == "gradescope"
    assert args[args.index("--submission") + 1] == str(ag / "submission")
    assert args[args.index("--results") + 1] == str(ag / "results" / "results.json")


def test_command_line_options_override_the_kits_config(tmp_path, monkeypatch):
    from tilelab import cli

    seen = {}

    def fake(fmt, submission, results, build, cfg):
        seen.update(fmt=fmt, cfg=cfg)
        return fakes.report("submission"), tmp_path / "r.json"
    monkeypatch.setattr(autograder, "autograde", fake)
    assert cli.main(["gradescope", "--prairielearn", "--stage", "02-tiled", "--seed", "9", "--timeout", "120"]) == 0
    cfg = seen["cfg"]
    assert seen["fmt"] == "prairielearn" and cfg.stages == ["02-tiled"] and cfg.seed == "9" and cfg.timeout == 120
    assert cfg.backend == autograder.AutograderConfig.load().backend, "an option not given keeps the config's value"



def test_question_verdicts_wait_for_the_due_date_and_attempts_are_capped(tmp_path, monkeypatch):
    """Issue #28 item 4: a question's verdict shown at once let about five resubmissions try every
    choice. Its tests are after_due_date, results.json keeps what was graded (extra_data), and the
    next submission reads its predecessors' from submission_metadata.json to cap attempts."""
    from dataclasses import replace

    from tilelab.score.scoring import CheckScore
    seen = {}

    def fake(opts):
        seen.update(earlier=opts.earlier_answers, cap=opts.question_attempts)
        r = fakes.report("submission", hidden=False)
        q = CheckScore("submission.01-basic.basic-bound.question", "basic-bound", "question", "pass", 1.0, 1.0)
        return replace(r, stages=[replace(r.stages[0], checks=r.stages[0].checks + (q,)), *r.stages[1:]],
                       answers={"01-basic": {"code": "abc", "values": {"basic-bound": 250.0}}})
    monkeypatch.setattr(autograder.implementation, "grade", fake)
    (tmp_path / "submission").mkdir()
    earlier = [{"code": "abc", "values": {"basic-bound": 1.0}}, {"code": "abc", "values": {"basic-bound": 2.0}}]
    (tmp_path / "submission_metadata.json").write_text(json.dumps({
        "users": [{"email": "ann@uni.edu"}],
        "previous_submissions": [
            {"submission_time": "2026-11-02T10:00:00", "results": {"extra_data": {"tilelab_answers": {"01-basic": earlier[1]}}}},
            {"submission_time": "2026-11-01T10:00:00", "results": {"extra_data": {"tilelab_answers": {"01-basic": earlier[0]}}}},
            {"submission_time": "2026-11-03T10:00:00", "results": {}}]}))
    _, path = autograder.autograde("gradescope", tmp_path / "submission", tmp_path / "r.json", tmp_path / "b",
                                   autograder.AutograderConfig())
    assert seen == {"earlier": {"01-basic": earlier}, "cap": 3}           # oldest first
    doc = json.loads(path.read_text())
    q = [t for t in doc["tests"] if t["name"].endswith("basic-bound") or "basic-bound" in t["name"]]
    assert q and {t["visibility"] for t in q} == {"after_due_date"}
    assert {t["visibility"] for t in doc["tests"] if "question" not in t["tags"]} == {"visible"}
    assert doc["extra_data"]["tilelab_answers"] == {"01-basic": {"code": "abc", "values": {"basic-bound": 250.0}}}


def test_prairielearn_grades_each_variant_with_its_own_numbers_and_shows_no_question(tmp_path, monkeypatch):
    """Issue #42 item 1: on PrairieLearn one shared answers.toml fitted everybody, and each
    question's verdict and points were shown at once, with no cap on attempts. Now the quiz code is
    the variant's (PrairieLearn's variant_seed in /grade/data/data.json, which the student does not
    write), so each new variant draws new numbers, and results.json holds nothing of a question."""
    from dataclasses import replace

    from tilelab.score import quiz
    from tilelab.score.scoring import CheckScore
    seen = {}

    def fake(opts):
        seen["code"] = opts.quiz_code
        r = fakes.report("submission", hidden=False)
        q = CheckScore("submission.01-basic.basic-bound.question", "basic-bound", "question", "wrong", 0.0, 1.0,
                       "1.0 is not the right answer")
        return replace(r, stages=[replace(r.stages[0], checks=r.stages[0].checks + (q,)), *r.stages[1:]])
    monkeypatch.setattr(autograder.implementation, "grade", fake)
    (tmp_path / "student").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "data.json").write_text(json.dumps({"params": {}, "variant_seed": 48879}))
    _, path = autograder.autograde("prairielearn", tmp_path / "student", tmp_path / "results" / "results.json",
                                   tmp_path / "b", autograder.AutograderConfig())
    assert seen["code"] == quiz.variant_code(48879) == "plbeef"
    text = path.read_text()
    assert "basic-bound" not in text and "not the right answer" not in text
    assert "graded after the due date" in json.loads(text)["output"]
    (tmp_path / "data" / "data.json").write_text("{}")                  # no variant: the code is the file's
    autograder.autograde("prairielearn", tmp_path / "student", tmp_path / "r2.json", tmp_path / "b",
                         autograder.AutograderConfig())
    assert seen["code"] is None
