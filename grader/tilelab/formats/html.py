"""The HTML report of one submission (templates/report.html.j2, jinja2): the score, each stage's
checks with verdicts and hints, the kernel's resources, and the GFLOP/s plot embedded as a PNG."""

from __future__ import annotations

from pathlib import Path

from .. import metrics, plot
from ..model import GradeReport
from . import Format, register
from .common import notes, style, summary_line, verdict

TEMPLATES = Path(__file__).parents[1] / "templates"


def context(r: GradeReport) -> dict:
    stages = []
    for s in r.stages:
        checks = []
        for c in s.checks:
            m = metrics.of(c)
            checks.append({"c": c, "m": m, "fmt": metrics.fmt, "wrong": metrics.first_wrong_lines(c),
                           "verdict": verdict(c), "style": style(c)})
        perf = s.check("perf")
        stages.append({"s": s, "checks": checks, "notes": notes(s),
                       "resources": metrics.of(perf) if perf and perf.result else None})
    return {"r": r, "summary": summary_line(r), "stages": stages,
            "plot": plot.data_url(plot.report_png(r)), "device": r.device}


def render(r: GradeReport) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(**context(r))


def render_index(rows: list[dict], title: str = "tilelab batch", stage_ids: list[str] | None = None,
                 settings: dict | None = None) -> str:
    """The batch's index.html: the batch's settings (backend, stages, seed), then one line per
    student (gradebook.row's fields) with a column per stage, linking to each report."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    return env.get_template("index.html.j2").render(rows=rows, title=title, stage_ids=stage_ids or [],
                                                    settings=settings or {})


register(Format("html", "report.html", render, "a web page: verdicts, hints, pictures and charts"))
