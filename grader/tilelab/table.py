"""The terminal view of a GradeReport: one table per stage (dataset, check, verdict, error, time,
GFLOP/s, % of reference, % of cuBLAS, points), then the hint for each failure. Uses rich when it
is installed, plain text otherwise (before ./tilelab setup)."""

from __future__ import annotations

import sys

from . import metrics
from .model import GradeReport
from .scoring import CheckScore, StageScore, finding

COLUMNS = ("dataset", "check", "verdict", "error", "ms", "GFLOP/s", "% of ref", "% of cuBLAS", "points")
STYLE = {"pass": "green", "skipped": "yellow", "fail": "red"}


def verdict(c: CheckScore) -> str:
    """The verdict as shown: a right result whose points a safety finding withheld says so."""
    return f"{c.verdict} (unsafe)" if c.withheld else c.verdict


def style(c: CheckScore) -> str:
    """pass (green), skipped (yellow: not failed), anything else red."""
    return "pass" if c.clean_pass else "skipped" if c.skipped else "fail"


def rows(s: StageScore) -> list[tuple[str, ...]]:
    out = []
    for c in s.checks:
        m = metrics.of(c)
        out.append((c.dataset + (" (hidden)" if c.hidden else ""), c.check, verdict(c), m.error,
                    metrics.fmt(m.median_ms, ".3f"), metrics.fmt(m.gflops, ".0f"),
                    metrics.fmt(m.pct_of_reference, ".0f", "%"), metrics.fmt(m.pct_of_cublas, ".1f", "%"),
                    "-" if c.skipped and not c.max_points else f"{c.points:.1f}/{c.max_points:.1f}"))
    return out


def stage_model_lines(s: StageScore) -> list[str]:
    """The performance model's counts of the stage's perf-model check, yours beside the reference's."""
    c = s.check("perf-model")
    return metrics.model_lines(c, *metrics.book_of(c)) if c else []


def notes(s: StageScore) -> list[tuple[str, str, str]]:
    """(datasets, message, hint) for the checks that did not pass. A root cause a backend found
    (a race at line N, an out-of-bounds read at line M) comes first, once, with every dataset and
    check that found it; the symptoms (wrong results, with their hints) follow. Checks sharing a
    hint are one note ("w1, w15, w17: wrong on 3 checks"), so a table of failures stays readable."""
    groups: dict[str, list] = {}
    order = []
    root = {c.dataset: "!" + f for c in s.checks if not c.passed and (f := finding(c))}
    for c in s.checks:
        if c.verdict == "pass" and c.points >= c.max_points - 1e-9 and "no performance points" not in c.message:
            continue
        found = finding(c) if not c.passed else ""
        hint = c.hint if c.verdict != "skipped" else ""
        key = ("!" + found if found else root[c.dataset] if c.withheld and c.dataset in root else hint
               or (f"#{c.verdict}:{c.message}" if c.verdict in ("skipped", "compile", "forbidden", "missing")
                   else f"#{c.name}"))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(c)
    order.sort(key=lambda k: not k.startswith("!"))   # root causes first, otherwise in table order
    out = []
    for key in order:
        cs = groups[key]
        names = ", ".join(dict.fromkeys(c.dataset for c in cs))
        if key.startswith("!"):
            found = [c for c in cs if not c.withheld]
            names = ", ".join(dict.fromkeys(c.dataset for c in found))
            msg = f"{', '.join(dict.fromkeys(c.check for c in found))} found {key[1:]}"
            if withheld := [c for c in cs if c.withheld]:
                msg += (f"; unsafe code: {sum(c.withheld for c in withheld):g} correctness points withheld on "
                        + ", ".join(c.dataset for c in withheld))
            out.append((names, msg, found[0].hint))
            continue
        same = all(c.message == cs[0].message for c in cs)
        msg = cs[0].message if len(cs) == 1 or same else f"{cs[0].verdict} on {len(cs)} checks"
        out.append((names, msg, cs[0].hint if not key.startswith("#") else ""))
    return out


def note_lines(r: GradeReport) -> list[str]:
    """Every stage's notes as plain lines (root causes first), for the platforms' summary output."""
    lines = []
    for s in r.stages:
        for ds, msg, hint in notes(s):
            lines.append(f"{s.stage} {ds}: {msg}" + (f"\n    Hint: {hint}" if hint else ""))
    return lines


def summary_line(r: GradeReport) -> str:
    dev = r.device.get("name", "") or ("CPU emulator" if r.backend == "emu" else "")
    head = f"{r.submission}: {r.points:.1f} / {r.max_points:.1f} points on {r.backend}"
    tail = "" if r.status == "graded" else f" -- {r.status}: {r.message.splitlines()[0] if r.message else ''}"
    if r.status == "graded" and r.stages and all(s.all_skipped for s in r.stages):
        tail = " -- nothing was checked here (every check skipped; see ./tilelab doctor)"
    elif r.status == "graded":
        skipped = sum(c.skipped for s in r.stages for c in s.checks)
        kept = sum(s.skipped_points for s in r.stages)
        if skipped:
            tail = (f" -- {skipped} check{'s' * (skipped > 1)} not run on this backend ("
                    + (f"{kept:g} points in the maximum that cannot be earned here)" if kept
                       else "skipped, not failed: their points are left out)"))
    return head + (f" ({dev})" if dev else "") + tail


def _plain(r: GradeReport) -> None:
    for s in r.stages:
        print(f"== {s.stage} ({s.title}): {s.points:.1f} / {s.max_points:.1f}")
        for row in rows(s):
            print("  " + " ".join(f"{v:>10}" if i > 2 else f"{v:14}" for i, v in enumerate(row)))
        for line in stage_model_lines(s):
            print(f"  {line}")
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
        for line in stage_model_lines(s):
            console.print(f"  [magenta]{escape(line)}[/]")
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
