#!/bin/bash
# One pass over a GPU machine: configure (default preset), build, run every CTest check, then time
# each stage's solution against cuBLAS at several sizes. Logs and JSON go to $OUT (default
# ./gpu-out); the last thing printed is a short table. Works offline when .deps/ was packed by
# pack-offline-deps.sh and carried along.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
if [ -d .deps/usr ]; then
  export CMAKE_PREFIX_PATH="$root/.deps/usr"
  export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/openblas-pthread:$root/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-4}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
py=$(command -v python3)

echo "== configure + build"
cmake --preset default -DPython3_EXECUTABLE="$py" > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build --preset default --parallel 16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }

echo "== ctest (GPU checks; the pytest suite runs on CI)"
ctest --preset default -LE python -j4 --output-junit "$OUT/junit.xml" ${CTEST_ARGS:-} > "$OUT/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | tail -25

echo "== bench: solutions vs cuBLAS FP32"
mkdir -p build/default/bench
for runner in build/default/runners/run-solution-*-gpu; do
  stage=${runner#build/default/runners/run-solution-}; stage=${stage%-gpu}
  shapes=${BENCH_SHAPES:-"1024 1024 1024;2048 2048 2048;4096 4096 4096"}
  IFS=';'
  for shape in $shapes; do
    IFS=' '
    name=$(echo "$shape" | tr ' ' x)
    "$runner" --spec "assignments/$stage/stage.toml" --shape $shape --check perf \
      --json "build/default/bench/$stage.$name.json" --timeout 280 > "build/default/bench/$stage.$name.log" 2>&1
  done
  unset IFS
done
tar czf "$OUT/results.tgz" -C build/default results bench
PYTHONPATH=grader "$py" -m tilelab.benchtable build/default/bench build/default/results | tee "$OUT/summary.txt"
