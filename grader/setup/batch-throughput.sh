#!/bin/bash
# Batch throughput: N students x the stages in STAGES through `./tilelab batch`, timed.
#
#   OUT=/tmp/tp N=100 BACKEND=gpu JOBS=4 grader/setup/batch-throughput.sh      # one GPU machine
#   OUT=/tmp/tp N=4 BACKEND=emu JOBS=2 grader/setup/batch-throughput.sh        # the 2-core dev VM
#
# Each student hands in the reference solution of every stage with one comment line of their own
# (so no two submissions are the same files). Writes $OUT/batch.log, $OUT/grades/ and
# $OUT/throughput.txt, and prints a short table last: wall time, per submission, per
# submission-stage, the 400-student x 6-stage projection, and where the time went (the students'
# logs: configure, build, checks). Needs nothing but the kit (GPU backend: a GPU).
# CCACHE=1 shares one compiler cache between the submissions (ccache must be installed): the kit's
# own sources are then compiled once, not once per submission -- the measure of what a shared
# build would save (batch does not use a cache by itself: see docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/throughput}
N=${N:-100}
BACKEND=${BACKEND:-auto}
JOBS=${JOBS:-$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))}
STAGES=${STAGES:-"01-basic 02-tiled 03-boundary 04-rectangular"}
mkdir -p "$OUT"
subs="$OUT/submissions"
rm -rf "$subs" "$OUT/grades"
for i in $(seq -w 1 "$N"); do
  for s in $STAGES; do
    mkdir -p "$subs/student$i/$s"
    { echo "// student$i"; cat "solutions/$s/matmul.cu"; } > "$subs/student$i/$s/matmul.cu"
  done
done
if [ "${CCACHE:-0}" = 1 ]; then
  mkdir -p "$OUT/ccache" && chmod 1777 "$OUT/ccache"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache \
         CCACHE_DIR="$(cd "$OUT/ccache" && pwd)" CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1 CCACHE_UMASK=000
fi
stage_args=()
for s in $STAGES; do stage_args+=(--stage "$s"); done
nstages=$(echo $STAGES | wc -w)
start=$(date +%s)
./tilelab batch "$subs" --out "$OUT/grades" --backend "$BACKEND" -j "$JOBS" "${stage_args[@]}" > "$OUT/batch.log" 2>&1 \
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
        kind = "configure" if log.name.startswith("configure") else "build" if log.name.startswith("build") else "checks"
        tot[kind] += float(m.group(1))
print(", ".join(f"{k} {v:.0f} s" for k, v in sorted(tot.items())) or "no step logs")
EOF
)
graded=$(grep -c ',graded,' "$OUT/grades/gradebook.csv" || true)
{
  echo "device:        $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo none) backend=$BACKEND, $(nproc) cores, -j $JOBS, ccache ${CCACHE:-0}"
  echo "submissions:   $N x $nstages stages ($graded rows graded)"
  echo "wall:          ${wall} s"
  echo "per student:   $(python3 -c "print(f'{$wall/$N:.1f} s')")"
  echo "per stage:     $(python3 -c "print(f'{$wall/($N*$nstages):.1f} s')")"
  echo "400 x 6 here:  $(python3 -c "print(f'{$wall/($N*$nstages)*2400/3600:.1f} h')")"
  echo "step totals:   $steps (summed over parallel jobs)"
} | tee "$OUT/throughput.txt"
