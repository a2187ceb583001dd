"""Summarise runner results as a plain table (used after a GPU run, where rich may be missing).

    python3 -m tilelab.benchtable BENCH_DIR [RESULTS_DIR]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def bench_rows(folder: Path) -> list[str]:
    rows = [f"{'stage':16} {'shape':16} {'verdict':8} {'impl ms':>9} {'GFLOP/s':>9} "
            f"{'cuBLAS':>9} {'%cuBLAS':>8} {'%peak':>6}"]
    for f in sorted(folder.glob("*.json")):
        r = json.loads(f.read_text())
        t = r.get("timing", {})
        mine = t.get("impls", {}).get(r.get("impl", ""), {})
        cub = t.get("impls", {}).get("cublas", {})
        s = r.get("shape", {})
        shape = f"{s.get('J')}x{s.get('K')}x{s.get('L')}"
        rows.append(f"{r.get('stage', '?'):16} {shape:16} {r.get('verdict', '?'):8} "
                    f"{mine.get('median_ms', 0):9.3f} {mine.get('gflops', 0):9.0f} {cub.get('gflops', 0):9.0f} "
                    f"{100 * t.get('ratio_to_cublas', 0):7.1f}% {mine.get('pct_of_peak', 0):5.1f}%")
    return rows


def verdict_counts(folder: Path) -> list[str]:
    c = Counter()
    wrong = []
    for f in sorted(folder.glob("*.json")):
        r = json.loads(f.read_text())
        key = f"{r.get('impl')}:{r.get('verdict')}"
        c[key] += 1
        if r.get("impl") == "solution" and r.get("verdict") != "pass":
            wrong.append(f"  {f.stem}: {r.get('verdict')} {r.get('message')}")
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
