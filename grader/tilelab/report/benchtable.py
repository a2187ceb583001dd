"""Summarise runner results as a plain table (used after a GPU run, where rich may be missing).

    python3 -m tilelab.report.benchtable BENCH_DIR [RESULTS_DIR]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from ..score.metrics import of_result
from ..run.ctest_results import load


def bench_rows(folder: Path) -> list[str]:
    rows = [f"{'stage':16} {'shape':16} {'verdict':8} {'impl ms':>9} {'GFLOP/s':>9} "
            f"{'cuBLAS':>9} {'%cuBLAS':>8} {'%peak':>6}"]
    for f in sorted(folder.glob("*.json")):
        if (r := load(f)) is None:
            continue
        m = of_result(r)
        z = lambda v: v or 0  # noqa: E731
        rows.append(f"{r.stage or '?':16} {r.shape_text:16} {r.verdict:8} "
                    f"{z(m.median_ms):9.3f} {z(m.gflops):9.0f} {z(m.cublas_gflops):9.0f} "
                    f"{z(m.pct_of_cublas):7.1f}% {z(m.pct_of_peak):5.1f}%")
    return rows


def verdict_counts(folder: Path) -> list[str]:
    c = Counter()
    wrong = []
    for f in sorted(folder.glob("*.json")):
        if (r := load(f)) is None:
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
