"""Gradescope's results.json (the autograder specification): top-level score, output,
execution_time, tests[] and leaderboard[]. Each test carries name, score, max_score, status
("passed"/"failed"), output and visibility; hidden datasets are "after_published" so students
see them once the grades are published. The leaderboard holds each stage's GFLOP/s.

Gradescope knows no "skipped": a check this backend cannot run has no status (Gradescope infers
one from score and max_score), "(skipped here)" in its name and the reason in its output; its
max_score is 0 unless stage.toml's [points] unearnable = "keep". A correct result whose points a
memory-safety finding withheld is "failed"."""

from __future__ import annotations

from . import metrics
from .model import GradeReport
from .scoring import CheckScore

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
HIDDEN_VISIBILITY = "after_published"


def test_name(stage: str, c: CheckScore) -> str:
    return f"{stage} {c.dataset}{' (hidden)' if c.hidden else ''}: {c.check}{' (skipped here)' if c.skipped else ''}"


def test_output(c: CheckScore) -> str:
    lines = [f"{c.verdict}: {c.message}" if c.message else c.verdict]
    if c.hint and c.verdict not in ("pass", "skipped"):
        lines.append(f"Hint: {c.hint}")
    lines += metrics.first_wrong_lines(c)
    m = metrics.of(c)
    if m.gflops is not None:
        lines.append(f"{m.median_ms:.3f} ms, {m.gflops:.0f} GFLOP/s"
                     + (f", {m.pct_of_reference:.0f}% of the reference" if m.pct_of_reference is not None else "")
                     + (f", {m.pct_of_cublas:.1f}% of cuBLAS" if m.pct_of_cublas is not None else ""))
    if m.registers is not None:
        lines.append(f"kernel: {m.registers} registers/thread, {m.shared_bytes or 0} B shared/block, "
                     f"{m.blocks_per_sm} blocks/SM (limited by {m.binding_limit})")
    lines += metrics.model_lines(c, *metrics.book_of(c))
    return "\n".join(lines)


def leaderboard(r: GradeReport) -> list[dict]:
    board = []
    for s in r.stages:
        perf = s.check("perf")
        m = metrics.of(perf) if perf else None
        if perf and perf.passed and m.gflops is not None:
            board.append({"name": f"{s.stage} GFLOP/s", "value": round(m.gflops, 1), "order": "desc"})
    return board


def results(r: GradeReport, hidden_visibility: str = HIDDEN_VISIBILITY) -> dict:
    assert hidden_visibility in VISIBILITIES
    tests = []
    for si, s in enumerate(r.stages, 1):
        for ci, c in enumerate(s.checks, 1):
            test = {
                "name": test_name(s.stage, c),
                "number": f"{si}.{ci}",
                "score": round(c.points, 4),
                "max_score": round(c.max_points, 4),
                "status": "passed" if c.clean_pass else "failed",
                "output": test_output(c),
                "output_format": "text",
                "tags": [s.stage, c.check] + (["skipped"] if c.skipped else []),
                "visibility": hidden_visibility if c.hidden else "visible",
            }
            if c.skipped:
                del test["status"]
            tests.append(test)
    from .table import note_lines, summary_line
    doc = {
        "score": round(r.points, 4),
        "execution_time": int(r.seconds),
        "output": "\n".join([summary_line(r), *note_lines(r)]),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "leaderboard": leaderboard(r),
    }
    if r.status != "graded":
        doc["output"] += "\n" + r.message
    return doc
