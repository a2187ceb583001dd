#!/bin/bash
# One pass over a GPU machine: configure (default preset), build, run every CTest check, then time
# each stage's solution against cuBLAS at the shapes in BENCH. Logs and JSON go to $OUT (default
# ./gpu-out), re-packed after every step so a run cut short still returns what it measured; the
# last thing printed is a short table. Works offline when .deps/ was packed by
# pack-offline-deps.sh and carried along.
#   BUILD=dir        build tree (default build/default)
#   SKIP_CTEST=1     only build and bench;   IMPLS="solution"  implementations to build
#   CTEST_ARGS="-L 05-coarsened"   extra ctest arguments;   CTEST_JOBS=4   ctest -j
#   BENCH="01-basic:2048 2048 2048;06-register-tiled:8192 8192 8192"   (default: every stage at 2048 and 4096)
#   CMAKE_ARGS="-DTILELAB_EMU=OFF"   extra configure arguments
#   SWEEP=1          also run the GPU tolerance sweep (kit.tolerance.gpu's program), output in sweep.txt
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
BUILD=${BUILD:-build/default}
mkdir -p "$OUT"
. "$root/grader/setup/offline-env.sh"   # .deps unpacked and on the loader's path; CMake finds it itself
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-4}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
py=$(command -v python3)
pack() { tar czf "$OUT/results.tgz" -C "$BUILD" results bench 2>/dev/null; }

echo "== configure + build ($BUILD)"
cmake --preset default -B "$BUILD" -DPython3_EXECUTABLE="$py" -DTILELAB_IMPLS="${IMPLS:-solution;starter}" \
  ${CMAKE_ARGS:-} > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build "$BUILD" --parallel 16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
mkdir -p "$BUILD/results" "$BUILD/bench"

if [ -z "${SKIP_CTEST:-}" ]; then
  echo "== ctest (GPU checks; the pytest suite runs on CI)"
  ctest --test-dir "$BUILD" -LE python -j"${CTEST_JOBS:-4}" --output-on-failure --output-junit "$OUT/junit.xml" ${CTEST_ARGS:-} > "$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | tail -25
  pack
fi

if [ -n "${SWEEP:-}" ]; then
  echo "== tolerance sweep"
  "$BUILD/grader/tests/gpu/tilelab_tolerance_sweep" --quiet > "$OUT/sweep.txt" 2>&1
  echo "   exit $?; $(tail -1 "$OUT/sweep.txt")"
fi

echo "== bench: solutions vs cuBLAS FP32"
if [ -z "${BENCH:-}" ]; then
  BENCH=""
  for r in "$BUILD"/runners/run-solution-*-gpu; do
    s=${r##*/run-solution-}; s=${s%-gpu}
    BENCH="$BENCH;$s:2048 2048 2048;$s:4096 4096 4096"
  done
fi
IFS=';' read -ra items <<< "$BENCH"
for item in "${items[@]}"; do
  [ -z "$item" ] && continue
  stage=${item%%:*}; shape=${item#*:}
  name=$(echo "$shape" | tr ' ' x)
  read -ra dims <<< "$shape"
  "$BUILD/runners/tilelab-judge" --worker "$BUILD/runners/run-solution-$stage-gpu" --spec "$BUILD/generated/stages/$stage.json" --shape "${dims[@]}" \
    --check perf --json "$BUILD/bench/$stage.$name.json" --timeout 150 > "$BUILD/bench/$stage.$name.log" 2>&1
  echo "  $stage $name: exit $?"
  pack
done
PYTHONPATH=grader "$py" -m tilelab.report.benchtable "$BUILD/bench" "$BUILD/results" | tee "$OUT/summary.txt"
