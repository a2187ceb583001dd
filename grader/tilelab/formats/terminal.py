"""The terminal view of a GradeReport: one table per stage (dataset, check, verdict, error, time,
GFLOP/s, % of reference, % of cuBLAS, points), then the hint for each failure. Uses rich when it
is installed, plain text otherwise (before ./tilelab setup)."""

from __future__ import annotations

import sys

from .. import metrics
from ..model import GradeReport
from ..scoring import StageScore
from .common import notes, style, summary_line, verdict

COLUMNS = ("dataset", "check", "verdict", "error", "ms", "GFLOP/s", "% of ref", "% of cuBLAS", "points")
STYLE = {"pass": "green", "skipped": "yellow", "fail": "red"}


def rows(s: StageScore) -> list[tuple[str, ...]]:
    out = []
    for c in s.checks:
        m = metrics.of(c)
        out.append((c.dataset + (" (hidden)" if c.hidden else ""), c.check, verdict(c), m.error,
                    metrics.fmt(m.median_ms, ".3f"), metrics.fmt(m.gflops, ".0f"),
                    metrics.fmt(m.pct_of_reference, ".0f", "%"), metrics.fmt(m.pct_of_cublas, ".1f", "%"),
                    "-" if c.skipped and not c.max_points else f"{c.points:.1f}/{c.max_points:.1f}"))
    return out


def _plain(r: GradeReport) -> None:
    for s in r.stages:
        print(f"== {s.stage} ({s.title}): {s.points:.1f} / {s.max_points:.1f}")
        for row in rows(s):
            print("  " + " ".join(f"{v:>10}" if i > 2 else f"{v:14}" for i, v in enumerate(row)))
        for ds, msg, hint in notes(s):
            print(f"  {ds}: {msg}")
            if hint:
                print(f"      hint: {hint}")
    print(summary_line(r))


def print_report(r: GradeReport, file=None) -> None:
    try:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table
    except ImportError:
        return _plain(r)
    console = Console(file=file or sys.stdout)
    if not console.is_terminal:
        console.width = 150  # logs and pipes: keep every column whole
    for s in r.stages:
        t = Table(title=f"{s.stage} -- {s.title}: {s.points:.1f} / {s.max_points:.1f} points",
                  title_justify="left", title_style="bold")
        for col in COLUMNS:
            t.add_column(col, justify="right" if col in ("ms", "GFLOP/s", "% of ref", "% of cuBLAS", "points") else "left")
        for c, row in zip(s.checks, rows(s)):
            colour = STYLE[style(c)]
            t.add_row(*(escape(v) if i != 2 else f"[{colour}]{escape(v)}[/]" for i, v in enumerate(row)))
        console.print(t)
        for ds, msg, hint in notes(s):
            console.print(f"  [bold]{escape(ds)}[/]: {escape(msg)}")
            if hint:
                console.print(f"    [cyan]hint:[/] {escape(hint)}")
    colour = "green" if r.passed else "red"
    console.print(f"[bold {colour}]{escape(summary_line(r))}[/]")


def step_printer():
    """A progress callback for single runs: prints each step, dimmed."""
    def step(text: str) -> None:
        print(f"tilelab: {text} ...", flush=True)
    return step
