"""What several output formats share: how a check is named and described on the platforms, the
verdict as shown, and the report's one-line summary. A function of the GradeReport and its view
(view.py: the diagnoses and figures, computed once) only."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

from ...score import metrics
from ..model import GradeReport
from ...run.result import Finding
from ...score.scores import QUESTION, CheckScore, Note, StageScore


def as_json(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"


# What a student sees instead of the graded questions while their verdicts wait for the due date.
QUESTIONS_LATER = ("graded questions (answers.toml): graded after the due date; their points are not in "
                   "these totals")


def questions_withheld(question_visibility: str) -> bool:
    """Whether the graded questions' results wait (RenderOptions.question_visibility other than
    "visible"): a verdict shown at once lets a few resubmissions try every choice (issue #42)."""
    return question_visibility != "visible"


def student_view(r: GradeReport, question_visibility: str) -> GradeReport:
    """The report as the fields every student sees at once may show it (Gradescope's top-level
    output and the tests' summary, PrairieLearn's whole results): while the questions are withheld
    their checks are left out, so the summary line, the stage lines and verdicts, the diagnoses,
    the totals and the leaderboard made from it carry no question's id, verdict, message or points.
    A question's own test, where the platform has one, keeps the question's visibility."""
    if not questions_withheld(question_visibility):
        return r
    # A stage with no question is kept as it is: the report's view (view.py) already holds its diagnoses.
    return replace(r, stages=[replace(s, checks=tuple(c for c in s.checks if c.check != QUESTION))
                              if any(c.check == QUESTION for c in s.checks) else s for s in r.stages])


def has_questions(r: GradeReport) -> bool:
    return any(c.check == QUESTION for s in r.stages for c in s.checks)


def question_notice(r: GradeReport, question_visibility: str) -> list[str]:
    """What the student sees instead of withheld questions: QUESTIONS_LATER, and per stage what is
    wrong with answers.toml as a whole -- missing or unreadable, written for another quiz code,
    or not this submission's (the cap on attempts) -- which the student can still put right and
    which says nothing of which answer is right. [] when nothing is withheld."""
    if not questions_withheld(question_visibility) or not has_questions(r):
        return []
    lines = [QUESTIONS_LATER]
    for s in r.stages:
        qs = [c for c in s.checks if c.check == QUESTION]
        problem = next((c.message.splitlines()[0] for c in qs if c.verdict in ("missing", "bad_input")), "")
        notes = [problem] if problem else []
        for kind in (Note.WRONG_CODE, Note.ATTEMPTS_USED):   # the quiz gives each graded question the same ones
            notes += next(([text] for c in qs for k, text in c.notes if k == kind), [])
        lines += [f"  {s.stage}: {n}" for n in notes]
    return lines


def verdict(c: CheckScore) -> str:
    """The verdict as shown: a right result whose points a safety finding withheld says so."""
    return f"{c.verdict} (unsafe)" if c.withheld else c.verdict


def style(c: CheckScore) -> str:
    """pass (green), skipped (yellow: not failed), anything else red."""
    return "pass" if c.clean_pass else "skipped" if c.skipped else "fail"


def test_name(stage: str, c: CheckScore) -> str:
    """A check's name on the platforms: '02-tiled w17 (hidden): emu (skipped here)'."""
    return f"{stage} {c.dataset}{' (hidden)' if c.hidden else ''}: {c.check}{' (skipped here)' if c.skipped else ''}"


def test_output(c: CheckScore, v) -> str:
    """A check's text on the platforms: the verdict, the hint, the first wrong elements, speed, resources
    (v: the report's view, view.ReportView, which holds the figures)."""
    lines = [f"{c.verdict}: {c.message}" if c.message else c.verdict]
    if c.hint and c.verdict not in ("pass", "skipped"):
        lines.append(f"Hint: {c.hint}")
    lines += metrics.first_wrong_lines(c)
    m = v.metrics(c)
    if m.gflops is not None:
        lines.append(f"{m.median_ms:.3f} ms, {m.gflops:.0f} GFLOP/s"
                     + (f", {m.pct_of_reference:.0f}% of the reference" if m.pct_of_reference is not None else "")
                     + (f", {m.pct_of_cublas:.1f}% of cuBLAS" if m.pct_of_cublas is not None else ""))
    if m.registers is not None:
        lines.append(f"kernel: {m.registers} registers/thread, {m.shared_bytes or 0} B shared/block, "
                     f"{m.blocks_per_sm} blocks/SM (limited by {m.binding_limit})")
    lines += metrics.model_lines(c)
    lines += [warning_text(w) for w in (c.result.warnings if c.result else ())]
    return "\n".join(lines)


def stage_model_lines(s: StageScore, brief: bool = False) -> list[str]:
    """The performance model's counts of the stage's perf-model check, yours beside the reference's
    and the book's (docs/performance.md, "The model"; brief: the CGMA and the modelled times only,
    metrics.model_lines), then the predict-then-measure questions' comparisons (quiz.comparison),
    right or wrong; [] where the stage has neither."""
    c = s.check("perf-model")
    return (metrics.model_lines(c, brief) if c else []) + [
        text for q in s.checks if q.check == QUESTION for kind, text in q.notes if kind == Note.COMPARISON]


def summary_line(r: GradeReport) -> str:
    dev = r.device.get("name", "") or ("CPU emulator" if r.backend == "emu" else "")
    head = f"{r.submission}: {r.points:.1f} / {r.max_points:.1f} points on {r.backend}"
    tail = "" if r.status == "graded" else f" -- {r.status}: {r.message.splitlines()[0] if r.message else ''}"
    if r.status == "graded" and r.stages and all(s.all_skipped for s in r.stages):
        tail = " -- nothing was checked here (every check skipped; see ./tilelab doctor)"
    elif r.status == "graded":
        skipped = sum(c.skipped for s in r.stages for c in s.checks)
        kept = sum(s.skipped_points for s in r.stages)
        if skipped:
            tail = (f" -- {skipped} check{'s' * (skipped > 1)} not run on this backend ("
                    + (f"{kept:g} points in the maximum that cannot be earned here)" if kept
                       else "skipped, not failed: their points are left out)"))
    return head + (f" ({dev})" if dev else "") + tail


UNANSWERED = "kernel passed, questions unanswered"


def stage_verdict(s: StageScore) -> str:
    """'passed', 'failed', 'not checked here' (every check skipped on this backend), or UNANSWERED
    (a right kernel handed in without answers.toml: not a failure of the kernel)."""
    if s.all_skipped:
        return "not checked here"
    return "passed" if s.passed else UNANSWERED if s.only_unanswered else "failed"


# A stage's colour, as style() gives a check's, for each stage_verdict.
STAGE_STYLE = {"passed": "pass", "not checked here": "skipped", UNANSWERED: "skipped", "failed": "fail"}


def stage_style(s: StageScore) -> str:
    return STAGE_STYLE[stage_verdict(s)]


def stage_line(s: StageScore) -> str:
    """The one line a stage gets: '02-tiled -- Tiled matrix multiplication: failed, 3.0 / 10.0 points'."""
    return f"{s.stage} -- {s.title}: {stage_verdict(s)}, {s.points:.1f} / {s.max_points:.1f} points"


def diagnosis_lines(s: StageScore, v, width: int | None = None, shown: int | None = None) -> list[str]:
    """A stage's diagnoses (diagnoses.py, as the report's view v holds them: view.ReportView) as numbered lines, root causes first: the headline, the
    first instance, the points withheld and the hint. width wraps them (the terminal); shown
    limits how many are written, the rest counted."""
    ds = v.diagnoses(s)
    out: list[str] = []

    def put(text: str, first: str, rest: str, most: int) -> None:
        if width is None:
            out.append(first + text)
        else:
            out.extend((textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest,
                                      break_on_hyphens=False) or [first])[:most])

    for i, d in enumerate(ds[:shown], 1):
        put(d.headline(), f"  {i}. ", "     ", 3)
        if d.detail:
            put(d.detail, "     ", "     ", 3)
        if d.withheld:
            put(f"unsafe code: {d.withheld:g} correctness points withheld", "     ", "     ", 1)
        if d.hint:
            put(d.hint, "     Hint: ", "           ", 5)
    if shown is not None and len(ds) > shown:
        out.append(f"  ... and {len(ds) - shown} more (./tilelab grade --table, or the HTML report)")
    for w in warnings_of(s):
        put(warning_text(w), "  ", "    ", 4)
    return out


def warnings_of(s: StageScore) -> list[Finding]:
    """The stage's warnings (the emulator's: they cost no points), one per kind and line, in the
    order the checks ran."""
    seen: dict[tuple[str, str], Finding] = {}
    for c in s.checks:
        for w in (c.result.warnings if c.result else ()):
            seen.setdefault((w.kind, w.where), w)
    return list(seen.values())


def warning_text(w: Finding) -> str:
    """'Warning (no points lost): duplicate-store at matmul.cu:40: <message> <advice>'."""
    where = f" at {w.where}" if w.where else ""
    body = " ".join(x for x in (w.message, w.advice) if x)
    return f"Warning (no points lost): {w.kind}{where}" + (f": {body}" if body else "")


def report_lines(r: GradeReport, v) -> list[str]:
    """Every stage's line and diagnoses (v: the report's view), for the platforms' summary output."""
    lines = []
    for s in r.stages:
        lines += [stage_line(s), *diagnosis_lines(s, v)]
    return lines
