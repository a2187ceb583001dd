#!/bin/bash
# Issue #45.3 on a GPU machine in one call: 07's reference (PTX mma.sync on <tilelab/mma_ptx.cuh>)
# through the sealed judge's checks, its speed, and the 07 known-good and known-bad verdicts.
#
#   OUT=/some/dir bash grader/setup/gpu-07.sh        (from the repository root; about 4 minutes on an H200)
#
# 1. configure a GPU tree (no emulator; the known-bad suite's GPU runners) and build 07's and 06's
#    solution runners, the references, 07's datasets and the runners of every 07 submission;
# 2. CTest: every check of solution.07-tensor-cores (15 public datasets with 3001x1999x2503, the 4
#    hidden, the perf check at 4096^3, memcheck / synccheck / initcheck / racecheck);
# 3. the judge's timed check (--check perf: CUDA events, interleaved, L2 flushed; the reference, 06's
#    kernel and cuBLAS TF32 timed in the same process) of the reference at 4096^3, 8192^3 and
#    5000x2500x4000, of the wmma known-good at 4096^3 (its ratio is what a plain wmma kernel earns
#    from), and of 06 at 4096^3 against cuBLAS FP32 (06's own perf check);
# 4. gpu-suite.sh's cases of the 07 submissions (07-wmma-reference: correct, memcheck, its perf
#    credit; the mutants' verdicts);
# then the table. Logs under $OUT: configure/build logs, ctest.log, junit.xml, perf/*.json and *.log,
# suite/ (gpu-suite's logs, results, summary.md), table.txt.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/gpu-07}
BUILD=${BUILD:-$root/build/gpu-07}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT/perf" "$OUT/logs" "$OUT/suite/logs" "$BUILD"
. "$root/grader/setup/offline-env.sh"
py=$(command -v python3)
stage=07-tensor-cores
subs=()
for e in grader/tests/submissions/07-*/expect.toml; do s=${e%/expect.toml}; subs+=("${s##*/}"); done
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1

echo "== configure + build"
# The default preset (its grading seed: the hidden checks), on the GPU alone, with the known-bad
# suite's GPU runners.
cmake --preset default -B "$BUILD" -DTILELAB_CUDA=ON -DTILELAB_EMU=OFF -DTILELAB_KIT_GPU=ON \
  -DTILELAB_IMPLS=solution -DPython3_EXECUTABLE="$py" > "$OUT/logs/configure.log" 2>&1 \
  || { tail -30 "$OUT/logs/configure.log"; exit 1; }
targets=(tilelab-judge "datasets-$stage" "run-solution-$stage-gpu" "ref-$stage-gpu" run-solution-06-register-tiled-gpu
         ref-06-register-tiled-gpu)
for name in "${subs[@]}"; do targets+=("run-kit-$name-$stage-gpu"); done
# One parallel build, past a submission that does not build (-k: that is its result, compile, which
# gpu-suite.sh reads from the runner's absence and the shared log).
cmake --build "$BUILD" --parallel "$JOBS" --target "${targets[@]}" -- -k > "$OUT/logs/build.log" 2>&1
for t in tilelab-judge "run-solution-$stage-gpu" "ref-$stage-gpu" run-solution-06-register-tiled-gpu; do
  [ -x "$BUILD/runners/$t" ] || { echo "$t did not build:"; grep -E "error" "$OUT/logs/build.log" | head -30; exit 1; }
done
for name in "${subs[@]}"; do
  cp "$OUT/logs/build.log" "$OUT/suite/logs/$name.build.log"
  [ -x "$BUILD/runners/run-kit-$name-$stage-gpu" ]; echo $? > "$OUT/suite/logs/$name.build.rc"
done
echo "   $((SECONDS - start)) s"

echo "== ctest: solution.$stage (every dataset, hidden, perf, sanitizers)"
ctest --test-dir "$BUILD" -R "^solution\.$stage\." -j 8 --output-on-failure --output-junit "$OUT/junit.xml" \
  > "$OUT/ctest.log" 2>&1
ctest_rc=$?
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | tail -15
echo "   $((SECONDS - start)) s"

echo "== perf: the judge's timed check"
perf() {  # tag worker spec-stage shape...
  local tag=$1 worker=$2 st=$3; shift 3
  "$BUILD/runners/tilelab-judge" --worker "$BUILD/runners/$worker" --spec "$BUILD/generated/stages/$st.json" \
    --shape "$@" --check perf --json "$OUT/perf/$tag.json" --timeout 280 > "$OUT/perf/$tag.log" 2>&1
  echo "   $tag: exit $?"
}
perf ref-4096 "run-solution-$stage-gpu" $stage 4096 4096 4096
perf ref-8192 "run-solution-$stage-gpu" $stage 8192 8192 8192
perf ref-5000x2500x4000 "run-solution-$stage-gpu" $stage 5000 2500 4000
perf wmma-4096 "run-kit-07-wmma-reference-$stage-gpu" $stage 4096 4096 4096
perf 06-4096 run-solution-06-register-tiled-gpu 06-register-tiled 4096 4096 4096
echo "   $((SECONDS - start)) s"

echo "== the 07 submissions (gpu-suite.sh, its build skipped)"
SKIP_BUILD=1 OUT="$OUT/suite" BUILD="$BUILD" "$root/grader/tests/submissions/gpu-suite.sh" "${subs[@]}" \
  > "$OUT/logs/suite.log" 2>&1
suite_rc=$?
echo "   rc $suite_rc, $((SECONDS - start)) s"

{
  echo "GPU: $(cat "$OUT/gpu.txt")"
  echo "ctest solution.$stage: rc $ctest_rc; $(grep -E "tests passed|tests failed" "$OUT/ctest.log" | tail -1)"
  "$py" - "$OUT/perf" <<'EOF'
import json, sys
from pathlib import Path
d = Path(sys.argv[1])
print("| run | shape | verdict | TFLOP/s per implementation (timing.impls) | ratio to reference | to previous | to library |")
print("|---|---|---|---|---|---|---|")
for tag in ("ref-4096", "ref-8192", "ref-5000x2500x4000", "wmma-4096", "06-4096"):
    try:
        r = json.loads((d / f"{tag}.json").read_text())
    except (OSError, ValueError):
        print(f"| {tag} | | no result | | | | |"); continue
    t = r.get("timing") or {}
    impls = ", ".join(f"{k} {v.get('gflops', 0) / 1000:.1f}" for k, v in (t.get("impls") or {}).items()
                      if isinstance(v, dict) and v.get("gflops"))
    f = lambda k: f"{t[k]:.3f}" if isinstance(t.get(k), (int, float)) else ""
    sh = r.get("shape") or {}
    sh = [sh.get(k) for k in "JKL"] if isinstance(sh, dict) else sh
    print(f"| {tag} | {'x'.join(map(str, sh))} | {r.get('verdict')} | {impls} | "
          f"{f('ratio_to_reference')} | {f('ratio_to_previous')} | {f('ratio_to_cublas')} |")
EOF
  echo
  sed -n '/^| submission/,$p' "$OUT/suite/summary.md" 2>/dev/null
} | tee "$OUT/table.txt"
echo "total $((SECONDS - start)) s"
[ $ctest_rc -eq 0 ] && [ $suite_rc -eq 0 ]
