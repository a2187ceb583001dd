#!/bin/bash
# Batch throughput: N students x the stages in STAGES through `./tilelab batch`, timed.
#
#   OUT=/tmp/tp N=20 BACKEND=gpu JOBS=4 grader/setup/batch-throughput.sh      # one GPU machine
#   OUT=/tmp/tp N=20 BACKEND=emu JOBS=2 grader/setup/batch-throughput.sh      # the 2-core dev VM
#
# Student-like submissions: for each stage a pool of kernels as students hand them in -- the
# reference solution, the unfinished starter, the frozen held-out kernels of the model validation
# (grader/model-validation/heldout/cuda-cores-1: other block shapes, prefetching, float4, coarsening ...), the
# known-bad suite's files and its mutants (missing barriers, bounds, swapped indices ...) -- and
# student i hands in the i-th kernel of each pool (cycling), with one comment line of their own
# (so no two submissions are the same files). Writes $OUT/batch.log, $OUT/grades/ and
# $OUT/throughput.txt, and prints a short table last: wall time (the kit's one build included, and
# apart), per submission, per submission-stage, the 400-student x 6-stage projection, and where
# the time went (the students' logs: configure, build, checks). Needs nothing but the kit (GPU
# backend: a GPU). KIT=0 grades with --no-prebuilt-kit (every tree builds the whole kit: the
# before of docs/performance.md). CCACHE=1 shares one compiler cache between the submissions.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/throughput}
N=${N:-20}
BACKEND=${BACKEND:-auto}
JOBS=${JOBS:-$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))}
STAGES=${STAGES:-"01-basic 02-tiled 03-boundary 04-rectangular 05-coarsened 06-register-tiled"}
mkdir -p "$OUT"
subs="$OUT/submissions"
rm -rf "$subs" "$OUT/grades"
python3 grader/tests/submissions/mutate.py write "$OUT/mutants" >/dev/null 2>&1 || true
python3 - "$subs" "$N" "$OUT/mutants" $STAGES <<'EOF'
import sys
from pathlib import Path
subs, n, mutants, stages = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:]
for s in stages:
    pool = [Path("solutions") / s / "matmul.cu", Path("starter") / s / "matmul.cu"]
    for root in (Path("grader/model-validation/heldout/cuda-cores-1"), Path("grader/tests/submissions"), mutants):
        pool += sorted(root.glob(f"*/{s}/matmul.cu"))
    pool = [p for p in pool if p.is_file()]
    for i in range(n):
        src = pool[i % len(pool)]
        dst = subs / f"student{i + 1:03d}" / s / "matmul.cu"
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(f"// student{i + 1:03d}: {src}\n" + src.read_text(errors="replace"))
    print(f"{s}: {len(pool)} kernels in the pool, {min(n, len(pool))} of them handed in")
EOF
if [ "${CCACHE:-0}" = 1 ]; then
  mkdir -p "$OUT/ccache" && chmod 1777 "$OUT/ccache"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache \
         CCACHE_DIR="$(cd "$OUT/ccache" && pwd)" CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1 CCACHE_UMASK=000
fi
stage_args=()
for s in $STAGES; do stage_args+=(--stage "$s"); done
nstages=$(echo $STAGES | wc -w)
start=$(date +%s)
kit_args=()
if [ "${KIT:-1}" = 0 ]; then kit_args=(--no-prebuilt-kit); fi
./tilelab batch "$subs" --out "$OUT/grades" --backend "$BACKEND" -j "$JOBS" ${kit_args[@]+"${kit_args[@]}"} "${stage_args[@]}" > "$OUT/batch.log" 2>&1 \
  || echo "batch exited $? (see $OUT/batch.log)"
end=$(date +%s)
wall=$(( end - start ))
# Where the time went: the seconds each student's logged steps took ("[exit 0, 12.3 s]").
steps=$(python3 - "$OUT/grades/students" <<'EOF'
import re, sys
from collections import defaultdict
from pathlib import Path
tot = defaultdict(float)
for log in Path(sys.argv[1]).glob("*/logs/*.log"):
    m = re.search(r"\[exit -?\d+(?: \([^)]*\))?, ([\d.]+) s\]", log.read_text(errors="replace"))
    if m:
        kind = ("configure" if log.name.startswith("configure") else "build" if log.name.startswith("build")
                else "timed checks (GPU alone)" if "-timed" in log.name else "checks")
        tot[kind] += float(m.group(1))
print(", ".join(f"{k} {v:.0f} s" for k, v in sorted(tot.items())) or "no step logs")
EOF
)
graded=$(grep -c ',graded,' "$OUT/grades/gradebook.csv" || true)
# The kit's one build: from its configure log to its READY file.
kit_s=$(python3 - "$OUT/grades/.kit" <<'EOF'
import sys
from pathlib import Path
k = sorted(Path(sys.argv[1]).glob("kit-*/READY"))
print(f"{k[0].stat().st_mtime - (k[0].parent / 'logs' / 'kit-configure.log').stat().st_mtime:.0f} s" if k else "none")
EOF
)
{
  echo "device:        $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo none) backend=$BACKEND, $(nproc) cores, -j $JOBS, ccache ${CCACHE:-0}"
  echo "submissions:   $N x $nstages stages ($graded rows graded)"
  echo "wall:          ${wall} s (of which the kit's one build about ${kit_s})"
  echo "per student:   $(python3 -c "print(f'{$wall/$N:.1f} s')")"
  echo "per stage:     $(python3 -c "print(f'{$wall/($N*$nstages):.1f} s')")"
  echo "400 x 6 here:  $(python3 -c "print(f'{$wall/($N*$nstages)*2400/3600:.1f} h')")"
  echo "step totals:   $steps (summed over parallel jobs)"
} | tee "$OUT/throughput.txt"
