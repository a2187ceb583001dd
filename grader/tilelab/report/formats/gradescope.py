"""Gradescope's results.json (the autograder specification): top-level score, output,
execution_time, tests[] and leaderboard[]. Each test carries name, score, max_score, status
("passed"/"failed"), output and visibility; hidden datasets are "after_published" so students
see them once the grades are published. The leaderboard holds each stage's GFLOP/s.

Gradescope knows no "skipped": a check this backend cannot run has no status (Gradescope infers
one from score and max_score), "(skipped here)" in its name and the reason in its output; its
max_score is 0 unless stage.toml's [points] unearnable = "keep". A correct result whose points a
memory-safety finding withheld is "failed".

A graded question's test has the question visibility (after_due_date by default), and until it is
"visible" nothing about a question is anywhere else (common.student_view): the top-level output
(summary line, stage lines, diagnoses) and the leaderboard are made without the questions and say
they are graded after the due date (common.question_notice), and the top-level score is left out,
so Gradescope totals the tests' scores -- a total it does not show the student while a test is
hidden (its specification: "If test cases are hidden, students will not be able to see their
total score")."""

from __future__ import annotations

from .. import view as view_mod
from ..model import GradeReport
from ...score.scores import QUESTION
from .registry import Format, Platform, RenderOptions, register
from .common import as_json, has_questions, question_notice, questions_withheld, report_lines, student_view, \
    summary_line, test_name, test_output

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
# The defaults are RenderOptions' (formats/registry.py). A graded question's verdict shown at once
# would let about five resubmissions try every choice: after the due date by default.
HIDDEN_VISIBILITY = RenderOptions.hidden_visibility
QUESTION_VISIBILITY = RenderOptions.question_visibility


def leaderboard(r: GradeReport, v: view_mod.ReportView) -> list[dict]:
    board = []
    for s in r.stages:
        perf = s.check("perf")
        m = v.metrics(perf) if perf else None
        if perf and perf.passed and m.gflops is not None:
            board.append({"name": f"{s.stage} GFLOP/s", "value": round(m.gflops, 1), "order": "desc"})
    return board


def results(r: GradeReport | view_mod.ReportView, hidden_visibility: str = HIDDEN_VISIBILITY,
            question_visibility: str = QUESTION_VISIBILITY) -> dict:
    v = view_mod.of(r)
    r = v.report
    assert hidden_visibility in VISIBILITIES and question_visibility in VISIBILITIES
    tests = []
    for si, s in enumerate(r.stages, 1):
        for ci, c in enumerate(s.checks, 1):
            test = {
                "name": test_name(s.stage, c),
                "number": f"{si}.{ci}",
                "score": round(c.points, 4),
                "max_score": round(c.max_points, 4),
                "status": "passed" if c.clean_pass else "failed",
                "output": test_output(c, v),
                "output_format": "text",
                "tags": [s.stage, c.check] + (["skipped"] if c.skipped else []),
                "visibility": (hidden_visibility if c.hidden else question_visibility if c.check == QUESTION
                               else "visible"),
            }
            if c.skipped:
                del test["status"]
            tests.append(test)
    seen = student_view(r, question_visibility)   # what the visible fields are made of
    doc = {
        "score": round(r.points, 4),
        "execution_time": int(r.seconds),
        "output": "\n".join([summary_line(seen), *report_lines(seen, v), *question_notice(r, question_visibility)]),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "leaderboard": leaderboard(seen, v),
        # What the questions were graded on, for the next submission's cap on attempts
        # (gradescope.earlier_answers reads it back from submission_metadata.json). Stored for
        # the autograder, not shown to students; it holds only the answers the student handed in.
        "extra_data": {"tilelab_answers": r.answers},
    }
    if questions_withheld(question_visibility) and has_questions(r):
        del doc["score"]   # the sum of the tests' scores, questions included, which students do not see
    if r.status != "graded":
        doc["output"] += "\n" + r.message
    return doc


# Gradescope's recipe (commands/autograder.py runs it): the autograder zip's two scripts, and where
# the image keeps the submission and the results.
SETUP_SH = """#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 24.04 base
# image recommended: CMake >= 3.25 and Python >= 3.9 come with it).
set -eu
cd /autograder/source/tilelab
./grader/setup/install-deps.sh
# Build everything but the student's file once (into tilelab/build/autograder), so grading a
# submission compiles only its matmul.cu.
./tilelab gradescope --prepare
"""

RUN_AUTOGRADER = """#!/bin/sh
# Gradescope's entry point, copied to /autograder/run_autograder: grade <here>/submission into
# <here>/results/results.json with the kit in <here>/source/tilelab (<here> is /autograder).
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
exec "$here/source/tilelab/tilelab" gradescope --submission "$here/submission" \\
  --results "$here/results/results.json"
"""

PLATFORM = Platform(root="/autograder", root_env="TILELAB_GRADESCOPE_ROOT", submission="submission",
                    results="results/results.json",
                    files=(("setup.sh", SETUP_SH, True), ("run_autograder", RUN_AUTOGRADER, True)))

register(Format("gradescope", "results.json",
                lambda r, o: as_json(results(r, o.hidden_visibility, o.question_visibility)), "Gradescope's results.json",
                platform=PLATFORM))
