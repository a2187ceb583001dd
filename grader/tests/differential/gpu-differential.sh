#!/bin/bash
# The differential check's GPU half (docs/emulator.md, "Differential check"), in one call on a
# machine with an NVIDIA GPU and the CUDA Toolkit:
#
#   OUT=/some/dir grader/tests/differential/gpu-differential.sh
#   EMU_JSON=build/default/results/differential-emu.json OUT=... gpu-differential.sh
#
# With EMU_JSON (the CPU half's results, from `ctest -R kit.emu.differential` on any machine; the
# variants and datasets are deterministic) the emulator is not built here, so Boost.Context is
# not needed; without it the emulator runs here too.
#
# 1. one tree (build/gpu-differential) with the emulator and -DTILELAB_KIT_GPU=ON: datasets, the
#    variants' emulator runners (run-variants-<stage>-emu*) and GPU runners (-gpu), and the kit's
#    known-good and known-bad submissions;
# 2. every variant on every emulator build and on the GPU, on the same datasets
#    (differential.py run), the CPU half's assertions (check-emu), then the comparison (compare);
#    the variants with a memory or race bug also run under their compute-sanitizer tool (backend
#    gpu-sanitizer: memcheck with exact, padded buffers or racecheck, as tilelab.run.sanitize runs the
#    kit's sanitizer checks), and compare's second table sets their findings beside the emulator's;
# 3. the known-good submissions of issue #13 (SUITE: names; SUITE=none skips) through gpu-suite.sh,
#    in the same tree with EMU_JSON (gpu-suite.sh configures it the same way), else in BUILD-suite.
# Writes $OUT/differential.md (the table for docs/emulator.md), $OUT/emu.json, $OUT/gpu.json,
# $OUT/suite/summary.md and logs. Exit 0 when nothing is unexplained, memcheck and the emulator agree
# on every out-of-bounds bug, and every suite row is as expected.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/differential}
BUILD=${BUILD:-$root/build/gpu-differential}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT/logs"
. "$root/grader/setup/offline-env.sh"   # the carried Debian packages, compute-sanitizer on PATH
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-4}
py=$(command -v python3)
d="$root/grader/tests/differential"
start=$SECONDS
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
echo "== $gpu; $(nvcc --version | tail -2 | head -1); $(date -u +%F)"
# 07-tensor-cores' variants (and the kit's own 07) use TF32 wmma fragments: sm_80 or later. The tree
# is built for this GPU's architecture (TILELAB_CUDA_ARCHITECTURES' default, native: sm_90 on an H100).
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
if [[ "$cap" =~ ^[0-9]+\.[0-9]+$ ]] && [ "${cap%%.*}" -lt 8 ]; then
  echo "compute capability $cap: TF32 tensor cores (07-tensor-cores) need 8.0 or later" >&2
  exit 1
fi

echo "== configure + build"
emu=ON; [ -n "${EMU_JSON:-}" ] && emu=OFF
cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=ON -DTILELAB_EMU=$emu -DTILELAB_IMPLS= \
  -DTILELAB_KIT_GPU=ON -DTILELAB_GRADING_SEED= -DPython3_EXECUTABLE="$py" > "$OUT/logs/configure.log" 2>&1 \
  || { tail -30 "$OUT/logs/configure.log"; exit 1; }
targets=(datasets)
# Every stage variants.py wrote variants for (02-tiled, 03-boundary, 04-rectangular, 07-tensor-cores).
stages=$(cd "$BUILD/generated/variants" && ls -d */ | tr -d /)
echo "   variants of: $(echo $stages)"
for s in $stages; do
  targets+=("run-variants-$s-gpu")
  [ $emu = ON ] && targets+=("run-variants-$s-emu" "run-variants-$s-emu-race" "run-variants-$s-emu-asan")
done
cmake --build "$BUILD" --parallel "$JOBS" --target "${targets[@]}" > "$OUT/logs/build.log" 2>&1 \
  || { grep -E "error" "$OUT/logs/build.log" | head -20; exit 1; }
echo "   $((SECONDS - start)) s"

echo "== variants: emulator, then GPU"
if [ $emu = ON ]; then
  "$py" "$d/differential.py" run --tree "$BUILD" --variants "$BUILD/generated/variants" \
    --backends emu,emu-race,emu-asan --out "$OUT/emu.json" --jobs "$JOBS"
else
  cp "$EMU_JSON" "$OUT/emu.json"
fi
"$py" "$d/differential.py" check-emu "$OUT/emu.json" | tee "$OUT/check-emu.txt"
emu_rc=${PIPESTATUS[0]}
"$py" "$d/differential.py" run --tree "$BUILD" --variants "$BUILD/generated/variants" \
  --backends gpu,gpu-sanitizer --out "$OUT/gpu.json" --jobs 4
"$py" "$d/differential.py" compare "$OUT/emu.json" "$OUT/gpu.json" --md "$OUT/differential.md"
cmp_rc=$?
echo "   $((SECONDS - start)) s"

suite_rc=0
SUITE=${SUITE:-04-max-of-dims 03-cuda-extras 02-windows-crlf}
if [ "$SUITE" != none ]; then
  echo "== known-good submissions on the GPU (gpu-suite.sh $SUITE)"
  # shellcheck disable=SC2086
  suite_build="$BUILD-suite"; [ $emu = OFF ] && suite_build="$BUILD"
  OUT="$OUT/suite" BUILD="$suite_build" JOBS="$JOBS" bash "$root/grader/tests/submissions/gpu-suite.sh" $SUITE | tail -8
  suite_rc=${PIPESTATUS[0]}
fi
echo "== done in $((SECONDS - start)) s: check-emu rc=$emu_rc, compare rc=$cmp_rc, suite rc=$suite_rc"
[ "$emu_rc" = 0 ] && [ "$cmp_rc" = 0 ] && [ "$suite_rc" = 0 ]
