"""tilelab.run.expect: the kit's "starter must fail" mode and the student repository's progress mode."""

import json
import sys

import pytest

from tilelab.run import expect


def runner(tmp_path, rc, verdict=None, message="wrong result on 3 elements"):
    """A stand-in runner: writes a result with this verdict (none when verdict is None), exits rc."""
    res = tmp_path / "r.json"
    body = "" if verdict is None else f"open({str(res)!r}, 'w').write({json.dumps(json.dumps({'verdict': verdict, 'stage': '01-basic', 'message': message}))})"
    return res, [sys.executable, "-c", f"import sys; {body}; sys.exit({rc})" if body else f"import sys; sys.exit({rc})"]


@pytest.mark.parametrize("rc,verdict", [(0, "pass"), (1, "wrong"), (2, "error"), (3, "timeout")])
def test_progress_mode_reports_any_verdict(tmp_path, capsys, rc, verdict):
    res, cmd = runner(tmp_path, rc, verdict)
    assert expect.main(["--exit", "any", "--json", str(res), "--", *cmd]) == 0
    out = capsys.readouterr().out
    assert f"verdict: {verdict}" in out
    assert ("./tilelab grade 01-basic" in out) == (verdict != "pass")


@pytest.mark.parametrize("rc,verdict", [(1, None), (0, "wrong"), (-11, None)])
def test_progress_mode_fails_without_a_verdict(tmp_path, capsys, rc, verdict):
    res, cmd = runner(tmp_path, rc, verdict)
    assert expect.main(["--exit", "any", "--json", str(res), "--", *cmd]) == 1
    assert "no verdict" in capsys.readouterr().out


def test_skips_pass_through(tmp_path):
    res, cmd = runner(tmp_path, 77, "skipped")
    assert expect.main(["--exit", "any", "--json", str(res), "--", *cmd]) == 77


def test_the_kit_mode_still_wants_exactly_wrong(tmp_path):
    res, cmd = runner(tmp_path, 0, "pass")
    assert expect.main(["--exit", "wrong", "--json", str(res), "--", *cmd]) == 1
    res, cmd = runner(tmp_path, 1, "wrong")
    assert expect.main(["--exit", "wrong", "--json", str(res), "--", *cmd]) == 0
