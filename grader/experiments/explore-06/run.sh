#!/bin/bash
# The 06 variants of docs/walkthrough/06-register-tiled.md section 6b, on a GPU machine: each built
# with nvcc, checked against cuBLAS, then timed (CUDA events, median, L2 flushed, cuBLAS in the same
# process, two interleaved rounds). warp-tiled.cu: warp tiling (WTR lanes of a warp along rows), block and
# thread tiles (BM, BN, TM, TN: 4-wide strips), BK, MINB (__launch_bounds__), MROWS (M loaded by
# rows); cp-async-pipeline.cu: a cp.async pipeline (STAGES, BK).
# Instructor material (grader/experiments/README.md): the variants are solutions. Prints one line per variant and shape.
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/explore-06}; mkdir -p "$OUT"
sol='"../../../solutions/06-register-tiled/matmul.cu"'
build() { name=$1; shift; nvcc -O3 -std=c++17 -arch=sm_90 -DNAME="\"$name\"" "$@" bench.cu -lcublas -o "$OUT/b_$name" -Xptxas -v > "$OUT/build_$name.log" 2>&1 || echo "build $name failed"; }
build reference -DVARIANT="$sol" &
build warp4x8 -DVARIANT='"warp-tiled.cu"' -DWTR=4 &
build cpasync3 -DVARIANT='"cp-async-pipeline.cu"' -DSTAGES=3 &
build tile256x128 -DVARIANT='"warp-tiled.cu"' -DMINB=1 -DBM=256 -DTN=16 -DWTR=4 -DBK=16 &
wait
for b in reference warp4x8 cpasync3 tile256x128; do [ -x "$OUT/b_$b" ] && "$OUT/b_$b"; done | cut -c1-140
