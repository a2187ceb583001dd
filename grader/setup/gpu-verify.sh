#!/bin/bash
# One device call that verifies the kit on a GPU machine (16 cores, one GPU) within ten minutes:
#   1. builds, side by side, the default preset's tree (sealed: a grading seed; every solution; the
#      emulator off) and gpu-suite.sh's tree of the known-bad submissions;
#   2. runs every untimed GPU check of the solutions (correctness, the compute-sanitizer checks, the
#      kit's GPU programs: kit.confine.gpu, kit.timed-audit.gpu) beside the known-bad suite's cases;
#   3. then, with the GPU to themselves, the timed checks and a bench of 06 against cuBLAS.
# Logs and JSON go to $LOGS, packed into $OUT/verify.tgz after each step (the device tool brings back
# at most 8 files); the last thing printed is a short table, also in $OUT/summary.txt.
#   CASES="name ..."   the known-bad submissions to run (default: every one with a [gpu] section)
#   FIRST="name ..."   run these first (the rest follow in name order): a call cut short at its
#                      limit has then verified what was asked of it
#   SKIP_TIMED=1       leave out step 3 (a call that re-verifies untimed checks only)
#   UNTIMED_S, TIMED_S step 2's and step 3's limits in seconds (defaults 270 and 120), so the timed
#                      checks run even when the untimed ones overrun
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
BUILD=${BUILD:-$root/build/default}
mkdir -p "$OUT"
. "$root/grader/setup/offline-env.sh"   # the carried Debian packages, compute-sanitizer on PATH
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-8}
py=$(command -v python3)
start=$SECONDS
LOGS=${LOGS:-/tmp/tilelab-gpu-verify}
pack() { tar czf "$OUT/verify.tgz" -C "$LOGS" . 2>/dev/null; }
mkdir -p "$LOGS"
( while sleep 30; do pack; done ) &   # a call cut short at its limit still brings back what was done
packer=$!
trap 'kill $packer 2>/dev/null' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

subs="$root/grader/tests/submissions"
if [ -z "${CASES:-}" ]; then
  CASES=$(cd "$subs" && for d in */; do d=${d%/}; grep -qs '^\[\[\?gpu\]' "$d/expect.toml" && echo "$d"; done | tr '\n' ' ')
fi
if [ -n "${FIRST:-}" ]; then
  CASES="$FIRST $(printf '%s\n' $CASES | grep -vxF -f <(printf '%s\n' $FIRST) | tr '\n' ' ')"
fi

echo "== 1. build (both trees)"
( cmake --preset default -B "$BUILD" -DPython3_EXECUTABLE="$py" -DTILELAB_IMPLS=solution -DTILELAB_EMU=OFF \
    > "$LOGS/configure.log" 2>&1 && cmake --build "$BUILD" --parallel 8 > "$LOGS/build.log" 2>&1
  echo $? > "$LOGS/build.rc" ) &
tree=$!
( OUT="$LOGS/suite" JOBS=8 SKIP_RUN=1 bash "$subs/gpu-suite.sh" $CASES > "$LOGS/suite-build.log" 2>&1 ) &
suite=$!
wait $tree $suite   # not a bare `wait`: that also waits for the packer, which never ends
echo "   build exit $(cat "$LOGS/build.rc"), $((SECONDS - start)) s"

echo "== 2. untimed checks and the known-bad suite"
timeout "${UNTIMED_S:-270}" ctest --test-dir "$BUILD" -LE "python|perf" -E "^kit\.release$" -j4 --output-junit "$LOGS/junit-untimed.xml" \
  > "$LOGS/ctest-untimed.log" 2>&1 &
tree=$!
( OUT="$LOGS/suite" SKIP_BUILD=1 timeout "${UNTIMED_S:-270}" bash "$subs/gpu-suite.sh" $CASES > "$LOGS/suite.log" 2>&1 ) &
suite=$!
wait $tree $suite
# The table again: a suite cut short by its limit did not reach its own.
"$py" "$subs/gpu_suite.py" table "$LOGS/suite" > "$LOGS/suite-table.log" 2>&1
pack
echo "   $((SECONDS - start)) s"

if [ -z "${SKIP_TIMED:-}" ]; then
echo "== 3. timed checks, then 06 against cuBLAS"
timeout "${TIMED_S:-120}" ctest --test-dir "$BUILD" -L perf -j1 --output-junit "$LOGS/junit-timed.xml" > "$LOGS/ctest-timed.log" 2>&1
mkdir -p "$BUILD/bench"
for shape in "4096 4096 4096" "2048 2048 2048"; do
  "$BUILD/runners/tilelab-judge" --worker "$BUILD/runners/run-solution-06-register-tiled-gpu" \
    --spec "$BUILD/generated/stages/06-register-tiled.json" --shape $shape --check perf \
    --json "$LOGS/bench-06-${shape// /x}.json" --timeout 150 --sealed > /dev/null 2>&1
done
cp -r "$BUILD/results" "$LOGS/results" 2>/dev/null
pack
else
  cp -r "$BUILD/results" "$LOGS/results" 2>/dev/null
fi

{
echo "== summary ($((SECONDS - start)) s)"
grep -E "tests passed|tests failed" "$LOGS/ctest-untimed.log" "$LOGS/ctest-timed.log"
grep -E "\*\*\*Failed|\*\*\*Timeout|Not Run" "$LOGS/ctest-untimed.log" "$LOGS/ctest-timed.log" | head -20
tail -3 "$LOGS/suite/summary.md" 2>/dev/null
grep -E "\*\*NO\*\*" "$LOGS/suite/summary.md" 2>/dev/null | cut -c1-160 | head -30
"$py" - "$LOGS" <<'EOF'
import json, pathlib, sys
logs = pathlib.Path(sys.argv[1])
print("| timed check | verdict | ratio to reference | ratio to cuBLAS | GFLOP/s | audit max | confinement |")
for f in sorted(list((logs / "results").glob("*.perf.json")) + list(logs.glob("bench-*.json"))):
    try:
        r = json.loads(f.read_text())
    except ValueError:
        continue
    t = r.get("timing", {})
    c = r.get("confinement", {})
    print(f"| {f.stem} | {r.get('verdict')} | {t.get('ratio_to_reference', '-')} | {t.get('ratio_to_cublas', '-')} | "
          f"{t.get('impls', {}).get(r.get('impl', ''), {}).get('gflops', '-')} | {t.get('audit_max_ratio', '-')} | "
          f"{c.get('landlock_abi', '-')}/{c.get('seccomp_filters', '-')} |")
EOF
} | tee "$OUT/summary.txt"
