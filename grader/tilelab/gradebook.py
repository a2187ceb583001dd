"""The CSV gradebook of a batch: one row per student, a column of points per stage, the total,
the maximum, the status (graded, build-failed, timeout, error, empty) and a short note."""

from __future__ import annotations

import csv
from pathlib import Path

from .model import GradeReport

FIXED = ("student", "status", "total", "max", "note")


def header(stage_ids: list[str]) -> list[str]:
    return ["student", "status", *stage_ids, "total", "max", "note"]


def row(r: GradeReport, stage_ids: list[str]) -> dict:
    by = {s.stage: s for s in r.stages}
    out = {"student": r.submission, "status": r.status, "total": f"{r.points:.2f}",
           "max": f"{r.max_points:.2f}", "note": r.message.splitlines()[0][:200] if r.message else ""}
    for sid in stage_ids:
        out[sid] = f"{by[sid].points:.2f}" if sid in by else ""
    return out


def write(path: Path, reports: list[GradeReport], stage_ids: list[str] | None = None) -> None:
    if stage_ids is None:
        stage_ids = sorted({s.stage for r in reports for s in r.stages})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header(stage_ids))
        w.writeheader()
        for r in sorted(reports, key=lambda r: r.submission):
            w.writerow(row(r, stage_ids))
    tmp.replace(path)
