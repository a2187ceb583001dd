#!/usr/bin/env python3
"""The trace build's checks, CTest kit.trace.* (grader/cmake/TilelabTrace.cmake): run a trace runner
on its stage's examples (tilelab.commands.trace) and check what `tilelab trace` would show.

    trace_check.py --stage S --runner R --work DIR                     a reference solution
    trace_check.py --stage S --runner R --work DIR --expect E.toml     a known-bad submission

A reference solution's table must be the book's kernel's on every example (no difference), and in
02-tiled block0,0's cells must be exactly PMPP 3rd ed. Fig. 4.15's, as typed in from the book
(grader/tests/python/data/trace/pmpp-fig-4.15.toml). A known-bad submission's expect.toml has

    [trace]                 # what the first difference from the book's table must say
    difference = ["block0,0, thread0,0, phase 0", "before any thread of the block stored it"]

and the first difference (of the first example that has one) must contain every string; `same =
true` instead says there must be none (a right kernel written another way). Prints the
table either way (what a student would see), then the verdict; exits 0 when the check holds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

GRADER = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(GRADER))

from tilelab.commands import trace  # noqa: E402
from tilelab.specs.compat import tomllib  # noqa: E402

FIG_4_15 = GRADER / "tests" / "python" / "data" / "trace" / "pmpp-fig-4.15.toml"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", required=True)
    ap.add_argument("--runner", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--expect", type=Path)
    a = ap.parse_args(argv)
    try:
        result = trace.trace_runner(a.runner, a.stage, a.work)
    except trace.TraceError as e:
        print(f"FAIL: {e}")
        return 1
    trace.render(result)
    first = next((ex.difference for ex in result.examples if ex.difference), None)
    if a.expect is None:
        problems = [f"{ex.table.example.shape}: {ex.difference.sentence()}" for ex in result.examples if ex.difference]
        if a.stage == "02-tiled":
            problems += trace.figure_differences(result.examples[0].table, tomllib.loads(FIG_4_15.read_text()))
        for p in problems:
            print(f"FAIL: the reference solution's trace is not the book's: {p}")
        if not problems:
            print("as expected: the reference solution's table is the book's" +
                  (" (block0,0 exactly Fig. 4.15)" if a.stage == "02-tiled" else ""))
        return 1 if problems else 0
    expected = tomllib.loads(a.expect.read_text()).get("trace", {})
    want = expected.get("difference", [])
    if expected.get("same"):
        if first is not None:
            print(f"FAIL: {a.expect.parent.name} should trace as the book's kernel: {first.sentence()}")
            return 1
        print("as expected: the same table as the book's kernel")
        return 0
    if first is None:
        print(f"FAIL: {a.expect.parent.name}: the trace shows no difference from the book's table")
        return 1
    missing = [w for w in want if w not in first.sentence()]
    if missing:
        print(f"FAIL: the first difference does not say {missing}")
        return 1
    print(f"as expected: {first.sentence()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
