#!/bin/bash
# Grading times on a GPU machine (issue 27; docs/performance.md, "Grading times on one GPU"):
#   1. a student's grade of one stage through `./tilelab grade`, sanitizers included: the first
#      (its tree built from nothing), then WARM re-grades after a one-line edit each;
#   2. a class: grader/setup/batch-throughput.sh with N student-like submissions of STAGES.
# Logs go to $OUT (default ./gpu-out); the last thing printed is a short table. Works offline with
# .deps/ packed by pack-offline-deps.sh and carried along.
#   STAGE=02-tiled  WARM=2  N=20  JOBS=16  STAGES="01-basic 02-tiled"  SKIP_GRADE=1  SKIP_BATCH=1
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
STAGE=${STAGE:-02-tiled}
mkdir -p "$OUT"
. "$root/grader/setup/offline-env.sh"   # the carried Debian packages, compute-sanitizer on PATH
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
table="$OUT/times.txt"
echo "device: ${gpu:-none}, $(nproc) cores, $(date -u +%F)" > "$table"
secs() { python3 -c "import time; print(f'{time.time():.3f}')"; }

if [ -z "${SKIP_GRADE:-}" ]; then
  # The student's own loop: their finished kernel in starter/, graded, edited, graded again.
  cp "solutions/$STAGE/matmul.cu" "starter/$STAGE/matmul.cu"
  for i in cold $(seq 1 "${WARM:-2}"); do
    [ "$i" != cold ] && echo "// edit $i" >> "starter/$STAGE/matmul.cu"
    t0=$(secs)
    ./tilelab grade "$STAGE" --backend gpu > "$OUT/grade-$i.log" 2>&1
    rc=$?
    t1=$(secs)
    printf '%-34s %7.1f s (exit %s)\n' "grade $STAGE ($i)" "$(python3 -c "print($t1 - $t0)")" "$rc" >> "$table"
  done
  git checkout -q "starter/$STAGE/matmul.cu" 2>/dev/null || true
  # Where the last warm grade's check time went: CTest's own time for each check (its JUnit
  # reports: the first run, the side-by-side checks, the timed check alone).
  python3 - build/grade-gpu/results "$STAGE" > "$OUT/warm-profile.txt" <<'PY'
import sys, xml.etree.ElementTree as ET
from pathlib import Path
rows = []
for j in sorted(Path(sys.argv[1]).glob(f"junit-starter-{sys.argv[2]}-gpu*.xml")):
    root = ET.parse(j).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    for s in suites:
        rows.append((j.stem, "(the run)", float(s.get("time", 0))))
        rows += [(j.stem, c.get("name"), float(c.get("time", 0))) for c in s.iter("testcase")]
for run, name, t in rows:
    print(f"{t:7.2f} s  {run:40s} {name}")
PY
  grep -H -o "\[exit -\?[0-9]*[^]]*, [0-9.]* s\]" build/grade-gpu/logs/*"$STAGE"*.log >> "$OUT/warm-profile.txt" 2>/dev/null
  cat "$OUT/warm-profile.txt" >> "$table"
  tail -25 "$OUT/grade-cold.log" > "$OUT/grade-cold-tail.log"
fi

if [ -z "${SKIP_BATCH:-}" ]; then
  OUT="$OUT/tp" N=${N:-20} BACKEND=gpu JOBS=${JOBS:-$(nproc)} STAGES=${STAGES:-} \
    bash grader/setup/batch-throughput.sh > "$OUT/batch-throughput.log" 2>&1
  cp "$OUT/tp/throughput.txt" "$OUT/throughput.txt" 2>/dev/null
  cp "$OUT/tp/grades/gradebook.csv" "$OUT/gradebook.csv" 2>/dev/null
  tail -40 "$OUT/tp/batch.log" > "$OUT/batch-tail.log" 2>/dev/null
  rm -rf "$OUT/tp"
fi
cat "$table" "$OUT/throughput.txt" 2>/dev/null
