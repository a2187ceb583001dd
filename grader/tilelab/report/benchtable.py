"""The one speed table: a row per run (stage, its size or shape, verdict, and its speed as every
report reads it, metrics.Metrics): `tilelab bench` prints it, and so does this module, over a folder
of runner results (used after a GPU run, where rich may be missing).

    python3 -m tilelab.report.benchtable BENCH_DIR [RESULTS_DIR]
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ..score import metrics
from ..run import ctest_results as results_mod

HEADER = (f"{'stage':16} {'size':>16} {'verdict':8} {'ms':>9} {'GFLOP/s':>9} {'cuBLAS':>9} {'%cuBLAS':>8} "
          f"{'%peak':>6}")


def speed_lines(rows: Iterable[tuple[str, str, str, metrics.Metrics]]) -> list[str]:
    """The header and a line per (stage, size, verdict, speed); a figure the run did not give is blank."""
    f = lambda v, s: "" if v is None else format(v, s)  # noqa: E731
    return [HEADER] + [f"{stage:16} {size:>16} {verdict:8} {f(m.median_ms, '.3f'):>9} {f(m.gflops, '.0f'):>9} "
                       f"{f(m.cublas_gflops, '.0f'):>9} {f(m.pct_of_cublas, '.1f'):>8} {f(m.pct_of_peak, '.1f'):>6}"
                       for stage, size, verdict, m in rows]


def bench_rows(folder: Path) -> list[str]:
    """The speed table of every runner result in the folder (J x K x L as its size)."""
    found = [r for f in sorted(folder.glob("*.json")) if (r := results_mod.load(f)) is not None]
    return speed_lines((r.stage or "?", r.shape_text, r.verdict, metrics.of_result(r)) for r in found)


def verdict_counts(folder: Path) -> list[str]:
    c = Counter()
    wrong = []
    for f in sorted(folder.glob("*.json")):
        if (r := results_mod.load(f)) is None:
            continue
        c[f"{r.impl}:{r.verdict}"] += 1
        if r.impl == "solution" and r.verdict != "pass":
            wrong.append(f"  {f.stem}: {r.verdict} {r.message}")
    return [f"verdicts: {dict(sorted(c.items()))}"] + wrong


def main(argv: list[str]) -> int:
    for line in bench_rows(Path(argv[0])):
        print(line)
    if len(argv) > 1:
        for line in verdict_counts(Path(argv[1])):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
