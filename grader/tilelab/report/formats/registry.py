"""The registry of output formats: what a format is (Format, and a hosted platform's recipe,
Platform), the options a platform sets (RenderOptions), and the one table of them. A format module
imports this and registers itself; the package (__init__.py) imports every format module and renders
them. Holds no report and builds no view, so a format's imports stay short."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


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
    render: Callable[[Any, RenderOptions], str]   # of the report's view (view.ReportView): the file's whole text
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
