#!/bin/bash
# Nsight Compute on the register-tiled (06) kernels of the fitting pool that today's model puts at
# full credit and the GPU at 0.5-0.75 of the reference, beside kernels it places right (issue #44,
# docs/performance.md "A per-pipe model"): per scheduler, the issue slots used, the warps resident,
# each pipe's share (FMA, ALU, LSU/MIO, shared) and why warps stalled (short scoreboard: an LDS's
# result; long scoreboard: a global load's; barrier; MIO throttle; math pipe throttle; wait; not
# selected). The hypotheses it checks: the misses lose issue slots to short-scoreboard and barrier
# stalls (few warps a scheduler, an LDS read a few instructions after it, a phase's loads exposed),
# not to a busy pipe; the reference's slots are mostly issued. One device call, <= 200 s:
#
#   OUT=$OUT bash grader/model-validation/pipe-ncu.sh        # then: cat $OUT/pipe-ncu.txt
#
# Needs ncu and nvcc on the machine (model-ncu.sh finds them). Writes OUT/ncu.csv (every metric),
# OUT/pipe-ncu.txt (the table printed last) and model-ncu.sh's logs. Pool kernels only: the blind
# sets (cuda-cores-6, tensor-cores-5) are not profiled, so that they stay blind.
set -u
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
OUT=${OUT:?set OUT}
mkdir -p "$OUT"
# The misses (modelled full, measured partial), then kernels the model places right, the reference first.
KERNELS=${KERNELS:-"06-solution h06-scalar-smem 06-tm8tn4 h06-tm4tn8 q06-bk32-mrows
q06-warp32x64 q06-regprefetch k06-smem-dbuf-bk8 g06-f4store v06-512t-4x8-regprefetch k06-256x64
v06-warptile-128t k06-warprows-bk4 h06-student v06-8x8-mpad-bk16 k06-t8x4-bk32 g06-128x64-t8x8"}
python3 "$here/model_variants.py" write "$OUT/variants" > /dev/null || exit 1
stall="short_scoreboard long_scoreboard barrier mio_throttle math_pipe_throttle wait not_selected dispatch_stall lg_throttle no_instruction selected branch_resolving"
extra="smsp__issue_active.avg.pct_of_peak_sustained_active smsp__warps_active.avg.per_cycle_active
smsp__inst_executed.avg.per_cycle_active sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active
sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active launch__registers_per_thread launch__waves_per_multiprocessor
launch__occupancy_limit_registers launch__occupancy_limit_shared_mem"
for s in $stall; do extra="$extra smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
VARIANTS="$OUT/variants" OUT="$OUT" SIZE=${SIZE:-4096} EXTRA_METRICS="$extra" timeout 190 bash "$here/model-ncu.sh" $KERNELS
python3 - "$OUT/ncu.csv" "$OUT/pipe-ncu.txt" <<'PY'
import csv, sys
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    rows.setdefault(r["kernel"], {})[r["metric"]] = r["value"]
cols = [("time", "gpu__time_duration.sum", 1), ("issue%", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
        ("warps/sch", "smsp__warps_active.avg.per_cycle_active", 1),
        ("fma%", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", 1),
        ("alu%", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", 1),
        ("lsu%", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", 1),
        ("shm%", "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active", 1)]
cols += [(s[:8], f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 1) for s in
         ("short_scoreboard", "long_scoreboard", "barrier", "mio_throttle", "math_pipe_throttle", "wait", "not_selected")]
def num(k, m, scale):
    try:
        return f"{float(rows[k][m]) * scale:.2f}"
    except (KeyError, ValueError):
        return "-"
lines = ["kernel".ljust(26) + " ".join(c[0].rjust(9) for c in cols)]
lines += [k.ljust(26) + " ".join(num(k, m, sc).rjust(9) for _, m, sc in cols) for k in rows]
text = "\n".join(lines) + "\n(stalls: warps stalled for that reason per issued instruction)\n"
open(sys.argv[2], "w").write(text)
print(text)
PY
