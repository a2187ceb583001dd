#!/bin/bash
# The known-bad submissions on a GPU, in one call (for the device machine: 16 cores, one GPU).
# Runs each on the GPU runner alone and under compute-sanitizer, and tabulates the first finding
# beside the emulator's verdict.
#
#   OUT=/some/dir grader/tests/submissions/gpu-suite.sh [NAME...]     (default: every submission)
#   IMPLS="solution;starter"   also build those in the tree (their CTest checks then run there too)
#   SKIP_RUN=1 only build (steps 1-2);  SKIP_BUILD=1 only run and tabulate (steps 3-4), in a tree
#   an earlier SKIP_RUN call built (grader/setup/gpu-verify.sh builds while another tree builds)
#
# 1. one tree (build/gpu-suite, -DTILELAB_KIT_GPU=ON: grader/cmake/TilelabKitGpu.cmake) makes the
#    datasets and every submission's runner run-kit-<name>-<stage>-gpu, sharing what they share;
# 2. each submission's target is then built alone, for its own build log and status (a build that
#    fails is the submission's result: compile);
# 3. gpu_suite.py runs each expect.toml's [gpu] cases (correct on one dataset; perf for the cheats that
#    need it), the static scan, and memcheck/synccheck/racecheck for the bug kernels;
# 4. $OUT/summary.md: submission, expected, GPU verdict, hint/finding, sanitizer findings.
# Logs: $OUT/logs/, results: $OUT/results/. Exit 0 when every row is as expected.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/gpu-suite}
BUILD=${BUILD:-$root/build/gpu-suite}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT/logs" "$BUILD"
. "$root/grader/setup/offline-env.sh"   # the carried Debian packages, compute-sanitizer on PATH
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-4}
py=$(command -v python3)
subs_dir="$root/grader/tests/submissions"
start=$SECONDS

if [ $# -gt 0 ]; then names=("$@"); else
  mapfile -t names < <(cd "$subs_dir" && ls -d */ | tr -d / | while read -r n; do [ -f "$n/expect.toml" ] && echo "$n"; done)
fi
echo "== ${#names[@]} submissions; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

stage_of() { sed -n 's/^stage *= *"\([^"]*\)".*/\1/p' "$subs_dir/$1/expect.toml" | head -1; }

if [ -z "${SKIP_BUILD:-}" ]; then
echo "== configure + build (datasets and every runner)"
cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=ON -DTILELAB_EMU=OFF -DTILELAB_IMPLS="${IMPLS:-}" \
  -DTILELAB_KIT_GPU=ON -DTILELAB_GRADING_SEED= -DPython3_EXECUTABLE="$py" > "$OUT/logs/_configure.log" 2>&1 \
  || { tail -30 "$OUT/logs/_configure.log"; exit 1; }
# Keep going past a submission that does not build where it was expected to: step 2 reports it.
cmake --build "$BUILD" --parallel "$JOBS" -- -k > "$OUT/logs/_build.log" 2>&1 \
  || grep -E "error" "$OUT/logs/_build.log" | head -10
[ -d "$BUILD/datasets" ] || { tail -30 "$OUT/logs/_build.log"; exit 1; }
datasets="$BUILD/datasets"
# Only a runner the parallel build did not make is built again alone, for its log: one make call per
# submission over this tree's whole graph costs seconds each, minutes over 150 submissions.
for name in "${names[@]}"; do
  target="run-kit-$name-$(stage_of "$name")-gpu"
  if [ -x "$BUILD/runners/$target" ]; then echo 0 > "$OUT/logs/$name.build.rc"; continue; fi
  cmake --build "$BUILD" --target "$target" > "$OUT/logs/$name.build.log" 2>&1
  echo $? > "$OUT/logs/$name.build.rc"
done
echo "   $((SECONDS - start)) s"
fi
[ -n "${SKIP_RUN:-}" ] && exit 0
datasets="$BUILD/datasets"

# 3. the cases (4 at a time: the GPU is shared; perf runs time against the reference in-process)
run_one() {
  local name=$1 rc; rc=$(cat "$OUT/logs/$name.build.rc" 2>/dev/null || echo 1)
  "$py" "$subs_dir/gpu_suite.py" case --expect "$subs_dir/$name/expect.toml" --tree "$BUILD" \
        --datasets "$datasets" --out "$OUT" --build-log "$OUT/logs/$name.build.log" --build-rc "$rc" \
        > "$OUT/logs/$name.suite.log" 2>&1
  echo "   $name: $(grep -c '"ok": true' "$OUT/logs/$name.suite.log") ok, $(grep -c '"ok": false' "$OUT/logs/$name.suite.log") not"
}
export -f run_one
export datasets py subs_dir BUILD OUT
echo "== run"
printf '%s\n' "${names[@]}" | xargs -P 4 -I{} bash -c 'run_one "$1"' _ {}
echo "   $((SECONDS - start)) s"

# 4. the table
"$py" "$subs_dir/gpu_suite.py" table "$OUT"
rc=$?
echo "== done in $((SECONDS - start)) s; $OUT/summary.md"
exit $rc
