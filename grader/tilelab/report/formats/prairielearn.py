"""PrairieLearn's external-grader results.json: score in [0, 1], gradable, message, output,
tests[] (name, description, points, max_points, message, output) and images[] (data URLs): the
speed chart the HTML report shows (plot.report_png), where the grade has speeds and matplotlib is
installed.

A submission that does not compile at all is "not gradable" (gradable false, format_errors), so
PrairieLearn does not count the attempt; anything that compiles is graded. A check this backend
cannot run is a test of 0 max_points (unless stage.toml's [points] unearnable = "keep") whose
name says "(skipped here)" and whose message says why; score is points / max_points.

PrairieLearn has no per-test visibility: everything in results.json is shown to the student at
once. So unless the question visibility (RenderOptions.question_visibility) is "visible", the
graded questions are left out of every field -- score, message, output, tests -- and output says
they are graded after the due date (common.student_view, common.question_notice). "visible" puts
them in: for a question whose each graded attempt is a new variant (triesPerVariant 1), whose
numbers come from the variant's seed (autograder.variant_code), or an assessment whose scores
PrairieLearn itself withholds (docs/instructor.md, section 6)."""

from __future__ import annotations

from .. import plot
from .. import view as view_mod
from ..model import GradeReport
from .registry import Format, Platform, RenderOptions, register
from .common import as_json, question_notice, report_lines, student_view, summary_line, test_name, test_output


def images(v: view_mod.ReportView) -> list[dict]:
    url = plot.data_url(plot.report_png(v.stage_gflops(), v.report.submission))
    return [{"label": "GFLOP/s: yours, the reference and cuBLAS, per stage", "url": url}] if url else []


def results(r: GradeReport | view_mod.ReportView, question_visibility: str = RenderOptions.question_visibility) -> dict:
    v = view_mod.of(r)
    r = v.report
    notice = question_notice(r, question_visibility)
    r = student_view(r, question_visibility)   # every field below is shown at once
    if r.status in ("build-failed", "empty", "error"):
        errs = [r.message] + [s.error for s in r.stages if s.error]
        return {"gradable": False, "score": 0.0, "message": summary_line(r),
                "format_errors": [e for e in errs if e]}
    tests = []
    for s in r.stages:
        for c in s.checks:
            tests.append({"name": test_name(s.stage, c),
                          "description": f"{s.title}: {c.check} check on {c.dataset}"
                                         + (" (not run on this backend)" if c.skipped else ""),
                          "points": round(c.points, 4), "max_points": round(c.max_points, 4),
                          "message": c.message if c.passed or c.skipped else c.hint,
                          "output": test_output(c, v)})
    score = r.points / r.max_points if r.max_points else 0.0
    return {"gradable": True, "score": round(min(1.0, max(0.0, score)), 6), "message": summary_line(r),
            "output": "\n".join([*report_lines(r, v), *notice]),
            "tests": tests, "images": images(v)}   # perf checks only: the same in the student's view


# PrairieLearn's recipe (commands/autograder.py runs it): the external grader mounts the student's
# files in /grade/student and reads /grade/results/results.json.
PLATFORM = Platform(root="/grade", root_env="TILELAB_PRAIRIELEARN_ROOT", submission="student",
                    results="results/results.json")

register(Format("prairielearn", "prairielearn.json", lambda r, o: as_json(results(r, o.question_visibility)),
                "PrairieLearn's external-grader results", platform=PLATFORM))
