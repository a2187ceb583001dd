"""Every output format of a GradeReport, and the one registry of them.

A format is one module in this package that calls `register` (registry.py) at import time with a function of
the report's view (view.py: the GradeReport, model.py, with its diagnoses and figures computed once)
and the RenderOptions (a platform's visibility settings): every output
-- `write` (what `grade`, `batch` and `report` write), the CLI's `--format`, the hosted autograders (autograder.py) -- goes
through `render`, and this package imports every module in it, so adding a format touches one file.
Formats never import one another; what several share lives in `common.py`.

Not every module is a per-report file: `terminal.py` prints (it registers nothing) and
`gradebook.py` is a batch's CSV of many reports."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from .. import view as view_mod
from ..model import GradeReport
from .registry import Format, Platform, RenderOptions, get, names, register  # noqa: F401  (the package's names)


def render(report: GradeReport | view_mod.ReportView, name: str, options: RenderOptions | None = None) -> str:
    """The text of one registered format for a report: the one path every output takes."""
    return get(name).render(view_mod.of(report), options or RenderOptions())


def write(report: GradeReport | view_mod.ReportView, out: Path, formats: tuple[str, ...] = ("gradescope", "grade")) -> list[Path]:
    """The files of the registered output formats asked for (results.json, prairielearn.json,
    classroom.json, grade.json, report.html ...), in the folder out; ValueError for a name that is
    not a format, before anything is written."""
    unknown = [f for f in formats if f not in names()]
    if unknown:
        raise ValueError(f"unknown output format(s) {unknown}; the formats are {names()}")
    out.mkdir(parents=True, exist_ok=True)
    view = view_mod.of(report)   # once, for every format
    written = []
    for name in formats:
        fmt = get(name)
        (out / fmt.filename).write_text(render(view, name))
        written.append(out / fmt.filename)
    return written


for _m in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_m.name}")
