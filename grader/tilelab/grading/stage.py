"""One stage graded: the engine's outcome (run/engine.py) scored (score/scoring.py decides every
verdict). The one place the two meet."""

from __future__ import annotations

from ..run import engine, outcome
from ..run.tree import Tree
from ..score.scoring import StageScore, score_stage
from ..specs import spec
from .options import GradeOptions


def hidden_count(stage: spec.Stage, opts: GradeOptions) -> int:
    return stage.hidden.count if opts.hidden and opts.seed and stage.hidden else 0


def run_options(opts: GradeOptions) -> engine.RunOptions:
    """What the engine reads of a grade's options."""
    return engine.RunOptions(quick=opts.quick, build_timeout=opts.build_timeout, check_timeout=opts.check_timeout,
                             on_step=opts.on_step)


def grade_stage(tree: Tree, stage: spec.Stage, impl: str, backend: str, registered, opts: GradeOptions) -> StageScore:
    """Build and run the stage in the tree, then score what became of it."""
    return score_stage(stage, impl, engine.stage_outcome(tree, stage, impl, backend, registered, run_options(opts)),
                       hidden_count(stage, opts), backend, basis=opts.perf_basis)


def not_checked(stage: spec.Stage, impl: str, why: str, opts: GradeOptions, backend: str) -> StageScore:
    """A stage nothing of which could be checked (no matmul.cu in the submission, a batch's missing
    stage), scored as such."""
    return score_stage(stage, impl, outcome.NotChecked(why), hidden_count(stage, opts), backend)
