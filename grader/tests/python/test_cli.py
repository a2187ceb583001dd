"""The CLI is a thin layer: each command parses, calls one function and reports its result."""

import json
import subprocess

import pytest

import fakes
from tilelab import ROOT, cli
from tilelab.grading import classbatch, implementation
from tilelab.run import sanitize
from tilelab.report.model import GradeReport

COMMANDS = ["setup", "grade", "batch", "release", "starter", "gradescope", "bench", "calibrate", "doctor", "report"]


def test_every_command_has_help():
    p = cli.build_parser()
    for c in COMMANDS:
        with pytest.raises(SystemExit) as e:
            p.parse_args([c, "--help"])
        assert e.value.code == 0


def test_the_launcher_runs_the_cli():
    p = subprocess.run([str(ROOT / "tilelab"), "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and all(c in p.stdout for c in COMMANDS)


@pytest.mark.parametrize("verdict, rc", [("pass", 0), ("wrong", 1), ("skipped", 77)])
def test_grade_prints_the_table_writes_results_and_exits_by_verdict(tmp_path, monkeypatch, capsys, verdict, rc):
    monkeypatch.setattr(implementation, "grade", lambda opts: fakes.report("starter", verdict=verdict, hidden=False))
    code = cli.main(["grade", "--out", str(tmp_path), "--format", "gradescope", "--format", "grade",
                     "--format", "html", "--format", "prairielearn"])
    assert code == rc
    out = capsys.readouterr().out
    assert "points" in out and "GFLOP/s" not in out, "the diagnoses, not the table"
    for f in ("results.json", "grade.json", "report.html", "prairielearn.json"):
        assert (tmp_path / f).exists(), f
    cli.main(["grade", "--out", str(tmp_path), "--table"])
    assert "GFLOP/s" in capsys.readouterr().out, "--table prints every check"


def test_grade_usage_errors_exit_4(capsys):
    assert cli.main(["grade", "99-nope"]) == 4
    assert "unknown stage" in capsys.readouterr().out
    assert cli.main(["grade", "--hidden"]) == 4


def test_grader_failure_exits_2():
    assert implementation.exit_status(GradeReport("x", "starter", "gpu", status="error")) == 2


def test_report_rerenders_a_grade_json(tmp_path, capsys):
    (tmp_path / "grade.json").write_text(json.dumps(fakes.report().to_dict()))
    assert cli.main(["report", str(tmp_path / "grade.json")]) == 0
    assert (tmp_path / "report.html").exists()


def test_batch_command(tmp_path, monkeypatch, capsys):
    for name in ("alice", "bob"):
        (tmp_path / "subs" / name / "01-basic").mkdir(parents=True)
        (tmp_path / "subs" / name / "01-basic" / "matmul.cu").write_text(name)
    monkeypatch.setattr(implementation, "grade", lambda go: fakes.report(go.name, hidden=False))
    monkeypatch.setattr(classbatch, "resolve_backend", lambda b: "gpu")   # the batch runs as on a GPU
    assert cli.main(["batch", str(tmp_path / "subs"), "--out", str(tmp_path / "out"), "--stage", "01-basic"]) == 0
    out = capsys.readouterr().out
    assert "[2/2]" in out and "gradebook" in out
    assert (tmp_path / "out" / "gradebook.csv").read_text().count("\n") == 3
    assert cli.main(["batch", str(tmp_path / "subs"), "--out", str(tmp_path / "out"), "--stage", "01-basic"]) == 0
    assert "reused 2" in capsys.readouterr().out


def test_release_and_zip_commands(tmp_path, capsys):
    if not (ROOT / "solutions").exists():
        pytest.skip("needs the instructor's kit")
    assert cli.main(["release", str(tmp_path / "rel")]) == 0
    assert cli.main(["release", str(tmp_path / "rel")]) == 4, "no silent overwrite"
    assert cli.main(["gradescope", "--make-zip", str(tmp_path / "ag.zip"), "--seed", "5"]) == 0
    assert (tmp_path / "ag.zip").exists()


def test_doctor_names_a_fix_for_everything_missing(capsys):
    rc = cli.main(["doctor"])
    out = capsys.readouterr().out
    assert rc in (0, 1) and "nvcc" in out and "NVIDIA GPU" in out
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.lower().startswith("[missing"):
            assert lines[i + 1].strip().startswith("->"), line


def test_bench_and_calibrate_skip_without_a_gpu(monkeypatch, capsys):
    monkeypatch.setattr(sanitize, "gpu_present", lambda: False)
    assert cli.main(["bench"]) == 77 and cli.main(["calibrate"]) == 77
    assert "no usable NVIDIA GPU" in capsys.readouterr().out


def test_every_subcommand_describes_itself_and_each_option():
    """`tilelab <cmd> --help` opens with a description and says what every option does (issue #40:
    `tilelab bench --help` listed five bare options)."""
    import argparse

    ap = cli.build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        if not name.startswith("_"):
            assert p.description, f"tilelab {name} --help has no description"
        bare = [a.option_strings or [a.dest] for a in p._actions
                if not a.help and not isinstance(a, argparse._HelpAction)]
        assert not bare, f"tilelab {name}: options without help text: {bare}"
        p.format_help()   # a stray % in a help text fails here, not in a user's terminal


def test_check_takes_a_build_dir(monkeypatch, tmp_path, capsys):
    """`check --build-dir` reaches run_once (gpu-commands.sh checks in a tree of its own)."""
    from tilelab.commands import check

    seen = {}

    def once(stage, impl, jobs, build_dir=None):
        seen.update(stage=stage, impl=impl, build_dir=build_dir)
        return 0, ["02-tiled: pass on 2 small datasets"]
    monkeypatch.setattr(check, "run_once", once)
    assert cli.main(["check", "02-tiled", "--impl", "solution", "--build-dir", str(tmp_path)]) == 0
    assert seen == {"stage": "02-tiled", "impl": "solution", "build_dir": tmp_path}
