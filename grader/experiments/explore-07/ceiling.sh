#!/bin/bash
# Issue #45.3 on a GPU machine, from the repository root: bash grader/experiments/explore-07/ceiling.sh
# Builds every candidate of 07 (candidate-*.cu, and variants of them by -D), the 06 and 07
# references (07's: the PTX kernel on <tilelab/mma_ptx.cuh> since issue #45.3; the wmma kernel it
# replaced: grader/tests/submissions/07-wmma-reference), peak.cu and peak-mma-ptx.cu (the wmma and PTX ceilings), each candidate with
# ceiling-bench.cu (the stage's TF32 rule against cuBLAS FP32 on 22 check shapes and the 3 timed
# ones; timing beside cuBLAS TF32, L2 flushed, medians), runs them one after another, and prints the
# table last (ceiling-table.py). Logs: $OUT (env.txt, build-*.log with ptxas's registers and spills,
# run-*.log, peak.log, table.txt); binaries: $BIN. ARCH: sm_90 (H100, H200) unless set. About 3
# minutes on an H100: builds in parallel (JOBS), then runs of 5-15 s each.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/ceiling-07}
BIN=${BIN:-/tmp/ceiling-07-bin}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-16}
mkdir -p "$OUT" "$BIN"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv; nvcc --version | tail -1; date -u; } > "$OUT/env.txt" 2>&1

# name, source, extra nvcc flags. The row order is the table's.
VARIANTS=(
  "06-reference|../../../solutions/06-register-tiled/matmul.cu|"
  "07-wmma-reference|../../tests/submissions/07-wmma-reference/07-tensor-cores/matmul.cu|"
  "07-reference|../../../solutions/07-tensor-cores/matmul.cu|-I../../include"
  "A-wmma-cpasync-128x128|candidate-a-wmma-cpasync-128x128.cu|"
  "B-wmma-cpasync-256x128|candidate-b-wmma-cpasync-256x128.cu|"
  "A-8warps-64x32|cp-async-pipeline.cu|-DHYBRID=1 -DFDB=0 -DCONV=0 -DWN=32 -DMINB=2"
  "C-mma-ptx-128x128|candidate-c-mma-ptx-128x128.cu|"
  "D-mma-ptx-128x128-8w|candidate-d-mma-ptx-128x128-8warps.cu|"
  "E-mma-ptx-bperm|candidate-e-mma-ptx-128x128-bperm.cu|"
  "F-mma-ptx-128x256-bperm|candidate-f-mma-ptx-128x256-bperm.cu|"
  "E-round|candidate-e-mma-ptx-128x128-bperm.cu|-DROUND=1"
  "E-4stages|candidate-e-mma-ptx-128x128-bperm.cu|-DSTAGES=4"
  "E-raster0|candidate-e-mma-ptx-128x128-bperm.cu|-DRASTER=0"
  "E-interleave1|candidate-e-mma-ptx-128x128-bperm.cu|-DINTERLEAVE=1"
  "F-interleave1|candidate-f-mma-ptx-128x256-bperm.cu|-DINTERLEAVE=1"
)

build() {
  local name=$1 src=$2 flags=$3
  # shellcheck disable=SC2086
  nvcc -O3 -std=c++17 -arch="$ARCH" -DNAME="\"$name\"" -DVARIANT="\"$src\"" $flags ceiling-bench.cu -lcublas \
    -o "$BIN/$name" -Xptxas -v > "$OUT/build-$name.log" 2>&1 || echo "build $name failed: $OUT/build-$name.log"
}
start=$(date +%s)
nvcc -O3 -std=c++17 -arch="$ARCH" peak.cu -o "$BIN/peak" > "$OUT/build-peak.log" 2>&1 || echo "build peak failed" &
for bp in 0 1; do
  nvcc -O3 -std=c++17 -arch="$ARCH" -DBPERM=$bp peak-mma-ptx.cu -o "$BIN/peak-ptx-$bp" -Xptxas -v > "$OUT/build-peak-ptx-$bp.log" 2>&1 \
    || echo "build peak-ptx-$bp failed" &
done
for v in "${VARIANTS[@]}"; do
  IFS='|' read -r name src flags <<< "$v"
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  build "$name" "$src" "$flags" &
done
wait
echo "built in $(( $(date +%s) - start )) s"

[ -x "$BIN/peak" ] && timeout 120 "$BIN/peak" > "$OUT/peak.log" 2>&1
for bp in 0 1; do [ -x "$BIN/peak-ptx-$bp" ] && timeout 60 "$BIN/peak-ptx-$bp" >> "$OUT/peak.log" 2>&1; done
for v in "${VARIANTS[@]}"; do
  IFS='|' read -r name src flags <<< "$v"
  [ -x "$BIN/$name" ] || continue
  timeout 180 "$BIN/$name" > "$OUT/run-$name.log" 2>&1
  echo "$name: exit $? ($(grep -c FAIL "$OUT/run-$name.log") failed checks)"
done
echo "all done in $(( $(date +%s) - start )) s"
cat "$OUT/peak.log" 2>/dev/null
python3 ceiling-table.py "$OUT" "${VARIANTS[@]%%|*}" | tee "$OUT/table.txt"
