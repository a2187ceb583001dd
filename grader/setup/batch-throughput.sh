#!/bin/bash
# Batch throughput: N students x the stages in STAGES through `./tilelab batch`, timed, and the
# class of 400 students x 6 stages projected from it (docs/performance.md, "Batch throughput").
#
#   OUT=/tmp/tp BACKEND=gpu grader/setup/batch-throughput.sh            # one GPU machine: 20 x 3 stages
#   OUT=$OUT WORK=/tmp/tp BACKEND=gpu LIMIT=540 grader/setup/batch-throughput.sh   # the device call
#   OUT=/tmp/tp N=20 BACKEND=emu JOBS=2 grader/setup/batch-throughput.sh  # the 2-core dev VM: 20 x 6
#   DRY=1 OUT=/tmp/tp grader/setup/batch-throughput.sh                   # the submissions only, no grading
#
# Student-like submissions: for each stage a pool of kernels as students hand them in -- the
# reference solution, the unfinished starter, the frozen held-out kernels of the model validation
# (grader/model-validation/heldout/*: other block shapes, prefetching, float4, coarsening, tensor
# cores ...), the known-bad suite's files and its mutants (missing barriers, bounds, swapped indices
# ...) -- and student i hands in the i-th kernel of each pool (cycling), with one comment line of
# their own (so no two submissions are the same files).
#
# Writes under $WORK (default $OUT): submissions/, grades/ (the gradebook, each student's grade and
# logs, the kit, the build trees, kept for the checks' results); under $OUT: batch.log (the batch's
# own output), throughput.txt, and where WORK is elsewhere the gradebook and the students' logs; and
# prints a short table last: wall time (the kit's one build apart), the time per submission-stage,
# the 400 x 6 projection, and where the time went -- each tree's configure, the builds, the checks,
# and on a GPU the timing loops with the GPU alone (the judges' own steps, from the perf checks'
# results: `gpu_wait`, `timing`), whose sum is the floor no number of cores takes a class below.
# Works offline (.deps carried: grader/setup/offline-env.sh). KIT=0 grades with --no-prebuilt-kit
# (every tree builds the whole kit: the before of docs/performance.md); CCACHE=1 shares one
# compiler cache between the submissions; JOBS (default: every core) submissions graded at once;
# LIMIT=540 stops the batch after 540 s (SIGTERM: it ends what it started) and projects from the
# students it finished.
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
. grader/setup/offline-env.sh || true   # the carried Debian packages, compute-sanitizer on PATH
OUT=${OUT:-build/throughput}
N=${N:-20}
BACKEND=${BACKEND:-auto}
JOBS=${JOBS:-$(nproc)}
if [ "$BACKEND" = gpu ]; then default_stages="01-basic 03-boundary 06-register-tiled"
else default_stages="01-basic 02-tiled 03-boundary 04-rectangular 05-coarsened 06-register-tiled"; fi
STAGES=${STAGES:-$default_stages}
WORK=${WORK:-$OUT}
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)
subs="$WORK/submissions"
rm -rf "$subs" "$WORK/grades"
python3 grader/tests/submissions/mutate.py write "$WORK/mutants" >/dev/null 2>&1 || true
python3 - "$subs" "$N" "$WORK/mutants" $STAGES <<'EOF'
import sys
from pathlib import Path
subs, n, mutants, stages = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:]
for s in stages:
    pool = [Path("solutions") / s / "matmul.cu", Path("starter") / s / "matmul.cu"]
    pool += sorted(Path("grader/model-validation/heldout").glob(f"*/*/{s}/matmul.cu"))
    for root in (Path("grader/tests/submissions"), mutants):
        pool += sorted(root.glob(f"*/{s}/matmul.cu"))
    pool = [p for p in pool if p.is_file()]
    for i in range(n):
        src = pool[i % len(pool)]
        dst = subs / f"student{i + 1:03d}" / s / "matmul.cu"
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(f"// student{i + 1:03d}: {src}\n" + src.read_text(errors="replace"))
    print(f"{s}: {len(pool)} kernels in the pool, {min(n, len(pool))} of them handed in")
EOF
if [ -n "${DRY:-}" ]; then echo "DRY: $N submissions of $STAGES written under $subs; nothing graded"; exit 0; fi
if [ "${CCACHE:-0}" = 1 ]; then
  mkdir -p "$WORK/ccache" && chmod 1777 "$WORK/ccache"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache \
         CCACHE_DIR="$WORK/ccache" CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1 CCACHE_UMASK=000
