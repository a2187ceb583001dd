#!/usr/bin/env bash
# Runs NVIDIA compute-sanitizer on the kit's known-bad kernels, for the table "Compared with
# compute-sanitizer" in docs/emulator.md. Run on a machine with a GPU and the CUDA Toolkit:
#
#   grader/emu/compare-sanitizer.sh [OUT_DIR]        (default: gpu-out/compare-sanitizer)
#
# For every grader/tests/submissions/<bug>/ it configures one build tree with
# -DTILELAB_SUBMISSION=<bug> -DTILELAB_IMPLS='' (so only run-submission-<stage>-gpu is built), then
# runs memcheck, racecheck, synccheck and initcheck on that runner for each dataset its expect.toml
# names. It writes OUT_DIR/summary.md (one row per bug x dataset: the runner's verdict without a
# tool, then each tool's first report with its source line) and OUT_DIR/logs/ (every full log).
# racecheck is skipped above size 256 (DESIGN.md: it is ~10^4x slower).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/gpu-out/compare-sanitizer}"
build="$root/build/compare-sanitizer"
mkdir -p "$out/logs"
command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found (CUDA Toolkit bin/ on PATH?)" >&2; exit 77; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU here" >&2; exit 77; }
py="${PYTHON:-python3}"
[ -x "$root/.venv/bin/python3" ] && py="$root/.venv/bin/python3"

# The first report of a compute-sanitizer log: the error line and the first source location.
first_report() {
  "$py" - "$1" <<'EOF'
import re, sys
lines = open(sys.argv[1], errors="replace").read().splitlines()
err = loc = ""
for l in lines:
    body = l.removeprefix("=========").strip()
    if not l.startswith("=========") or not body:
        continue
    if not err and re.search(r"(Invalid|Race reported|Barrier error|Uninitialized|error|Error|hazard)", body) \
            and not body.startswith("ERROR SUMMARY") and not body.startswith("RACECHECK SUMMARY"):
        err = body
        m = re.search(r"(\S+\.cu):(\d+)", body)
        loc = f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}" if m else ""
        continue
    if err and not loc:
        m = re.search(r"(\S+\.cu):(\d+)", body)
        if m:
            loc = f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}"
            break
summary = next((l.removeprefix("=========").strip() for l in lines
                if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l), "")
print((err[:110] + (" @ " + loc if loc else "")) if err else ("clean" + (f" ({summary})" if summary else "")))
EOF
}

{
  echo "# compute-sanitizer on the known-bad kernels"
  echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(compute-sanitizer --version | tail -1)"
  echo
  echo "| bug | dataset | runner (no tool) | memcheck | racecheck | synccheck | initcheck |"
  echo "|---|---|---|---|---|---|---|"
} > "$out/summary.md"

for expect in "$root"/grader/tests/submissions/*/expect.toml; do
  dir="$(dirname "$expect")"
  bug="$(basename "$dir")"
  stage="$(sed -n 's/^stage *= *"\([^"]*\)".*/\1/p' "$expect" | head -1)"
  mapfile -t datasets < <(sed -n 's/^dataset *= *"\([^"]*\)".*/\1/p' "$expect" | sort -u)
  echo "== $bug ($stage: ${datasets[*]})"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=ON -DTILELAB_EMU=OFF \
        -DTILELAB_IMPLS='' -DTILELAB_SUBMISSION="$dir" -DTILELAB_GRADING_SEED= > "$out/logs/$bug.configure.log" 2>&1
  cmake --build "$build" -j"$(nproc)" --target "run-submission-$stage-gpu" datasets > "$out/logs/$bug.build.log" 2>&1 \
    || { echo "| $bug | | build failed (logs/$bug.build.log) | | | | |" >> "$out/summary.md"; continue; }
  runner="$build/runners/run-submission-$stage-gpu"
  spec="$root/assignments/$stage/stage.toml"
  for ds in "${datasets[@]}"; do
    args=(--spec "$spec" --dataset "$build/datasets/$stage/$ds" --check correct --timeout 600)
    size="$("$py" -c "import json,sys; m=json.load(open(sys.argv[1])); print(max(m['J'], m['K'], m['L']))" \
            "$build/datasets/$stage/$ds/meta.json")"
    "$runner" "${args[@]}" --json "$out/logs/$bug.$ds.plain.json" > "$out/logs/$bug.$ds.plain.log" 2>&1 || true
    plain="$("$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['verdict'], r.get('hint_code',''))" \
             "$out/logs/$bug.$ds.plain.json" 2>/dev/null || echo "no result")"
    row="| $bug | $ds | $plain |"
    for tool in memcheck racecheck synccheck initcheck; do
      log="$out/logs/$bug.$ds.$tool.log"
      if [ "$tool" = racecheck ] && [ "$size" -gt 256 ]; then
        row="$row skipped (size $size) |"
        continue
      fi
      compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 10 \
        "$runner" "${args[@]}" --json "$out/logs/$bug.$ds.$tool.json" > "$log" 2>&1 || true
      row="$row $(first_report "$log" | sed 's/|/\\|/g') |"
    done
    echo "$row" >> "$out/summary.md"
    echo "   $ds done"
  done
done
echo "summary: $out/summary.md"
