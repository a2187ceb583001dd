#!/bin/bash
# Every `tilelab` command that has a GPU path, run end to end as an instructor runs it (issue #40,
# item 5: `bench` crashed on every GPU run and nothing ran the commands on a GPU). One device call
# on a GPU machine (one NVIDIA GPU, 16 cores, root, no network, nvcc; Debian dev packages carried
# in .deps/debs by pack-offline-deps.sh, unpacked by offline-env.sh), in this order, each under `timeout`:
#   bench      STAGE's solution against cuBLAS at SIZES                       expect exit 0
#   calibrate  STAGE's perf check, REPEATS runs, nothing written              expect exit 0
#   grade      STAGE's solution on the GPU                                    expect exit 0, full points
#   grade-bad  a known-bad submission of STAGE (BAD, a mutant of the suite)   expect exit 1, not full points
#   batch      a class of 3 for STAGE on the GPU: the solution, BAD, and a file that does not compile
#                                                                             expect exit 0 and that gradebook
#   check      STAGE's solution, the quick emulator loop (no GPU path of its own: it must still work on
#              a GPU machine, where the grading tree also has nvcc)           expect exit 0
#   trace      STAGE's solution traced on the emulator (the book's figure)    expect exit 0, no difference
# Logs and outputs go to $LOGS/<command>/ (packed into $OUT/commands.tgz every 30 s and at the end,
# so a call cut at its limit still brings back what was done); the last thing printed is a table
# (command, exit code, seconds, ok, one line of its outcome), also in $OUT/commands.txt. Exit 0 when
# every command did what it should, 1 when one did not (the table's ok column says NO).
#
# Where there is no usable GPU (nvidia-smi lists none) the GPU commands are not run: each one's
# command line is only parsed by tilelab's own parser (a misspelt option fails here too) and its
# row says SKIP (no GPU); check and trace, emulator commands, still run. That is the dry run.
#
# Trees: each command configures a grading tree of its own kind (tree.py), never a preset's test
# tree (configuring build/default as a grading tree would throw its cache away), so BUILD is the
# folder holding this script's trees, reused by the next run (a second run compiles nothing):
#   $BUILD/gpu      bench, calibrate and the solution's grade (one configure per flip of impls)
#   $BUILD/gpu-sub  the known-bad submission's grade
#   $BUILD/emu      check and trace
#   $BUILD/batch    the batch's --out: its prebuilt kit (.kit), gradebook.csv, index.html, students/
# Settings (environment):
#   BUILD=build/gpu-commands  LOGS=/tmp/tilelab-gpu-commands  OUT=./gpu-out  STAGE=02-tiled
#   SIZES="256 1024"  REPEATS=2  BAD=02-swapped-tile-index  JOBS=<cores>
#   ONLY="bench grade ..."   run only these commands (to split the run over device calls)
#   T_<COMMAND>=seconds      a command's time limit (defaults below; T_GRADE_BAD for grade-bad)
# Measured on an H200 with 16 cores, trees built from nothing (2026-11-28): all seven in 5 min 32 s
# (bench 38 s, calibrate 74, grade 18, grade-bad 54, batch 97, check 23, trace 18), within one device
# call of 10 minutes; ONLY splits it where a slower machine needs two.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
BUILD=$(mkdir -p "${BUILD:-$root/build/gpu-commands}" && cd "${BUILD:-$root/build/gpu-commands}" && pwd)
LOGS=${LOGS:-/tmp/tilelab-gpu-commands}
STAGE=${STAGE:-02-tiled}
SIZES=${SIZES:-256 1024}
REPEATS=${REPEATS:-2}
BAD=${BAD:-02-swapped-tile-index}
JOBS=${JOBS:-$(nproc)}
ONLY=${ONLY:-bench calibrate grade grade-bad batch check trace}
. "$root/grader/setup/offline-env.sh"   # the carried Debian packages, compute-sanitizer on PATH
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-8}
py=python3
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"   # the interpreter ./tilelab runs
mkdir -p "$OUT" "$LOGS"
rm -f "$LOGS"/*.row
pack() { tar czf "$OUT/commands.tgz" -C "$LOGS" . 2>/dev/null; }
( while sleep 30; do pack; done ) &
packer=$!
trap 'kill $packer 2>/dev/null' EXIT

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "device: ${gpu:-no GPU}, $(nproc) cores, BUILD=$BUILD, LOGS=$LOGS, STAGE=$STAGE" | tee "$LOGS/device.txt"

# ---- the submissions: the known-bad one (a mutant: the solution with one edit) and the class ----
subs="$LOGS/submissions"
rm -rf "$subs" && mkdir -p "$subs/mutants"
if ! "$py" grader/tests/submissions/mutate.py write "$subs/mutants" > "$LOGS/mutants.log" 2>&1 \
   && [ ! -f "$subs/mutants/$BAD/$STAGE/matmul.cu" ]; then
  echo "tilelab gpu-commands: the known-bad submission $BAD could not be written (see $LOGS/mutants.log)"; exit 2
fi
if [ -f "grader/tests/submissions/$BAD/$STAGE/matmul.cu" ]; then bad="grader/tests/submissions/$BAD"   # a folder case
else bad="$subs/mutants/$BAD"; fi
[ -f "$bad/$STAGE/matmul.cu" ] || { echo "tilelab gpu-commands: $BAD has no $STAGE/matmul.cu"; exit 2; }
class="$subs/class"
mkdir -p "$class/good/$STAGE" "$class/bad/$STAGE" "$class/broken/$STAGE"
cp "solutions/$STAGE/matmul.cu" "$class/good/$STAGE/"
cp "$bad/$STAGE/matmul.cu" "$class/bad/$STAGE/"
{ cat "solutions/$STAGE/matmul.cu"; echo "this line is not C++ (gpu-commands.sh: a file that does not compile)"; } \
  > "$class/broken/$STAGE/matmul.cu"

# ---- one command: run [name, gpu|emu, seconds, expected exit, tilelab args...] ----
wanted() { case " $ONLY " in *" $1 "*) return 0;; esac; return 1; }
run() {
  local name=$1 needs=$2 limit=$3 want=$4; shift 4
  local dir="$LOGS/$name" row="$LOGS/$(printf '%02d' "$(ls "$LOGS"/*.row 2>/dev/null | wc -l)")-$name.row"
  wanted "$name" || return 0
  rm -rf "$dir" && mkdir -p "$dir"
  printf '%s\n' "$*" > "$dir/command.txt"
  if [ "$needs" = gpu ] && [ -z "$gpu" ]; then
    # The dry run: tilelab's own parser reads the command line; nothing runs.
    if PYTHONPATH="$root/grader" "$py" -c 'import sys; from tilelab import cli; cli.build_parser().parse_args(sys.argv[1:])' \
         "$@" > "$dir/output.log" 2>&1; then
      printf '%s\t-\t0\tSKIP\tSKIP (no GPU): command line parsed, not run\n' "$name" > "$row"
    else
      printf '%s\t-\t0\tNO\tbad command line: %s\n' "$name" "$(tail -1 "$dir/output.log")" > "$row"
    fi
    return 0
  fi
  echo "== $name: ./tilelab $* (limit ${limit} s)"
  local t0=$SECONDS
  timeout -k 20 "$limit" ./tilelab "$@" > "$dir/output.log" 2>&1
  local rc=$? secs=$((SECONDS - t0)) ok=yes line
  # One line of the outcome, and whether it is the expected one (verdict() below, by command).
  line=$(verdict "$name" "$dir" "$rc" 2>>"$dir/verdict.err") || ok=NO
  [ "$rc" = "$want" ] || ok=NO
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && line="TIMED OUT after ${limit} s; $line"
  [ -n "$line" ] || line="(no outcome found: see $dir/output.log)"
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$secs" "$ok" "$line" > "$row"
  echo "   exit $rc (expected $want), ${secs} s: $line"
  pack
}

# The outcome of a command, from what it wrote (JSON where there is some, else its last lines);
# exits 1 where the outcome is not the expected one.
verdict() {
  local name=$1 dir=$2 rc=$3
  case "$name" in
    bench|grade|grade-bad|batch|trace)
      "$py" - "$name" "$dir" "$STAGE" "$BUILD/batch" <<'EOF' ;;
import csv, json, sys
from pathlib import Path
name, d, stage = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
ok = True
if name == "bench":
    doc = json.loads((d / "bench.json").read_text())
    rows = doc["rows"]
    good = [r for r in rows if r["verdict"] == "pass"]
    big = max(good, key=lambda r: r["size"], default=None)
    print(f"{len(good)}/{len(rows)} pass on {doc['device'].get('name', '?')}"
          + (f"; {big['size']}: {big['gflops']:.0f} GFLOP/s, {big['pct_of_cublas']:.0f}% of cuBLAS" if big else ""))
    ok = bool(rows) and len(good) == len(rows) and all(r["pct_of_cublas"] for r in good)
elif name in ("grade", "grade-bad"):
    g = json.loads((d / "grade.json").read_text())
    checks = [c for s in g["stages"] for c in s["checks"]]
    failed = [c for c in checks if c["verdict"] not in ("pass", "skipped")]
    perf = next((c for c in checks if c["check"] == "perf"), None)
    first = f"; first failing: {failed[0]['name'].split('.', 2)[-1]} {failed[0]['verdict']}" if failed else ""
    print(f"{g['status']}: {g['points']:.1f}/{g['max_points']:.1f} points on {g['backend']} "
          f"({g.get('device', {}).get('name', '?')}), {len(checks)} checks, {len(failed)} failed"
          + (f", perf {perf['verdict']} {perf['points']:.1f}/{perf['max_points']:.1f}" if perf else "") + first)
    # The solution: every check passes, and the timed check's points allow for the GPU's noise.
    good = not failed and g["points"] >= 0.9 * g["max_points"] > 0
    ok = g["backend"] == "gpu" and (good if name == "grade" else g["points"] < g["max_points"] and bool(failed))
elif name == "batch":
    # gradebook.csv (report/formats/gradebook.py): student, status, <stage>, total, max, note, ...
    rows = {r["student"]: r for r in csv.DictReader(Path(sys.argv[4], "gradebook.csv").open())}
    print("; ".join(f"{n} {r['total']}/{r['max']} {r['status']}" for n, r in sorted(rows.items())))
    pts = {n: float(r["total"] or 0) for n, r in rows.items()}
    # The good student hands in the solution and no answers.toml: every point but the questions'
    # (the stage's [points] questions, read through the one reader of stage.toml).
    sys.path.insert(0, "grader")
    from tilelab.specs import spec
    questions = next(s.points.questions for s in spec.load_all(Path(".")) if s.id == stage)
    kernel_max = float(rows["good"]["max"]) - questions
    ok = (set(rows) == {"good", "bad", "broken"} and pts["good"] >= 0.9 * kernel_max > 0
          and pts["bad"] < pts["good"] and pts["broken"] == 0
          and len({r["max"] for r in rows.values()}) == 1)   # one maximum for the class
elif name == "trace":
    t = json.loads((d / "trace.json").read_text())
    ex = t["examples"]
    diffs = [e["difference"] for e in ex if e.get("difference")]
    print(f"{len(ex)} example(s) traced, " + (f"difference: {diffs[0]}" if diffs else "no difference from the book's kernel"))
    ok = bool(ex) and not diffs
sys.exit(0 if ok else 1)
EOF
    calibrate)
      # The stage's row of the table: runs, self ratio, vs previous, now, suggested.
      local l; l=$(grep -E "^$STAGE " "$dir/output.log" | head -1 | tr -s ' ')
      echo "${l:-$(tail -1 "$dir/output.log")}"
      [ -n "$l" ] && grep -q "^full_credit_ratio = " "$dir/output.log" ;;
    check)
      grep -E "^$STAGE: " "$dir/output.log" | head -1
      grep -qE "^$STAGE: pass on " "$dir/output.log" ;;
    *) tail -1 "$dir/output.log" ;;
  esac
}

# ---- the commands (each one's limit: T_<NAME>, seconds) ----
sizes=()
for n in $SIZES; do sizes+=("$n"); done
run bench     gpu "${T_BENCH:-420}" 0 bench --stage "$STAGE" --sizes "${sizes[@]}" --timeout 120 \
    --build-dir "$BUILD/gpu" --out "$LOGS/bench"
run calibrate gpu "${T_CALIBRATE:-300}" 0 calibrate --stage "$STAGE" --repeats "$REPEATS" --build-dir "$BUILD/gpu"
run grade     gpu "${T_GRADE:-420}" 0 grade "$STAGE" --impl solution --backend gpu --build-dir "$BUILD/gpu" \
    --out "$LOGS/grade" --format grade --format gradescope --format html --table -j "$JOBS"
run grade-bad gpu "${T_GRADE_BAD:-420}" 1 grade "$STAGE" --submission "$bad" --backend gpu --build-dir "$BUILD/gpu-sub" \
    --out "$LOGS/grade-bad" --format grade --format html -j "$JOBS"
run batch     gpu "${T_BATCH:-540}" 0 batch "$class" --out "$BUILD/batch" --stage "$STAGE" --backend gpu -j 3 \
    --timeout 300 --regrade
run check     emu "${T_CHECK:-420}" 0 check "$STAGE" --impl solution --build-dir "$BUILD/emu" -j "$JOBS"
run trace     emu "${T_TRACE:-420}" 0 trace "$STAGE" --impl solution --build-dir "$BUILD/emu" \
    --json "$LOGS/trace/trace.json" -j "$JOBS"
pack

# ---- the table ----
{
  echo "== gpu-commands: ${gpu:-no GPU}, $(date -u +%FT%TZ), logs in $LOGS (and $OUT/commands.tgz)"
  printf '%-10s %5s %6s %-4s  %s\n' command exit secs ok outcome
  fail=0
  for f in "$LOGS"/*.row; do
    [ -e "$f" ] || continue
    IFS=$'\t' read -r name rc secs ok line < "$f"
    [ "$ok" = NO ] && fail=1
    printf '%-10s %5s %6s %-4s  %s\n' "$name" "$rc" "$secs" "$ok" "${line:0:150}"
  done
  [ $fail = 0 ] && echo "all commands did what they should" || echo "SOME COMMAND FAILED (ok = NO): see its $LOGS/<command>/output.log"
  echo $fail > "$LOGS/failed"
} | tee "$OUT/commands.txt"
pack
exit "$(cat "$LOGS/failed")"
