"""The terminal view of a GradeReport. Per stage: one line (verdict, points), then its diagnoses
(diagnoses.py: the distinct problems, root causes first) -- what a student reads in ten seconds,
on one screen. The full table (dataset, check, verdict, error, time, GFLOP/s, % of reference,
% of cuBLAS, points) is one flag away (`--table`). Uses rich when it is installed, plain text
otherwise (before ./tilelab setup)."""

from __future__ import annotations

import sys

from .. import view as view_mod, wrongmap
from ...score import metrics
from ..model import GradeReport
from ...score.scores import StageScore
from .common import diagnosis_lines, stage_line, stage_model_lines, style, summary_line, verdict

COLUMNS = ("dataset", "check", "verdict", "error", "ms", "GFLOP/s", "% of ref", "% of cuBLAS", "points")
STYLE = {"pass": "green", "skipped": "yellow", "fail": "red"}
SHOWN = 3          # diagnoses printed per stage; the rest are counted
SCREEN = 40        # a failing stage's output fits in this many lines (its line, diagnoses, map, summary)
WIDTH = 100        # plain text and logs wrap here


def rows(s: StageScore, v: view_mod.ReportView) -> list[tuple[str, ...]]:
    out = []
    for c in s.checks:
        m = v.metrics(c)
        out.append((c.dataset + (" (hidden)" if c.hidden else ""), c.check, verdict(c), m.error,
                    metrics.fmt(m.median_ms, ".3f"), metrics.fmt(m.gflops, ".0f"),
                    metrics.fmt(m.pct_of_reference, ".0f", "%"), metrics.fmt(m.pct_of_cublas, ".1f", "%"),
                    "-" if c.skipped and not c.max_points else f"{c.points:.1f}/{c.max_points:.1f}"))
    return out


def stage_lines(s: StageScore, v: view_mod.ReportView, width: int = WIDTH, table: bool = False) -> list[str]:
    """A stage's diagnoses, wrapped, at most SHOWN of them; the performance model's counts (all of
    them with the table, else the CGMA and the modelled times); then a small map of the wrong
    elements where P is small enough to draw."""
    lines = diagnosis_lines(s, v, width, SHOWN)
    lines += ["  " + m for m in stage_model_lines(s, brief=not table)]
    return lines + ["  " + line for line in wrongmap.terminal_lines(s, SCREEN - 2 - len(lines))]


def _plain(v: view_mod.ReportView, table: bool, out) -> None:
    r = v.report
    for s in r.stages:
        print(stage_line(s), file=out)
        if table:
            for row in rows(s, v):
                print("  " + " ".join(f"{v:>10}" if i > 2 else f"{v:14}" for i, v in enumerate(row)), file=out)
        for line in stage_lines(s, v, table=table):
            print(line, file=out)
    print(summary_line(r), file=out)


def print_report(r: GradeReport | view_mod.ReportView, file=None, table: bool = False) -> None:
    """table: the full table of checks too (every dataset x check), not only the diagnoses."""
    v = view_mod.of(r)
    r = v.report
    try:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table
    except ImportError:
        return _plain(v, table, file or sys.stdout)
    console = Console(file=file or sys.stdout, highlight=False)
    if not console.is_terminal:
        console.width = 150 if table else WIDTH  # logs and pipes: keep every column whole
    for s in r.stages:
        colour = STYLE["pass" if s.passed and not s.all_skipped else "skipped" if s.all_skipped else "fail"]
        console.print(f"[bold {colour}]{escape(stage_line(s))}[/]")
        if table:
            t = Table(title_justify="left")
            for col in COLUMNS:
                t.add_column(col, justify="right" if col in ("ms", "GFLOP/s", "% of ref", "% of cuBLAS", "points") else "left")
            for c, row in zip(s.checks, rows(s, v)):
                t.add_row(*(escape(v) if i != 2 else f"[{STYLE[style(c)]}]{escape(v)}[/]" for i, v in enumerate(row)))
            console.print(t)
        for line in stage_lines(s, v, min(console.width, WIDTH), table):
            console.print(escape(line), soft_wrap=True)
    colour = "green" if r.passed else "red"
    console.print(f"[bold {colour}]{escape(summary_line(r))}[/]")


def step_printer():
    """A progress callback for single runs: prints each step, dimmed."""
    def step(text: str) -> None:
        print(f"tilelab: {text} ...", flush=True)
    return step
