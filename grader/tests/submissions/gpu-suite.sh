#!/bin/bash
# The known-bad submissions on a GPU, in one call (for the device machine: 16 cores, one GPU).
# Runs each on the GPU runner alone and under compute-sanitizer, and tabulates the first finding
# beside the emulator's verdict.
#
#   OUT=/some/dir grader/tests/submissions/gpu-suite.sh [NAME...]     (default: every submission)
#
# 1. one tree (build/gpu-suite/_data) makes the datasets;
# 2. every grader/tests/submissions/<name>/ gets its own small tree (-DTILELAB_SUBMISSION=<name>
#    -DTILELAB_IMPLS='' -DTILELAB_EMU=OFF), configured and built in parallel (run-submission-<stage>-gpu
#    only); a build that fails is the submission's result (compile);
# 3. gpu_suite.py runs each expect.toml's [gpu] cases (correct on one dataset; perf for the cheats that
#    need it), the static scan, and memcheck/synccheck/racecheck for the bug kernels;
# 4. $OUT/summary.md: submission, expected, GPU verdict, hint/finding, sanitizer findings.
# Logs: $OUT/logs/, results: $OUT/results/. Exit 0 when every row is as expected.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/gpu-suite}
BUILD=${BUILD:-$root/build/gpu-suite}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT/logs" "$BUILD"
if [ -d .deps/usr ]; then
  export CMAKE_PREFIX_PATH="$root/.deps/usr"
  export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/openblas-pthread:$root/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -x /usr/local/cuda/bin/compute-sanitizer ] && export PATH="$PATH:/usr/local/cuda/bin"
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-4}
py=$(command -v python3)
subs_dir="$root/grader/tests/submissions"
start=$SECONDS

if [ $# -gt 0 ]; then names=("$@"); else
  mapfile -t names < <(cd "$subs_dir" && ls -d */ | tr -d / | while read -r n; do [ -f "$n/expect.toml" ] && echo "$n"; done)
fi
echo "== ${#names[@]} submissions; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

common=(-DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=ON -DTILELAB_EMU=OFF -DTILELAB_IMPLS=
        -DTILELAB_GRADING_SEED= -DTILELAB_STARTER_EXPECT_FAIL=OFF -DPython3_EXECUTABLE="$py")

# 1. datasets (and a configure that warms nothing else)
echo "== datasets"
cmake -S "$root" -B "$BUILD/_data" "${common[@]}" > "$OUT/logs/_data.configure.log" 2>&1 \
  || { tail -30 "$OUT/logs/_data.configure.log"; exit 1; }
cmake --build "$BUILD/_data" --target datasets --parallel "$JOBS" > "$OUT/logs/_data.build.log" 2>&1 \
  || { tail -30 "$OUT/logs/_data.build.log"; exit 1; }
datasets="$BUILD/_data/datasets"
echo "   $((SECONDS - start)) s"

# 2. one tree per submission, in parallel (2 compile jobs each)
build_one() {
  local name=$1 dir="$subs_dir/$1" tree="$BUILD/$1"
  local stage; stage=$(sed -n 's/^stage *= *"\([^"]*\)".*/\1/p' "$dir/expect.toml" | head -1)
  cmake -S "$root" -B "$tree" "${common[@]}" -DTILELAB_SUBMISSION="$dir" > "$OUT/logs/$name.configure.log" 2>&1
  cmake --build "$tree" --target "run-submission-$stage-gpu" --parallel 2 > "$OUT/logs/$name.build.log" 2>&1
  echo $? > "$OUT/logs/$name.build.rc"
}
export -f build_one
export root subs_dir BUILD OUT py
export common_str="${common[*]}"
echo "== build ${#names[@]} trees"
printf '%s\n' "${names[@]}" | xargs -P "$(( JOBS / 2 > 0 ? JOBS / 2 : 1 ))" -I{} bash -c \
  'common=($common_str); build_one "$1"' _ {}
echo "   $((SECONDS - start)) s"

# 3. the cases (4 at a time: the GPU is shared; perf runs time against the reference in-process)
run_one() {
  local name=$1 rc; rc=$(cat "$OUT/logs/$name.build.rc" 2>/dev/null || echo 1)
  "$py" "$subs_dir/gpu_suite.py" case --expect "$subs_dir/$name/expect.toml" --tree "$BUILD/$name" \
        --datasets "$datasets" --out "$OUT" --build-log "$OUT/logs/$name.build.log" --build-rc "$rc" \
        > "$OUT/logs/$name.suite.log" 2>&1
  echo "   $name: $(grep -c '"ok": true' "$OUT/logs/$name.suite.log") ok, $(grep -c '"ok": false' "$OUT/logs/$name.suite.log") not"
}
export -f run_one
export datasets
echo "== run"
printf '%s\n' "${names[@]}" | xargs -P 4 -I{} bash -c 'run_one "$1"' _ {}
echo "   $((SECONDS - start)) s"

# 4. the table
"$py" "$subs_dir/gpu_suite.py" table "$OUT"
rc=$?
echo "== done in $((SECONDS - start)) s; $OUT/summary.md"
exit $rc
