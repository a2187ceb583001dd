#!/bin/bash
# The kit's PTX wrappers (<tilelab/mma_ptx.cuh>) on a GPU, in one call (the device machine): the
# known-good 07-ptx-wrappers and its three mutants through gpu-suite.sh's cases (correctness,
# memcheck; the mutants' verdicts), building only their runners, then the known-good's perf check
# at 4096^3 beside the 07 reference (the judge's timing: same process, CUDA events).
#
#   OUT=/some/dir grader/tests/submissions/gpu-ptx-wrappers.sh
#
# Logs under $OUT (gpu-suite's logs/, results/, summary.md; perf.json, perf.log); the table last.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/ptx-wrappers}
BUILD=${BUILD:-$root/build/gpu-ptx}
mkdir -p "$OUT/logs" "$BUILD"
. "$root/grader/setup/offline-env.sh"
py=$(command -v python3)
names=(07-ptx-wrappers 07-ptx-missing-wait 07-ptx-wrong-fragment 07-ptx-ldmatrix-past-tile)
stage=07-tensor-cores
start=$SECONDS

echo "== configure + build (07's datasets, ${#names[@]} runners)"
cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=ON -DTILELAB_EMU=OFF -DTILELAB_KIT_GPU=ON \
  -DTILELAB_GRADING_SEED= -DPython3_EXECUTABLE="$py" > "$OUT/logs/_configure.log" 2>&1 \
  || { tail -30 "$OUT/logs/_configure.log"; exit 1; }
cmake --build "$BUILD" --parallel "$(nproc)" --target "datasets-$stage" tilelab-judge > "$OUT/logs/_build.log" 2>&1 \
  || { tail -30 "$OUT/logs/_build.log"; exit 1; }
for name in "${names[@]}"; do   # each alone, for its own log and status (gpu-suite.sh's step 2)
  cmake --build "$BUILD" --parallel "$(nproc)" --target "run-kit-$name-$stage-gpu" > "$OUT/logs/$name.build.log" 2>&1
  echo $? > "$OUT/logs/$name.build.rc"
done
echo "   $((SECONDS - start)) s"

echo "== perf: 07-ptx-wrappers beside the reference, 4096^3"
"$BUILD/runners/tilelab-judge" --worker "$BUILD/runners/run-kit-07-ptx-wrappers-$stage-gpu" \
  --spec "$BUILD/generated/stages/$stage.json" --dataset "$BUILD/datasets/$stage/4096x4096x4096" --check perf \
  --json "$OUT/perf.json" > "$OUT/perf.log" 2>&1
echo "   rc $?"

echo "== the cases (gpu-suite.sh, its build skipped)"
SKIP_BUILD=1 OUT="$OUT" BUILD="$BUILD" "$root/grader/tests/submissions/gpu-suite.sh" "${names[@]}"
rc=$?
echo "== perf (the judge's table: seconds, GFLOP/s)"
cat "$OUT/perf.log"
exit $rc
