"""The table of ceiling.sh: python3 ceiling-table.py OUT NAME... (the variants' names, in row order).

Reads OUT/run-NAME.log (ceiling-bench.cu's CHECK and TIME lines) and OUT/build-NAME.log (ptxas -v).
Per variant: the candidate kernels' registers and spill bytes (the reference's scalar path and the
bench's own kernels left out), the checks passed, TFLOP/s and the fraction of cuBLAS TF32 timed in the
same process at each timed shape, the ratio to 07-reference at each, and to 06-reference at the
rectangular shape (issue #45.3 asks >= 110 TFLOP/s square and >= 1.5x 06 there).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SHAPES = ("4096x4096x4096", "8192x8192x8192", "3000x1999x4001")
RECT = SHAPES[2]


def registers(log: Path) -> str:
    if not log.exists():
        return "?"
    text = log.read_text()
    regs, spills = [], 0
    # An entry's lines: "Compiling entry function 'X'", its spill line, then "Used N registers".
    for m in re.finditer(r"Compiling entry function '(\S+)'.*?(\d+) bytes spill stores.*?Used (\d+) registers", text, re.S):
        name = m.group(1)
        if name.startswith(("_ZN3ref", "_ZN5bench")):
            continue
        spills += int(m.group(2))
        regs.append(int(m.group(3)))
    return f"{max(regs)}/{spills}" if regs else "?"


def runs(log: Path) -> tuple[dict, int, int, list[str]]:
    times, passed, total, failed = {}, 0, 0, []
    if not log.exists():
        return times, 0, 0, ["no log"]
    for line in log.read_text().splitlines():
        f = line.split()
        if len(f) >= 4 and f[0] in ("CHECK", "TIME"):
            if "error" in line:
                failed.append(f"{f[2]} launch error")
                continue
            verdict = f[3] if f[0] == "CHECK" else f[6]
            total += 1
            passed += verdict == "pass"
            if verdict != "pass":
                failed.append(f[2])
            if f[0] == "TIME":
                times[f[2]] = (float(f[4]), float(f[5]))  # TFLOP/s, cuBLAS TF32's
    return times, passed, total, failed


def main() -> None:
    out, names = Path(sys.argv[1]), sys.argv[2:]
    data = {n: runs(out / f"run-{n}.log") for n in names}
    ref = data.get("07-reference", ({},))[0]
    prev = data.get("06-reference", ({},))[0]
    head = (f"{'variant':<24} {'regs/spill':>10} {'checks':>7} | "
            + " | ".join(f"{s.split('x')[0] + ('^3' if s != RECT else ' rect'):>20}" for s in SHAPES)
            + " | x07ref 4096/8192/rect | rect x06")
    print("TFLOP/s (fraction of cuBLAS TF32 in the same process); checks: the stage's TF32 rule, passed/run")
    print(head)
    print("-" * len(head))
    for n in names:
        times, passed, total, failed = data[n]
        cells = []
        for s in SHAPES:
            t = times.get(s)
            cells.append(f"{t[0]:8.1f} ({t[0] / t[1]:.3f})" if t else "-")
        ratio = "/".join(f"{times[s][0] / ref[s][0]:.2f}" if s in times and s in ref else "-" for s in SHAPES)
        r06 = f"{times[RECT][0] / prev[RECT][0]:.2f}" if RECT in times and RECT in prev else "-"
        print(f"{n:<24} {registers(out / f'build-{n}.log'):>10} {passed:>3}/{total:<3} | "
              + " | ".join(f"{c:>20}" for c in cells) + f" | {ratio:>21} | {r06:>9}")
        if failed:
            print(f"{'':<24} failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
