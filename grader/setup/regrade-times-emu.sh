#!/bin/bash
# A student's re-grade on the CPU emulator, timed (issue 45 item 2; docs/performance.md, "Issue 45:
# a re-grade on a busy 2-core machine"): in a checkout whose grading tree a first
# `./tilelab grade STAGE --backend emu` has built, the stage's reference solution copied into
# starter/ (every check computes), RUNS re-grades, each after one line appended to the file, then
# the same with one CPU-bound process (`yes`, in a session of its own, as another program on a
# laptop is) running beside them; then each check of the last re-grade alone, for its CPU seconds.
# Every row: wall, user + sys of the whole command (its children included), the load average
# before it. Logs and the table go to $OUT (default ./regrade-out); the table is printed last.
#   STAGE=02-tiled  RUNS=5  SKIP_QUIET=1  SKIP_BUSY=1  SKIP_CHECKS=1
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/regrade-out}
STAGE=${STAGE:-02-tiled}
RUNS=${RUNS:-5}
tree=build/grade-emu
mkdir -p "$OUT"
table="$OUT/times.txt"
echo "$(nproc) cores, $(date -u '+%F %H:%M UTC'), $STAGE, $(git rev-parse --short HEAD 2>/dev/null)" > "$table"
cp "solutions/$STAGE/matmul.cu" "starter/$STAGE/matmul.cu"
[ -x "$tree/runners/tilelab-judge" ] || ./tilelab grade "$STAGE" --backend emu > "$OUT/first.log" 2>&1

regrades() {   # $1: quiet|busy
  for i in $(seq 1 "$RUNS"); do
    echo "// edit $1 $i $(date +%s%N)" >> "starter/$STAGE/matmul.cu"
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$OUT/time" ./tilelab grade "$STAGE" --backend emu > "$OUT/grade-$1-$i.log" 2>&1
    read -r wall user sys < <(tail -1 "$OUT/time")   # a failed grade's time has a line before it
    echo "$1 $wall $(python3 -c "print(round($user + $sys, 2))") $load" >> "$OUT/runs.txt"
  done
}
: > "$OUT/runs.txt"
[ -z "${SKIP_QUIET:-}" ] && regrades quiet
if [ -z "${SKIP_BUSY:-}" ]; then
  setsid yes > /dev/null &
  hog=$!
  sleep 2
  regrades busy
  kill "$hog"
fi

# Each check of the last re-grade alone: its CPU seconds (judge and workers), one after another.
if [ -z "${SKIP_CHECKS:-}" ]; then
  ctest --test-dir "$tree" --show-only=json-v1 -L "^starter$" -L "^$STAGE$" -L "^emu$" > "$OUT/checks.json"
  python3 - "$OUT/checks.json" > "$OUT/checks.txt" <<'PY'
import json, resource, subprocess, sys, time
rows = []
for t in json.load(open(sys.argv[1]))["tests"]:
    if not t.get("command"):
        continue
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run(t["command"], capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, time.monotonic() - t0, t["name"]))
for cpu, wall, name in sorted(rows, reverse=True):
    print(f"{cpu:6.2f} s CPU {wall:6.2f} s wall  {name}")
print(f"{sum(r[0] for r in rows):6.2f} s CPU in all")
PY
fi
git checkout -q "starter/$STAGE/matmul.cu" 2>/dev/null || true

python3 - "$OUT/runs.txt" >> "$table" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for kind in ("quiet", "busy"):
    r = [(float(w), float(c), float(l)) for k, w, c, l in rows if k == kind]
    if r:
        print(f"re-grade, {kind:5}: wall median {statistics.median(x[0] for x in r):5.2f} s "
              f"({min(x[0] for x in r):.2f}-{max(x[0] for x in r):.2f}), CPU median "
              f"{statistics.median(x[1] for x in r):5.2f} s, load before {min(x[2] for x in r):.1f}-{max(x[2] for x in r):.1f}, {len(r)} runs")
PY
[ -s "$OUT/checks.txt" ] && { echo "each check alone:"; cat "$OUT/checks.txt"; } >> "$table"
cat "$table"
