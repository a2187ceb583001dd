"""The scored values: a check's verdict and points (CheckScore), a stage's checks (StageScore), and
why a check was not run or earned no points (Cause), and the kinds of note a graded question
carries (Note). Frozen: scoring.py decides them, and every
reader (metrics, diagnoses, the report and its formats) takes them as they are."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..run.result import Result

QUESTION = "question"   # the check kind of a graded question's row (quiz.py)
PERF_CHECKS = ("perf", "perf-model")


class Cause(str, Enum):
    """Why a check was not run or earned no points, where scoring decides it and the reports act on
    it (diagnoses.py): data, so that no reader has to recognise scoring's sentences. A check's
    message still says it in words; its `cause` says which. Written to grade.json as its value."""
    HUNG = "hung"                             # not run: the kernel hung on another dataset (Hung)
    NO_REFERENCE = "no-reference"             # passed; no performance points: no speed to compare with
    PERF_GATED = "perf-gated"                 # passed; no performance points: the stage is not all correct and safe
    REMOVED_CUDA_CALL = "removed-cuda-call"   # did not compile: it calls a CUDA function removed from CUDA


class Note(str, Enum):
    """What kind of note a graded question's message carries besides its verdict (quiz.py writes
    each one's text into the message and onto the check, CheckScore.notes): data, so that no format
    has to find the quiz's sentences. Written to grade.json as its value."""
    # Of answers.toml as a whole, not of which answer is right, so that the student may put it
    # right: the platforms show these while the questions are withheld (formats.common.question_notice).
    WRONG_CODE = "wrong-code"         # the answers were written for another quiz code than the student's
    ATTEMPTS_USED = "attempts-used"   # the cap on attempts was reached: an earlier submission's answers are graded
    # A predict-then-measure question's comparison: the prediction beside the kernel measured and the
    # book's figure, shown with the model's counts (formats.common.stage_model_lines).
    COMPARISON = "comparison"


@dataclass(frozen=True)
class CheckScore:
    name: str           # <impl>.<stage>.<dataset>.<check>
    dataset: str
    check: str
    verdict: str        # pass, wrong, error, timeout, bad_input (answers.toml), skipped, crash, missing,
                        # compile, forbidden, grading_error (the grader's failure, result.GRADING_ERROR)
    points: float
    max_points: float
    message: str = ""
    hint: str = ""
    result: Result | None = None
    hidden: bool = False
    withheld: float = 0.0   # points a memory-safety finding took from this check (safety_penalty)
    cause: Cause | None = None   # why it was not run or earned no points, where a report acts on it
    notes: tuple[tuple[Note, str], ...] = ()   # a graded question's notes besides its verdict: (kind, text)

    def __post_init__(self):
        if isinstance(self.cause, str) and not isinstance(self.cause, Cause):   # read back from grade.json
            object.__setattr__(self, "cause", Cause(self.cause))
        object.__setattr__(self, "notes", tuple((Note(kind), text) for kind, text in self.notes))   # from grade.json too

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def skipped(self) -> bool:
        """Not run on this backend: neither passed nor failed (every output format says so)."""
        return self.verdict == "skipped"

    @property
    def clean_pass(self) -> bool:
        """Passed and kept its points: what the platforms that know only pass/fail call passed."""
        return self.passed and self.withheld == 0


@dataclass(frozen=True)
class StageScore:
    """One stage's checks as score_stage decided them; read-only, like every CheckScore in it (a
    changed copy is made with dataclasses.replace)."""
    stage: str
    checks: tuple[CheckScore, ...] = ()
    title: str = ""
    error: str = ""     # why the stage could not be checked at all (build failed, forbidden call)

    def __post_init__(self):
        object.__setattr__(self, "checks", tuple(self.checks))   # a list handed in is not kept

    @property
    def points(self) -> float:
        return sum(c.points for c in self.checks)

    @property
    def max_points(self) -> float:
        return sum(c.max_points for c in self.checks)

    @property
    def skipped_points(self) -> float:
        """Points of checks this backend could not run that are still in max_points ("keep")."""
        return sum(c.max_points for c in self.checks if c.skipped)

    @property
    def passed(self) -> bool:
        return not self.error and all(c.verdict == "pass" for c in self.checks if c.verdict != "skipped")

    @property
    def only_unanswered(self) -> bool:
        """Every check of the kernel passed; what is missing is answers.toml's questions."""
        open_ = [c for c in self.checks if c.verdict not in ("pass", "skipped")]
        return (not self.error and bool(open_)
                and all(c.check == QUESTION and c.verdict == "missing" for c in open_))

    @property
    def all_skipped(self) -> bool:
        return bool(self.checks) and all(c.verdict == "skipped" for c in self.checks)

    def check(self, kind: str) -> CheckScore | None:
        """The first check of a kind (e.g. 'perf'), or None."""
        return next((c for c in self.checks if c.check == kind), None)
