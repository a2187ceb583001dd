"""What every output format shows of a report besides the report itself, computed once: each
stage's diagnoses (score/diagnoses.py: its distinct problems, root causes first) and each check's
figures (score/metrics.py). The registry (formats.render, formats.write) and the terminal build one
ReportView per report and hand it to the formats, which read it and never call diagnoses or
metrics themselves; a format that shows a changed copy of a stage (the student's view without the
withheld questions, formats/common.py) gets that copy's diagnoses computed once too."""

from __future__ import annotations

from ..score import diagnoses as diagnoses_mod, metrics as metrics_mod
from ..score.scores import CheckScore, StageScore
from .model import GradeReport


class ReportView:
    """A report and what the formats show of it. Read-only; keyed by the very stage and check
    objects (scores are frozen, so a stage's diagnoses cannot change after they are computed)."""

    def __init__(self, report: GradeReport):
        self.report = report
        self._diagnoses: dict[int, tuple[StageScore, tuple[diagnoses_mod.Diagnosis, ...]]] = {}
        self._metrics: dict[int, tuple[CheckScore, metrics_mod.Metrics]] = {}
        for s in report.stages:
            self.diagnoses(s)
            for c in s.checks:
                self.metrics(c)

    def diagnoses(self, s: StageScore) -> tuple[diagnoses_mod.Diagnosis, ...]:
        """The stage's diagnoses, root causes first."""
        if id(s) not in self._diagnoses:
            self._diagnoses[id(s)] = (s, tuple(diagnoses_mod.of_stage(s)))   # the stage is kept: its id stays its own
        return self._diagnoses[id(s)][1]

    def diagnosis_of(self, s: StageScore, c: CheckScore) -> diagnoses_mod.Diagnosis | None:
        """The stage's diagnosis that a check is part of (the platforms' per-check text), or None."""
        return next((d for d in self.diagnoses(s) if c.name in d.names), None)

    def stage_gflops(self) -> list[tuple[str, float | None, float | None, float | None]]:
        """(stage, yours, reference, cuBLAS) GFLOP/s, from each stage's perf check (plot.report_png)."""
        out = []
        for s in self.report.stages:
            perf = s.check("perf")
            if perf is None or not perf.result or not perf.result.timing:
                continue
            m = self.metrics(perf)
            out.append((s.stage, m.gflops, m.reference_gflops, m.cublas_gflops))
        return out

    def metrics(self, c: CheckScore) -> metrics_mod.Metrics:
        """The check's figures: time, speed, its share of the reference's and cuBLAS's, resources."""
        if id(c) not in self._metrics:
            self._metrics[id(c)] = (c, metrics_mod.of(c))
        return self._metrics[id(c)][1]


def of(report: GradeReport | ReportView) -> ReportView:
    """The report's view (a view is its own)."""
    return report if isinstance(report, ReportView) else ReportView(report)
