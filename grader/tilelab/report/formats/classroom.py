"""GitHub Classroom's autograding payload, as classroom-resources/autograding-grading-reporter
reads it (base64 of this JSON in the env var <RUNNER>_RESULTS): version, status, max_score and
tests[] with name, status, score, message.

The reporter shows every test that is not "pass" as a failure, so a check this backend cannot run
is left out (its points are out of max_score too), unless stage.toml's [points] unearnable = "keep"
counts its points: then it is listed as "fail" with the reason."""

from __future__ import annotations

from .. import view as view_mod
from ..model import GradeReport
from ...score.scores import CheckScore, StageScore
from .registry import Format, register
from .common import as_json, test_name


def message(s: StageScore, c: CheckScore, v: view_mod.ReportView) -> str:
    """A check's message: the stage's diagnosis it is part of (the same text every format shows),
    else its own message and hint."""
    d = None if c.clean_pass else v.diagnosis_of(s, c)
    if d is not None:
        return d.text() + (f"\n({c.message})" if c.withheld else "")
    return c.message if c.withheld else c.hint or c.message


def results(r: GradeReport | view_mod.ReportView) -> dict:
    v = view_mod.of(r)
    r = v.report
    tests = [{"name": test_name(s.stage, c), "status": "pass" if c.clean_pass else "fail",
              "score": round(c.points, 4),
              "message": f"skipped: {c.message}" if c.skipped else message(s, c, v),
              "line_no": 0, "filename": f"starter/{s.stage}/matmul.cu", "test_code": c.name, "duration": 0}
             for s in r.stages for c in s.checks if not (c.skipped and c.max_points == 0)]
    status = "error" if r.status in ("error", "empty") else ("pass" if r.passed else "fail")
    return {"version": 1, "status": status, "max_score": round(r.max_points, 4), "tests": tests}


register(Format("classroom", "classroom.json", lambda r, o: as_json(results(r)), "GitHub Classroom's autograding payload"))
