#!/bin/bash
# The performance model's validation (docs/performance.md, "Validation"), in two halves:
#
#   here, with Boost.Context (the emulator's count build):
#     OUT=/tmp/mv grader/model-validation/model-validation.sh emu
#       -> $OUT/model-emu.json: each variant's modelled ratio to its stage's reference
#   on the GPU machine (CUDA; no Boost needed), with that file:
#     EMU_JSON=/path/model-emu.json OUT=$OUT grader/model-validation/model-validation.sh gpu
#       -> $OUT/model-gpu.json (measured at 4096^3: CUDA events, median, cold L2, cuBLAS in the same
#          run, as the timed check) and $OUT/model-validation.md, the table for docs/performance.md
#
# RESUME=<an earlier run's model-<mode>.json> keeps its rows and runs only the kernels it lacks.
# BUILD_ONLY=1 stops after the build (a second call with the same BUILD then only runs).
# STAGE=<stage> keeps only that stage's kernels of the sets picked (07-tensor-cores' own validation).
# SET=<a set of grader/model-validation/model_variants.py's SETS>|all (default all) picks the kernels
# built, run and compared: the fitting variants (edits of the solutions) and the frozen held-out
# sets (grader/model-validation/heldout/*, listed in SETS: `model_variants.py sets`), all written into the
# build tree by both halves alike; the comparison reports each set apart. Exit 0 when every run
# passed and (gpu) every set meets the targets.
set -u
mode=${1:-}
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out/model-validation}
JOBS=${JOBS:-$(nproc)}
SIZE=${SIZE:-4096}
SET=${SET:-all}
sets=$(python3 "$root/grader/model-validation/model_variants.py" sets) || exit 2
[ "$SET" = all ] || grep -qxF -- "$SET" <<< "$sets" || { echo "SET must be all or one of: $(echo $sets)"; exit 2; }
mkdir -p "$OUT/logs"
. "$root/grader/setup/offline-env.sh"   # .deps unpacked and on the loader's path; CMake finds it itself
py=$(command -v python3)
case "$mode" in
  emu) BUILD=${BUILD:-$root/build/model-validation-emu}; cuda=OFF; emu=ON; backend=emu-count ;;
  gpu) BUILD=${BUILD:-$root/build/model-validation-gpu}; cuda=ON; emu=OFF; backend=gpu
       [ -n "${EMU_JSON:-}" ] && [ -f "$EMU_JSON" ] || { echo "gpu: set EMU_JSON to the emu half's model-emu.json"; exit 2; } ;;
  *) echo "usage: OUT=DIR $0 emu | EMU_JSON=FILE OUT=DIR $0 gpu"; exit 2 ;;
esac
start=$SECONDS
[ "$mode" = gpu ] && echo "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(date -u +%F)"
variants="$BUILD/model-variants"
"$py" grader/model-validation/model_variants.py write "$variants" || exit 1
if [ -n "${STAGE:-}" ]; then  # STAGE=07-tensor-cores: only that stage's kernels, of the sets picked
  "$py" - "$variants/variants.json" "$STAGE" <<'PY' || exit 1
import json, sys
path, stage = sys.argv[1], sys.argv[2]
kept = {n: v for n, v in json.load(open(path)).items() if v["stage"] == stage}
if not kept:
    sys.exit(f"STAGE={stage}: no kernel of that stage")
json.dump(kept, open(path, "w"), indent=1)
PY
fi
echo "== configure + build ($mode)"
cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=$cuda -DTILELAB_EMU=$emu -DTILELAB_IMPLS= \
  -DTILELAB_MODEL_VARIANTS="$variants" -DPython3_EXECUTABLE="$py" \
  > "$OUT/logs/configure-$mode.log" 2>&1 || { tail -30 "$OUT/logs/configure-$mode.log"; exit 1; }
targets=()
while read -r v s; do
  targets+=("run-mv-$v-$s-$backend")
done < <("$py" -c 'import json, sys
done = json.load(open(sys.argv[3])) if sys.argv[3] else {}
for n, v in json.load(open(sys.argv[1])).items():
    if sys.argv[2] in ("all", v.get("set", "fitting")) and n not in done: print(n, v["stage"])' \
  "$variants/variants.json" "$SET" "${RESUME:-}")
cmake --build "$BUILD" --parallel "$JOBS" --target "${targets[@]}" > "$OUT/logs/build-$mode.log" 2>&1 \
  || { grep -E "error" "$OUT/logs/build-$mode.log" | head -20; exit 1; }
echo "   built in $((SECONDS - start)) s"
[ -n "${BUILD_ONLY:-}" ] && exit 0   # BUILD_ONLY=1: build now, run in a second call (same BUILD)
echo "== run"
"$py" grader/model-validation/model_validation.py run --tree "$BUILD" --variants "$variants" --backend $backend \
  --out "$OUT/model-$mode.json" --size "$SIZE" --set "$SET" --jobs "$JOBS" ${RESUME:+--resume "$RESUME"}
rc=$?
if [ "$mode" = gpu ]; then
  echo "== modelled vs measured"
  "$py" grader/model-validation/model_validation.py compare "$EMU_JSON" "$OUT/model-gpu.json" --md "$OUT/model-validation.md" --set "$SET"
  rc=$((rc | $?))
fi
echo "== done in $((SECONDS - start)) s; results in $OUT"
exit $rc
