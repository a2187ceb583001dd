#!/bin/bash
# Second round of walkthrough 6b's variants (v2.cu), each beside the reference and cuBLAS.
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/explore-06}; mkdir -p "$OUT"
sol='"../../../solutions/06-register-tiled/matmul.cu"'
build() { name=$1; shift; nvcc -O3 -std=c++17 -arch=sm_90 -DNAME="\"$name\"" "$@" bench.cu -lcublas -o "/tmp/b_$name" -Xptxas -v > "/tmp/build_$name.log" 2>&1 || echo "build $name failed"; grep -q "spill stores" "/tmp/build_$name.log" && grep -E "[1-9][0-9]* bytes spill" "/tmp/build_$name.log" | head -1; }
names=()
v() { names+=("$1"); build "$@" & }
v reference -DVARIANT="$sol"
v o1L0 -DVARIANT='"v2.cu"' -DBK=16 -DORDER=1 -DLAYOUT=0
v peelL0 -DVARIANT='"v2.cu"' -DBK=16 -DORDER=1 -DLAYOUT=0 -DPEEL
v peelL1 -DVARIANT='"v2.cu"' -DBK=16 -DORDER=1 -DLAYOUT=1 -DPEEL
v ptrL0 -DVARIANT='"v2.cu"' -DBK=16 -DORDER=1 -DLAYOUT=0 -DPTR
v o1L0ca -DVARIANT='"v2.cu"' -DBK=16 -DORDER=1 -DLAYOUT=0 -Xptxas -dlcm=ca
${EXTRA:-true}
wait
for b in "${names[@]}"; do [ -x "/tmp/b_$b" ] && "/tmp/b_$b"; done | tee "$OUT/table.txt" | cut -c1-150
if [ -n "$PROFILE" ]; then
  for b in $PROFILE; do
    echo "=== $b"
    ncu --section WarpStateStats --section SchedulerStats --print-details all \
        --metrics sm__inst_executed.avg.per_cycle_active,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active \
        "/tmp/b_$b" once 2>&1
  done > "$OUT/ncu.txt"
  grep -E "^  [a-zA-Z_]|===|Stall|IPC|wavefronts|per_cycle|pct_of" "$OUT/ncu.txt" | grep -v "^    " | head -150 | cut -c1-130
fi
