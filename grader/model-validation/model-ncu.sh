#!/bin/bash
# Nsight Compute's counters of the L1/shared-memory data path for the performance model's kernels
# (docs/performance.md, "The model"): what the model charges a warp-level global load (sectors)
# against what the hardware spends (L1 wavefronts, requests, hit rate), per kernel.
#
#   VARIANTS=DIR OUT=DIR grader/model-validation/model-ncu.sh NAME...   # NAME: a folder DIR/NAME/<stage>/matmul.cu
#
# DIR is what model_variants.py write makes. Each kernel is compiled into a small host program
# (ncu_bench below: device buffers of SIZE^3 filled with 1, one launch_matmul) and profiled once.
# Writes OUT/ncu.csv (one row per kernel and metric) and OUT/ncu-<NAME>.log. The kernels are compiled
# side by side first (nvcc is most of the time), then profiled one at a time. EXTRA_METRICS adds names.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
VARIANTS=${VARIANTS:?set VARIANTS to the folder model_variants.py writes}
OUT=${OUT:?set OUT}
SIZE=${SIZE:-2048}
mkdir -p "$OUT/bin"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
want="gpu__time_duration.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sector_hit_rate.pct l1tex__data_pipe_lsu_wavefronts.sum l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
l1tex__data_pipe_lsu_wavefronts_mem_lg.sum l1tex__data_bank_reads.sum l1tex__m_xbar2l1tex_read_sectors.sum
sm__inst_executed_pipe_lsu.sum sm__inst_executed.sum smsp__inst_executed_op_global_ld.sum
l1tex__throughput.avg.pct_of_peak_sustained_elapsed l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed
sm__warps_active.avg.pct_of_peak_sustained_active dram__bytes_read.sum lts__t_sector_hit_rate.pct
lts__t_sectors_srcunit_tex_op_read.sum ${EXTRA_METRICS:-}"
"$ncu" --query-metrics > "$OUT/ncu-metrics.txt" 2>&1
metrics=""
for m in $want; do
  base=${m%%.*}
  grep -q "^$base " "$OUT/ncu-metrics.txt" && metrics="$metrics${metrics:+,}$m"
done
echo "metrics: $metrics"
echo "kernel,stage,metric,value" > "$OUT/ncu.csv"
stage_of() { basename "$(dirname "$(ls "$VARIANTS/$1"/*/matmul.cu 2>/dev/null | head -1)")"; }
build() {   # NAME: writes and compiles the small host program that launches NAME once
  local name=$1 f stage call
  f=$(ls "$VARIANTS/$name"/*/matmul.cu 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "$name: no matmul.cu"; return 1; }
  stage=$(stage_of "$name")
  case "$stage" in 0[123]-*) call="launch_matmul(M, N, P, n);" ;; *) call="launch_matmul(M, N, P, n, n, n);" ;; esac
  cat > "$OUT/bin/$name.cu" <<CU
#include "$f"
#include <vector>
int main() {
    const int n = $SIZE;
    float *M, *N, *P;
    cudaMalloc(&M, sizeof(float) * n * n); cudaMalloc(&N, sizeof(float) * n * n); cudaMalloc(&P, sizeof(float) * n * n);
    std::vector<float> one(size_t(n) * n, 1.0f);
    cudaMemcpy(M, one.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(N, one.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
    $call
    cudaDeviceSynchronize();
    return cudaGetLastError() != cudaSuccess;
}
CU
  nvcc -O3 -arch=native -o "$OUT/bin/$name" "$OUT/bin/$name.cu" > "$OUT/ncu-$name.log" 2>&1 || echo "$name: compile failed"
}
for name in "$@"; do
  build "$name" &
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
done
wait
for name in "$@"; do
  [ -x "$OUT/bin/$name" ] || continue
  stage=$(stage_of "$name")
  "$ncu" --metrics "$metrics" --csv --page raw -k regex:. -c 1 "$OUT/bin/$name" >> "$OUT/ncu-$name.log" 2>&1
  python3 - "$OUT/ncu-$name.log" "$name" "$stage" >> "$OUT/ncu.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
if start is not None:
    rows = list(csv.reader(lines[start:]))
    head, units, vals = rows[0], rows[1], rows[2]
    for h, v in zip(head, vals):
        if "__" in h:
            print(f"{sys.argv[2]},{sys.argv[3]},{h},{v.replace(',', '')}")
PY
  echo "$name done"
done
