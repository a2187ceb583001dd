"""GradeReport: everything one grading run found, as plain data. Every output format (terminal
table, Gradescope, PrairieLearn, CSV, HTML) is a function of it, and it round-trips through JSON
(grade.json) so a batch can resume and re-render without re-running anything."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..run.result import Result
from ..specs.contract import SCHEMAS
from ..score.scores import CheckScore, StageScore

FORMAT = SCHEMAS["grade"]
# A check's fields written to grade.json only where set (not None, not empty): `cause` (scores.Cause)
# and a graded question's `notes` (scores.Note) are what few checks have.
OMITTED_WHEN_UNSET = ("cause", "notes")


@dataclass(frozen=True)
class GradeReport:
    """Read-only, as the scores in it: a changed copy (a batch's row name, the scrubbed messages) is
    made with dataclasses.replace."""
    submission: str                     # a student's name, or "starter"/"solution"
    impl: str
    backend: str                        # gpu | emu
    stages: tuple[StageScore, ...] = ()
    status: str = "graded"              # graded | build-failed | timeout | error | empty
    message: str = ""                   # why, when status is not "graded"
    hidden: bool = False
    device: dict = field(default_factory=dict)
    seconds: float = 0.0
    digest: str = ""                    # of the submitted files (batch resume)
    answers: dict = field(default_factory=dict)   # stage -> the answers graded ({"code", "values"}; quiz.py)

    def __post_init__(self):
        object.__setattr__(self, "stages", tuple(self.stages))   # a list handed in is not kept

    @property
    def points(self) -> float:
        return sum(s.points for s in self.stages)

    @property
    def max_points(self) -> float:
        return sum(s.max_points for s in self.stages)

    @property
    def passed(self) -> bool:
        return self.status == "graded" and bool(self.stages) and all(s.passed for s in self.stages)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "stages"}
        d["stages"] = [{f.name: getattr(s, f.name) for f in dataclasses.fields(s) if f.name != "checks"}
                       | {"checks": [{f.name: getattr(c, f.name) if f.name != "result" else
                                      (c.result.raw if c.result else None) for f in dataclasses.fields(c)
                                      if f.name not in OMITTED_WHEN_UNSET or getattr(c, f.name) not in (None, ())}
                                     for c in s.checks]} for s in self.stages]
        d = copy.deepcopy(d)
        d["format"] = FORMAT
        d["points"], d["max_points"], d["passed"] = self.points, self.max_points, self.passed
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "GradeReport":
        if d.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} document")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names and k != "stages"}
        stage_names = {f.name for f in dataclasses.fields(StageScore)}
        check_names = {f.name for f in dataclasses.fields(CheckScore)}
        stages = []
        for s in d.get("stages", []):
            checks = [CheckScore(**{k: v for k, v in c.items() if k in check_names and k != "result"},
                                 result=Result.parse(c["result"]) if isinstance(c.get("result"), dict) else None)
                      for c in s.get("checks", [])]
            stages.append(StageScore(**{k: v for k, v in s.items() if k in stage_names and k != "checks"},
                                     checks=checks))
        return cls(stages=stages, **kw)


def device_of(stages: Iterable[StageScore]) -> dict:
    """The device block of the first result that has one (all checks of a run share a device)."""
    for s in stages:
        for c in s.checks:
            if c.result and c.result.device:
                return c.result.device
    return {}