fi
stage_args=()
for s in $STAGES; do stage_args+=(--stage "$s"); done
kit_args=()
if [ "${KIT:-1}" = 0 ]; then kit_args=(--no-prebuilt-kit); fi
limit=()
if [ "${LIMIT:-0}" != 0 ]; then limit=(timeout --signal=TERM --kill-after=30 "$LIMIT"); fi
start=$(date +%s.%N)
${limit[@]+"${limit[@]}"} ./tilelab batch "$subs" --out "$WORK/grades" --backend "$BACKEND" -j "$JOBS" --keep-builds \
  ${kit_args[@]+"${kit_args[@]}"} "${stage_args[@]}" > "$OUT/batch.log" 2>&1 \
  || echo "batch exited $? (see $OUT/batch.log)"
end=$(date +%s.%N)
# The table: the students' logged steps ("[exit 0, 12.3 s]"), the perf checks' results (the judge's
# steps), the kit's one build (its configure log to its READY file).
if [ "$WORK" != "$OUT" ]; then   # the small files, beside the table
  cp "$WORK/grades/gradebook.csv" "$OUT/" 2>/dev/null || true
  (cd "$WORK/grades" && find .build students -path '*/logs/*' -name '*.log' -print0 2>/dev/null \
     | tar -cf "$OUT/student-logs.tar" --null -T -) || true
fi
python3 - "$WORK" "$start" "$end" "$N" "$JOBS" "$BACKEND" "${CCACHE:-0}" $STAGES <<'EOF' | tee "$OUT/throughput.txt"
import json, os, re, subprocess, sys
from collections import defaultdict
from pathlib import Path
out, start, end, n, jobs, backend, ccache, stages = (Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]),
                                                     int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8:])
grades = out / "grades"
wall = end - start
steps, count = defaultdict(float), defaultdict(int)
# Each student's step logs: in the kept build trees (--keep-builds), else where the batch copies them.
for log in list((grades / ".build").glob("*/logs/*.log")) or list((grades / "students").glob("*/logs/*.log")):
    m = re.search(r"\[exit -?\d+(?: \([^)]*\))?, ([\d.]+) s\]", log.read_text(errors="replace"))
    if m:
        kind = ("configure" if log.name.startswith("configure") else "build" if log.name.startswith("build")
                else "timed checks" if "-timed" in log.name else "checks")
        steps[kind] += float(m.group(1))
        count[kind] += 1
held = wait = 0.0
timed = 0
for r in (grades / ".build").glob("*/results/*.perf.json"):
    try:
        sec = json.loads(r.read_text()).get("seconds") or {}
    except (OSError, ValueError):
        continue
    if "gpu_wait" in sec:
        timed += 1
        held += float(sec.get("timing", 0))
        wait += float(sec.get("gpu_wait", 0))
kit = sorted((grades / ".kit").glob("kit-*/READY"))
kit_s = kit[0].stat().st_mtime - (kit[0].parent / "logs" / "kit-configure.log").stat().st_mtime if kit else 0.0
book = grades / "gradebook.csv"
graded = book.read_text().count(",graded,") if book.exists() else 0
# A batch cut at LIMIT: only the students it finished count (the others' partial work is left out).
pairs = max(1, graded if graded < n else n) * len(stages)
per = (wall - kit_s) / pairs
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.splitlines()[0]
except (OSError, IndexError):
    gpu = "none"
rows = [
    ("machine", f"{gpu}, {os.cpu_count()} cores, backend {backend}, -j {jobs}, ccache {ccache}"),
    ("graded", f"{n} students x {len(stages)} stages ({' '.join(stages)}): {graded} of {n} rows graded"),
    ("wall", f"{wall:.0f} s, of which the kit's one build {kit_s:.0f} s"),
    ("per submission-stage", f"{per:.2f} s of the machine (wall less the kit, / {pairs} graded)"),
    ("400 x 6 projected", f"{(kit_s + per * 2400) / 3600:.2f} h (target <= 3 h)"),
    ("configure", f"{steps['configure']:.0f} s in {count['configure']} trees, "
                  f"{steps['configure'] / max(1, count['configure']):.1f} s each"),
    ("build", f"{steps['build']:.0f} s in {count['build']} builds, {steps['build'] / max(1, count['build']):.1f} s each"),
    ("checks", f"{steps['checks']:.0f} s in {count['checks']} runs; timed checks {steps['timed checks']:.0f} s "
               f"in {count['timed checks']}"),
]
if timed:
    rows += [("timing loops, GPU alone", f"{held:.0f} s in {timed}, {held / timed:.2f} s each; "
                                         f"waiting for it {wait:.0f} s in all"),
             ("400 x 6 floor", f"{held / timed * 2400 / 3600:.2f} h: the loops one after another")]
w = max(len(k) for k, _ in rows)
print(f"| {'what':{w}} | measured |\n|{'-' * (w + 2)}|----------|")
for k, v in rows:
    print(f"| {k:{w}} | {v} |")
print("(steps summed over the parallel grades; the grades, logs and results under " + str(out) + ")")
EOF
