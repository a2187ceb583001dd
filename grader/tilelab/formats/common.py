"""What several output formats share: how a check is named and described on the platforms, the
verdict as shown, and the report's one-line summary. A function of the GradeReport only."""

from __future__ import annotations

import json

from .. import metrics
from ..model import GradeReport
from ..scoring import CheckScore, StageScore, finding


def as_json(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"


def verdict(c: CheckScore) -> str:
    """The verdict as shown: a right result whose points a safety finding withheld says so."""
    return f"{c.verdict} (unsafe)" if c.withheld else c.verdict


def style(c: CheckScore) -> str:
    """pass (green), skipped (yellow: not failed), anything else red."""
    return "pass" if c.clean_pass else "skipped" if c.skipped else "fail"


def test_name(stage: str, c: CheckScore) -> str:
    """A check's name on the platforms: '02-tiled w17 (hidden): emu (skipped here)'."""
    return f"{stage} {c.dataset}{' (hidden)' if c.hidden else ''}: {c.check}{' (skipped here)' if c.skipped else ''}"


def test_output(c: CheckScore) -> str:
    """A check's text on the platforms: the verdict, the hint, the first wrong elements, speed, resources."""
    lines = [f"{c.verdict}: {c.message}" if c.message else c.verdict]
    if c.hint and c.verdict not in ("pass", "skipped"):
        lines.append(f"Hint: {c.hint}")
    lines += metrics.first_wrong_lines(c)
    m = metrics.of(c)
    if m.gflops is not None:
        lines.append(f"{m.median_ms:.3f} ms, {m.gflops:.0f} GFLOP/s"
                     + (f", {m.pct_of_reference:.0f}% of the reference" if m.pct_of_reference is not None else "")
                     + (f", {m.pct_of_cublas:.1f}% of cuBLAS" if m.pct_of_cublas is not None else ""))
    if m.registers is not None:
        lines.append(f"kernel: {m.registers} registers/thread, {m.shared_bytes or 0} B shared/block, "
                     f"{m.blocks_per_sm} blocks/SM (limited by {m.binding_limit})")
    return "\n".join(lines)


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
