"""The HTML report of one submission (templates/report.html.j2, jinja2): the score; per stage its
diagnoses (diagnoses.py), a map of P's wrong elements with the tile grid (wrongmap.py), the speed
against the reference, previous stage and cuBLAS, the kernel's resources and occupancy, and the
full table of checks one click away. Images are PNGs embedded as data URLs: one file, no fetches."""

from __future__ import annotations

from pathlib import Path

from .. import plot, view as view_mod, wrongmap
from ...score import metrics
from ..model import GradeReport
from .registry import Format, register
from .common import stage_model_lines, stage_style, stage_verdict, style, summary_line, verdict, warning_text, warnings_of

TEMPLATES = Path(__file__).parents[1] / "templates"


def _occupancy(s):
    """The kernel's resources and occupancy from the first check that reports them (the perf run
    first): registers, shared memory, blocks per SM and which limit binds (PMPP 4.7)."""
    for c in sorted(s.checks, key=lambda c: c.check != "perf"):
        launch = c.result.launch if c.result else None
        if launch and launch.occupancy and launch.registers_per_thread is not None:
            return {"launch": launch, "occ": launch.occupancy, "check": c}
    return None


def _map(s):
    c = wrongmap.smallest_wrong(s, at_least=2)
    png = wrongmap.png(c) if c else None
    return {"url": plot.data_url(png), "caption": wrongmap.caption(c)} if png else None


def context(r: GradeReport | view_mod.ReportView) -> dict:
    v = view_mod.of(r)
    r = v.report
    stages = []
    for s in r.stages:
        checks = []
        for c in s.checks:
            m = v.metrics(c)
            checks.append({"c": c, "m": m, "fmt": metrics.fmt, "wrong": metrics.first_wrong_lines(c),
                           "verdict": verdict(c), "style": style(c)})
        perf = s.check("perf")
        stages.append({"s": s, "checks": checks, "diagnoses": v.diagnoses(s),
                       "warnings": [warning_text(w) for w in warnings_of(s)], "verdict": stage_verdict(s), "style": stage_style(s),
                       "map": _map(s), "speed": plot.data_url(plot.stage_png(s.stage, perf)),
                       "occupancy": _occupancy(s), "model": stage_model_lines(s),
                       "resources": v.metrics(perf) if perf and perf.result else None})
    return {"r": r, "summary": summary_line(r), "stages": stages,
            "plot": plot.data_url(plot.report_png(v.stage_gflops(), r.submission)), "device": r.device}


def render(r: GradeReport | view_mod.ReportView) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(**context(r))


register(Format("html", "report.html", lambda r, o: render(r), "a web page: verdicts, hints, pictures and charts"))
