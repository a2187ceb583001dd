#!/bin/bash
# The 07 steps of docs/walkthrough/07-tensor-cores.md, on a GPU machine: each built with nvcc,
# checked against cuBLAS FP32, then timed beside cuBLAS TF32 and FP32 (bench.cu). tunable-reference.cu is the
# wmma kernel (07's reference before issue #45.3, grader/tests/submissions/07-wmma-reference) with its block tile (BM x BN), phase depth (BK), warp tile (WM x WN) and
# __launch_bounds__ minimum (MINB) set from the command line. Instructor material
# (grader/experiments/README.md). One line per variant and shape; binaries and build logs in $BIN.
cd "$(dirname "$0")"
BIN=${BIN:-/tmp/explore-07}; mkdir -p "$BIN"
# tunable-reference.cu: the reference with its tile sizes overridable (#ifndef), its starter markers dropped.
python3 - "$BIN/tunable-reference.cu" <<'PY'
import re, sys
s = open("../../tests/submissions/07-wmma-reference/07-tensor-cores/matmul.cu").read()
s = re.sub(r"// (BEGIN SOLUTION|GOAL|STARTER).*\n|// END SOLUTION\n", "", s)
for name in ("BM", "BN", "BK", "WM", "WN"):
    s = re.sub(rf"^#define {name} (\S+)(.*)$", rf"#ifndef {name}\n#define {name} \1\2\n#endif", s, flags=re.M)
s = re.sub(r"^#define THREADS .*$", "#define THREADS ((BM / WM) * (BN / WN) * 32)\n#ifndef MINB\n#define MINB 1\n#endif", s, flags=re.M)
s = s.replace("__launch_bounds__(THREADS)", "__launch_bounds__(THREADS, MINB)")
open(sys.argv[1], "w").write(s)
PY
build() { name=$1; sq=$2; shift 2; nvcc -O3 -std=c++17 -arch=sm_90 -DNAME="\"$name\"" -DSQUARE_ONLY=$sq "$@" bench.cu -lcublas -o "$BIN/b_$name" -Xptxas -v > "$BIN/build_$name.log" 2>&1 || echo "build $name failed"; }
build 06-reference 0 -DVARIANT='"../../../solutions/06-register-tiled/matmul.cu"' &
build naive-wmma 1 -DVARIANT='"wmma-from-global.cu"' &
build reference 0 -DVARIANT='"../../tests/submissions/07-wmma-reference/07-tensor-cores/matmul.cu"' &
build warp64x32 0 -DVARIANT="\"$BIN/tunable-reference.cu\"" -DWN=32 &
wait
build warp32x32 0 -DVARIANT="\"$BIN/tunable-reference.cu\"" -DWM=32 -DWN=32 &
build bk8 0 -DVARIANT="\"$BIN/tunable-reference.cu\"" -DBK=8 &
build 64x64 0 -DVARIANT="\"$BIN/tunable-reference.cu\"" -DBM=64 -DBN=64 -DWM=32 -DWN=32 &
build minb2 0 -DVARIANT="\"$BIN/tunable-reference.cu\"" -DMINB=2 &
wait
# Section 7: the reference's tiles copied by cp.async (cp-async-pipeline.cu: 3 stages of BK 32, fragments of the
# next k-step loaded before this one's products, TF32 rounding in the fragment or none), and the
# ceilings of wmma on this GPU (peak.cu: mma_sync alone, and fed from shared memory).
nvcc -O3 -std=c++17 -arch=sm_90 peak.cu -o "$BIN/peak" > "$BIN/build_peak.log" 2>&1 || echo "build peak failed" &
build cp-async 0 -DVARIANT='"cp-async-pipeline.cu"' -DFDB=1 &
build cp-async-noconv 0 -DVARIANT='"cp-async-pipeline.cu"' -DFDB=1 -DCONV=0 &
build cp-async-noconv-256x128 0 -DVARIANT='"cp-async-pipeline.cu"' -DFDB=1 -DCONV=0 -DBM=256 &
wait
[ -x "$BIN/peak" ] && "$BIN/peak"
for b in 06-reference naive-wmma reference warp64x32 warp32x32 bk8 64x64 minb2 cp-async cp-async-noconv cp-async-noconv-256x128; do
  [ -x "$BIN/b_$b" ] && "$BIN/b_$b"
done
