"""A grade's graded questions (score/quiz.py scores them, from answers.toml beside matmul.cu),
added after each stage's kernel checks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .. import ROOT
from ..report.model import device_of
from ..run import measure as measure_mod
from ..run.tree import Tree
from ..score import quiz
from ..score.scores import StageScore
from .options import GradeOptions


def with_questions(stages: list[StageScore], all_stages: dict, impl: str, sub_root: Path | None,
                   opts: GradeOptions, tree: Tree | None = None,
                   backend: str = "emu") -> tuple[list[StageScore], dict]:
    """The stages with their graded questions' checks after the kernel's, and the answers graded by
    stage. The reference solution answers none (its checks are the kernel's); the numbers are the
    student's own when the seed and the student are known, or the platform names the code (a
    PrairieLearn variant's), else those of the code in answers.toml (flagged UNVERIFIED where a key
    grades them)."""
    if impl == "solution":
        return stages, {}
    code = quiz.code_for(opts.seed, opts.student) if opts.seed and opts.student else opts.quiz_code or None
    device = device_of(stages)
    out, answers = [], {}
    for score in stages:
        stage = all_stages[score.stage]
        folder = (sub_root if sub_root else ROOT / "starter") / stage.id
        ans, notes = quiz.attempt(quiz.read_answers(folder / quiz.ANSWERS, stage.id),
                                 opts.earlier_answers.get(stage.id, []), opts.question_attempts)
        if not ans.problem:
            answers[stage.id] = quiz.as_record(ans)
        questions = quiz.score(stage, impl, folder / quiz.ANSWERS, stage.points.questions, code, device,
                               answers=ans, notes=notes,
                               measure=measure_mod.measurer(tree, impl, stage.id) if tree and not opts.quick else None,
                               on_gpu=backend == "gpu")
        out.append(replace(score, checks=score.checks + tuple(questions)))
    return out, answers
