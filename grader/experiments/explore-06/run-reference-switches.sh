#!/bin/bash
# The second round of walkthrough 06 section 6b (reference-switches.cu, whose macros name each change), each
# variant checked against cuBLAS, then timed beside it (bench.cu: CUDA events, median, L2 flushed).
# Instructor material, for a GPU machine: OUT=dir bash run-reference-switches.sh; PROFILE="name ..." adds Nsight
# Compute's warp-state and scheduler sections for those variants (ncu.txt).
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/explore-06}; mkdir -p "$OUT"
sol='"../../../solutions/06-register-tiled/matmul.cu"'
build() { name=$1; shift; nvcc -O3 -std=c++17 -arch=sm_90 -DNAME="\"$name\"" "$@" bench.cu -lcublas -o "/tmp/b_$name" -Xptxas -v > "/tmp/build_$name.log" 2>&1 || echo "build $name failed"; grep -q "spill stores" "/tmp/build_$name.log" && grep -E "[1-9][0-9]* bytes spill" "/tmp/build_$name.log" | head -1; }
names=()
v() { names+=("$1"); build "$@" & }
v reference -DVARIANT="$sol"                                  # the reference as it is now
v vec-pad -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DFRAG2=0                       # VEC template, padded Mds
v frag2 -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0                                   # + step values double-buffered
v nopad -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=1 -DPAD=0                           # - the pad (lanes in pairs)
v pairs -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=1                                   # lanes in pairs
v 2x2 -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=1                           # + multiply-adds in 2 x 2 blocks
v 2x4 -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=9 -DBI=2 -DBJ=4 -DOC=0 -DSNK=0 -DIC=0
v 4x2 -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=9 -DBI=4 -DBJ=2 -DOC=0 -DSNK=0 -DIC=0
v 4x4 -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=9 -DBI=4 -DBJ=4 -DOC=0 -DSNK=0 -DIC=0
v colsout -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=9 -DBI=2 -DBJ=2 -DOC=1 -DSNK=0 -DIC=0
v snake -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=9 -DBI=2 -DBJ=2 -DOC=0 -DSNK=1 -DIC=0
v peel -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=1 -DPEEL                   # + the last phase out of the loop (= the reference)
v ptr -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=1 -DPTR                     # + pointers computed once (not kept)
v dlcm-ca -DVARIANT='"reference-switches.cu"' -DBK=16 -DLAYOUT=0 -DORDER=1 -Xptxas -dlcm=ca
v bk8 -DVARIANT='"reference-switches.cu"' -DBK=8 -DLAYOUT=1
v 128x256 -DVARIANT='"reference-switches.cu"' -DBK=8 -DLAYOUT=1 -DBN=256 -DTN=16 -DMINB=1
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
