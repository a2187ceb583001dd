#!/bin/bash
# The feedback a student gets on a GPU (issue #17): grades a correct submission (the solutions of
# 01-basic and 02-tiled) and two known-bad ones on the GPU, writing each one's report.html,
# results.json and terminal output to $OUT/<name>/. Then prints a short table: each report's score,
# the first diagnosis of its first failing stage, and whether the HTML holds the error map, the
# speed chart and the occupancy table. Look at the two report.html files: the map of P with the
# tile grid (missing-bounds-check: the last row/column strip), the speed chart (yours, reference,
# previous stage, cuBLAS) and which occupancy limit binds.
#   OUT=dir (default ./gpu-out/feedback)
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/feedback}
mkdir -p "$OUT/solution/01-basic" "$OUT/solution/02-tiled"
cp solutions/01-basic/matmul.cu "$OUT/solution/01-basic/"
cp solutions/02-tiled/matmul.cu "$OUT/solution/02-tiled/"
py=${PYTHON:-$root/.venv/bin/python3}
[ -x "$py" ] || py=python3
for sub in "$OUT/solution" grader/tests/submissions/missing-bounds-check grader/tests/submissions/swapped-row-col; do
  name=$(basename "$sub")
  mkdir -p "$OUT/$name"
  ./tilelab grade --backend gpu --submission "$sub" --build-dir "build/feedback-$name" --out "$OUT/$name" \
    --format gradescope --format grade --format html > "$OUT/$name/terminal.txt" 2>&1
  echo "$name: exit $?" >> "$OUT/exit-codes.txt"
done
PYTHONPATH=grader "$py" - "$OUT" <<'EOF'
import json, sys
from pathlib import Path
from tilelab.score import diagnoses
from tilelab.report.model import GradeReport
out = Path(sys.argv[1])
print(f"{'submission':22} {'points':>14}  first diagnosis / html: map speed occupancy")
for d in sorted(p for p in out.iterdir() if (p / "grade.json").exists()):
    r = GradeReport.from_dict(json.loads((d / "grade.json").read_text()))
    failing = next((s for s in r.stages if not s.passed), None)
    first = diagnoses.first(failing).headline()[:70] if failing and diagnoses.first(failing) else "-"
    html = (d / "report.html").read_text() if (d / "report.html").exists() else ""
    marks = " ".join("yes" if k in html else "no" for k in ("map of P", "speed of the timed run", "the kernel's resources"))
    print(f"{d.name:22} {r.points:6.1f} / {r.max_points:6.1f}  {first}\n{'':40}html: {marks}")
EOF
