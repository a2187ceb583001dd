"""One stage's outcome scored under a grade's options: what of the options scoring reads (the
hidden datasets' count, the basis of performance points), handed to score/scoring.py, which
decides every verdict. A stage the grade ran (implementation.grade_stage) and one nothing of which
could be checked (not_checked: no matmul.cu, a batch's maximum per stage) are scored here alike."""

from __future__ import annotations

from ..run import outcome
from ..score.scoring import StageScore, score_stage
from ..specs import spec
from .options import GradeOptions


def hidden_count(stage: spec.Stage, opts: GradeOptions) -> int:
    return stage.hidden.count if opts.hidden and opts.seed and stage.hidden else 0


def scored(stage: spec.Stage, impl: str, what: outcome.Outcome, opts: GradeOptions, backend: str) -> StageScore:
    """The stage's outcome (the engine's, or NotChecked) scored as this grade scores it."""
    return score_stage(stage, impl, what, hidden_count(stage, opts), backend, basis=opts.perf_basis)


def not_checked(stage: spec.Stage, impl: str, why: str, opts: GradeOptions, backend: str) -> StageScore:
    """A stage nothing of which could be checked (no matmul.cu in the submission, a batch's missing
    stage), scored as such (on the default performance basis: nothing of it ran)."""
    return score_stage(stage, impl, outcome.NotChecked(why), hidden_count(stage, opts), backend)
