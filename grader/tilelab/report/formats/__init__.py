"""Every output format of a GradeReport, and the one registry of them.

A format is one module in this package that calls `register` at import time with a function of
the GradeReport (model.py) and the RenderOptions (a platform's visibility settings): every output
-- `write` (what `grade`, `batch` and `report` write), the CLI's `--format`, the hosted autograders (autograder.py) -- goes
through `render`, and this package imports every module in it, so adding a format touches one file.
Formats never import one another; what several share lives in `common.py`.

Not every module is a per-report file: `terminal.py` prints (it registers nothing) and
`gradebook.py` is a batch's CSV of many reports."""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..model import GradeReport


@dataclass(frozen=True)
class RenderOptions:
    """What a hosting platform lets the instructor set about what students see (docs/instructor.md);
    formats without such controls ignore them."""
    hidden_visibility: str = "after_published"     # the hidden datasets' tests
    question_visibility: str = "after_due_date"    # the graded questions' tests


@dataclass(frozen=True)
class Platform:
    """A hosted autograder's recipe, kept beside the format it reads (commands/autograder.py runs
    it): where the platform puts the submission and reads the results (root_env moves the root,
    for a test that builds the layout in a temporary folder), and the files its image needs."""
    root: str                        # the platform's folder: /autograder, /grade
    root_env: str                    # the variable that moves it
    submission: str                  # under the root: the student's files
    results: str                     # under the root: the results file the platform reads
    files: tuple[tuple[str, str, bool], ...] = ()   # (name, text, executable) of the platform's zip

    def paths(self) -> dict[str, Path]:
        root = Path(os.environ.get(self.root_env) or self.root)
        return {"submission": root / self.submission, "results": root / self.results}


@dataclass(frozen=True)
class Format:
    name: str                                               # what --format names
    filename: str                                           # the file it writes in the output folder
    render: Callable[[GradeReport, RenderOptions], str]     # the file's whole text
    help: str = ""
    platform: Platform | None = None                        # a hosted autograder's recipe, if any


_REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    if fmt.name in _REGISTRY:
        raise ValueError(f"two output formats are called {fmt.name!r}")
    _REGISTRY[fmt.name] = fmt
    return fmt


def get(name: str) -> Format:
    return _REGISTRY[name]


def names() -> list[str]:
    return sorted(_REGISTRY)


def render(report: GradeReport, name: str, options: RenderOptions | None = None) -> str:
    """The text of one registered format for a report: the one path every output takes."""
    return get(name).render(report, options or RenderOptions())


def write(report: GradeReport, out: Path, formats: tuple[str, ...] = ("gradescope", "grade")) -> list[Path]:
    """The files of the registered output formats asked for (results.json, prairielearn.json,
    classroom.json, grade.json, report.html ...), in the folder out; ValueError for a name that is
    not a format, before anything is written."""
    unknown = [f for f in formats if f not in names()]
    if unknown:
        raise ValueError(f"unknown output format(s) {unknown}; the formats are {names()}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in formats:
        fmt = get(name)
        (out / fmt.filename).write_text(render(report, name))
        written.append(out / fmt.filename)
    return written


for _m in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_m.name}")
