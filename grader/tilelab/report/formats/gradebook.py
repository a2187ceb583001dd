"""The gradebook of a batch, as CSV (gradebook.csv) and as its web page (index.html, linking each
student's report): one row per student, a column of points per stage, the total, the maximum, the
status (graded, build-failed, timeout, error, empty, pending), a short note, and the grader version
and seed the row's grade was made with (blank where not known).

Every student is graded out of the same maximum: the points of every stage the batch grades, as
the specs give them, whatever the student handed in; a stage they did not hand in (or that never
got graded: an error, an empty submission) counts 0. Only a `pending` row -- a student the batch
has not graded yet, having been stopped -- has blanks: nothing is known about it."""

from __future__ import annotations

import csv
from pathlib import Path

from ..model import GradeReport

TEMPLATES = Path(__file__).parents[1] / "templates"
FIXED = ("student", "status", "total", "max", "note")   # the columns around the stages' (header)
MADE_WITH = ("grader", "seed")
PENDING = "pending"


def header(stage_ids: list[str]) -> list[str]:
    return [*FIXED[:2], *stage_ids, *FIXED[2:], *MADE_WITH]


def row(r: GradeReport, stage_ids: list[str], maxima: dict[str, float] | None = None) -> dict:
    """maxima: each stage's full points (default: what the report itself says)."""
    by = {s.stage: s for s in r.stages}
    maxima = maxima or {sid: by[sid].max_points for sid in stage_ids if sid in by}
    known = r.status != PENDING or bool(r.stages)
    out = {"student": r.submission, "status": r.status,
           "total": f"{sum(by[s].points for s in stage_ids if s in by):.2f}" if known else "",
           "max": f"{sum(maxima.get(s, 0.0) for s in stage_ids):.2f}",
           "note": r.message.splitlines()[0][:200] if r.message else ""}
    for sid in stage_ids:
        out[sid] = f"{by[sid].points:.2f}" if sid in by else ("0.00" if known else "")
    return out


def write(path: Path, reports: list[GradeReport], stage_ids: list[str] | None = None,
          maxima: dict[str, float] | None = None, made: dict[str, dict] | None = None) -> None:
    """made: student -> {"grader": version, "seed": seed} (classbatch.made_with)."""
    if stage_ids is None:
        stage_ids = sorted({s.stage for r in reports for s in r.stages})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header(stage_ids))
        w.writeheader()
        for r in sorted(reports, key=lambda r: r.submission):
            w.writerow(row(r, stage_ids, maxima) | {k: (made or {}).get(r.submission, {}).get(k, "")
                                                    for k in MADE_WITH})
    tmp.replace(path)


def render_index(rows: list[dict], title: str = "tilelab batch", stage_ids: list[str] | None = None,
                 settings: dict | None = None) -> str:
    """The batch's index.html: the batch's settings (backend, stages, seed), then one line per
    student (row's fields) with a column per stage, linking to each report."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    return env.get_template("index.html.j2").render(rows=rows, title=title, stage_ids=stage_ids or [],
                                                    settings=settings or {})
