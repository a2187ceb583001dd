#!/bin/bash
# GPU check of the teaching additions (issue 19), run after merging: the runner's matmul_host
# breakdown (allocation, copies in, kernel, copy out) and the device limits it reports, and a
# graded GPU question (02-tiled `grading-gpu`) answered from those limits. Logs go to $OUT
# (default ./gpu-out/teach); the last thing printed is a short table.
#   BUILD=dir   build tree (default build/teach-gpu);  BACKEND=emu  a dry run of the flow on the CPU
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}/teach
BUILD=${BUILD:-build/teach-gpu}
mkdir -p "$OUT"
. "$root/grader/setup/offline-env.sh"   # the carried Debian packages, compute-sanitizer on PATH
# 1. the 01-basic solution: its matmul_host row carries the breakdown, its results the device limits
./tilelab grade 01-basic --impl solution --backend "${BACKEND:-gpu}" --build-dir "$BUILD" --out "$OUT/solution" \
  > "$OUT/grade-solution.log" 2>&1
# 2. a submission: the 02-tiled solution with the right answers for this GPU (quiz code "gpu-check")
sub="$OUT/sub"; rm -rf "$sub"; mkdir -p "$sub/02-tiled"
cp solutions/02-tiled/matmul.cu "$sub/02-tiled/"
PYTHONPATH=grader python3 - "$OUT/solution/grade.json" "$sub/02-tiled/answers.toml" <<'PY' > "$OUT/answers.log" 2>&1
import json, sys
from tilelab import ROOT
from tilelab.score import quiz
device = json.load(open(sys.argv[1])).get("device", {})
key = quiz.load_key("02-tiled")
right = {q.id: quiz.expected(quiz.draw(q, "gpu-check", "02-tiled"), key[q.id], device)
         for q in quiz.load_questions(ROOT / "assignments" / "02-tiled")
         if not q.gpu or device.get("regs_per_sm")}      # off a GPU (BACKEND=emu) the GPU question is skipped
open(sys.argv[2], "w").write(quiz.render("02-tiled", "gpu-check", right))
print(right)
PY
./tilelab grade 02-tiled --submission "$sub" --backend "${BACKEND:-gpu}" --build-dir "$BUILD-sub" --out "$OUT/submission" \
  > "$OUT/grade-submission.log" 2>&1
PYTHONPATH=grader python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(f"{out}/{name}/grade.json"))
    except OSError as e:
        print(f"no {name}/grade.json: {e}"); return {"stages": [], "device": {}}
sol, sub = load("solution"), load("submission")
dev = sol.get("device", {})
print("\n== teach GPU check")
print(f"device: {dev.get('name', '?')}")
for k in ("regs_per_sm", "regs_per_block", "shared_per_sm", "shared_per_block", "shared_per_block_optin",
          "max_threads_per_sm", "max_blocks_per_sm", "max_grid_y"):
    print(f"  {k:24} {dev.get(k, 'MISSING')}")
host = [c for s in sol["stages"] for c in s["checks"] if c["dataset"] == "matmul_host"]
print(f"matmul_host: {host[0]['verdict'] if host else 'MISSING'} -- {host[0]['message'] if host else ''}")
qs = [c for s in sub["stages"] for c in s["checks"] if c["check"] == "question"]
print(f"02-tiled questions: {sum(c['verdict'] == 'pass' for c in qs)}/{len(qs)} pass; "
      + ", ".join(f"{c['dataset']}={c['verdict']}" for c in qs if c["verdict"] != "pass"))
PY
