#!/bin/bash
# The grid term of the performance model (grader/runner/grid_parallelism.hpp; docs/performance.md,
# "The grid at the timed shape") against a GPU, in one call: 06's solution made persistent (the known-bad
# attack2-one-block-grid, its one-block grid replaced by G blocks that loop over P's 128 x 128 tiles)
# timed at SIZE^3 for each G, beside the solution's own grid (one block a tile). The model charges a
# grid of G < 132 blocks 132 / G (the SMs it keeps busy) and nothing from 132 on; the table says what
# the GPU gives, so the factor can be checked where it matters: G from 1 to 2 x SMs.
#
#   OUT=DIR grader/experiments/grid-sweep/run.sh [G...]     (default G: 1 8 33 64 66 100 132 264 528 1056)
#
# Needs nvcc and one GPU; writes OUT/table.md (printed last), OUT/bench-*.cu and OUT/*.log. About a
# minute on an H100/H200 (each G: a warm-up and 5 timed calls at 4096^3; G = 1 alone is ~1 s a call).
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd)
OUT=${OUT:?set OUT}
SIZE=${SIZE:-4096}
GRIDS=${*:-1 8 33 64 66 100 132 264 528 1056}
mkdir -p "$OUT"
python3 "$root/grader/tests/submissions/mutate.py" write "$OUT/mutants" > "$OUT/mutate.log" 2>&1 || true
persistent="$OUT/mutants/attack2-one-block-grid/06-register-tiled/matmul.cu"
[ -f "$persistent" ] || { echo "mutate.py did not write $persistent (see $OUT/mutate.log)"; exit 1; }
# The persistent kernel's grid from a variable the bench sets.
sed 's|dim3 dimGrid(1);.*|dim3 dimGrid(tl_grid_blocks);|' "$persistent" > "$OUT/persistent.cu"
grep -q "dimGrid(tl_grid_blocks)" "$OUT/persistent.cu" || { echo "the attack's launch line changed: edit this script"; exit 1; }
bench() {  # NAME FILE: a host program timing launch_matmul at SIZE^3 for each grid given as arguments
  cat > "$OUT/bench-$1.cu" <<CU
static int tl_grid_blocks = 1;
#include "$2"
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
    const int n = $SIZE;
    float *M, *N, *P;
    cudaMalloc(&M, sizeof(float) * n * n); cudaMalloc(&N, sizeof(float) * n * n); cudaMalloc(&P, sizeof(float) * n * n);
    std::vector<float> v(size_t(n) * n);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(int(i % 17) - 8) / 8;
    cudaMemcpy(M, v.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(N, v.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, MatrixMulKernel<true>, 256, 0);
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 1; i < argc; ++i) {
        tl_grid_blocks = std::atoi(argv[i]);
        launch_matmul(M, N, P, n, n, n);  // warm-up
        cudaEventRecord(a);
        for (int r = 0; r < 5; ++r) launch_matmul(M, N, P, n, n, n);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        std::printf("%s %d %.4f %d %d %s\n", argv[0], tl_grid_blocks, ms / 5, sms, per_sm,
                    cudaGetErrorString(cudaGetLastError()));
    }
    return 0;
}
CU
  nvcc -O3 -std=c++17 -arch=native -I"$root/grader/include" -o "$OUT/bench-$1" "$OUT/bench-$1.cu" > "$OUT/build-$1.log" 2>&1
}
bench solution "$root/solutions/06-register-tiled/matmul.cu"
bench persistent "$OUT/persistent.cu"
"$OUT/bench-solution" 0 | tee "$OUT/solution.log"
# shellcheck disable=SC2086
"$OUT/bench-persistent" $GRIDS | tee "$OUT/persistent.log"
python3 - "$OUT" <<'PY'
import sys
from pathlib import Path
out = Path(sys.argv[1])
ref = float((out / "solution.log").read_text().split()[2])
rows = ["| G blocks | ms | GPU: ratio to the solution | model: min(G, SMs) / SMs | blocks per SM (occupancy) |",
        "|---:|---:|---:|---:|---:|"]
for line in (out / "persistent.log").read_text().splitlines():
    _, g, ms, sms, per_sm, err = line.split(maxsplit=5)
    g, ms, sms = int(g), float(ms), int(sms)
    rows.append(f"| {g} | {ms:.3f} | {ref / ms:.3f} | {min(g, sms) / sms:.3f} | {per_sm} ({err}) |")
table = "\n".join([f"06's solution at {ref:.3f} ms (its own grid); the persistent kernel with G blocks:", "", *rows])
(out / "table.md").write_text(table + "\n")
print(table)
PY
