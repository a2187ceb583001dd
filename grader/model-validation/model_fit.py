#!/usr/bin/env python3
"""The performance model re-evaluated offline, for fitting it to nvcc's back end (issue #44).

    model_fit.py check [--model EXE]        the mirror gives the C++ model's time for every kernel
    model_fit.py search                     the SASS terms' grid, on the fitting pool only
    model_fit.py search-pipes               the per-pipe candidate's grid (data/loop-deps.json), pool only
    model_fit.py show [--set SET] [k=v ...] one setting's bands, per set (the blind sets only on purpose)

`mirror` is grader/runner/perf_model.cpp's formula in Python, so that a change can be tried on
every seen kernel in a second instead of a device call: it reads the emulator's counts of all 258
kernels (`data/counts-emu.json`: `model-validation.sh emu`, every set, the kit of 4541b30) and the
back end's facts (`data/backend-facts.json`: `sass-facts.py`, nvcc 13.0.88 for sm_90), and the
GPU's times from each set's `measured-*.json`. `check` fails when the mirror and the C++ model
(perf_model.cpp run on the stored counts: CTest kit.model-fit.check) disagree on any stored kernel
(it must be kept equal to perf_model.cpp; a formula tried here is adopted there, then the emu half
is run again). The SASS terms (`sass=True`) are candidates, not
the model: docs/performance.md, "Fitting the model to nvcc's back end", says what they gave.
The per-pipe candidate (`dep=True phase=True`, `per_pipe`) reads loop_deps.py's `data/loop-deps.json`
(the hot loop's dependences and the phase's exposed loads from the SASS); docs/performance.md, "A
per-pipe model with the loop's dependences", says what it gave. The blind sets (held-out-6,
held-out-tc5) are never searched over; `show --set` reports them."""

from __future__ import annotations

import glob
import itertools
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "grader"))
sys.path.insert(0, str(HERE))
from tilelab.run import occupancy as occ  # noqa: E402
from tilelab.specs import spec  # noqa: E402
from tilelab.score.scoring import perf_fraction  # noqa: E402
import model_validation as mv  # noqa: E402

STAGES = {s.id: s for s in spec.load_all()}
R = 132 * 1.98e9          # SM-clocks a second of the model's H100 SXM (perf_model.hpp)
BLIND = {"held-out-6", "held-out-tc5"}
DEFAULT_EVAL = HERE.parents[1] / "build" / "default" / "grader" / "tests" / "tilelab_perf_model_eval"
# Today's model (perf_model.hpp's figures), and the candidate SASS terms switched off.
BASE = dict(sass=False, use_regs=False, tensor_rate=200, exposed_clk=3000, phase_clk=1700,
            ipc=3, int_rate=2, local_clk=1.35, warps_hide=0,
            dep=False, lds_clk=23, ldg_clk=500, sched_ipc=1.0, alu_rate=0.5, smooth=0, waves=False,
            phase=False, phase_ldg=500, phase_clk2=0, alpha=0)


def occupancy(threads: float, shared: float, regs: float) -> tuple[int, int]:
    """Blocks per SM by sm_90's rules (run/occupancy.py, tested on the cases grader/runner/occupancy.cpp
    is tested on; registers 0: unknown, no limit) and warps per block."""
    warps = math.ceil(threads / 32)
    if warps == 0:
        return 0, 0
    return occ.blocks_per_sm(int(regs), int(threads), int(shared))[0], warps


def mirror(c: dict, shape: list[int], facts: dict | None, p: dict, deps: dict | None = None) -> tuple[float, str]:
    """(ms, bound) of one kernel: perf_model.cpp's resources, and the SASS candidates where p says
    (deps: loop_deps.py's figures of its hot loop, for the per-pipe candidate `dep`)."""
    J, K, L = shape
    fmas = J * K * L
    warp_fmas = fmas / 32
    bps, warps = occupancy(c["threads_per_block"], c["shared_bytes_per_block"],
                           facts["registers"] if facts and p["use_regs"] else 0)
    tb = bps
    if c["tensor_fmas"] > 0 and not (facts and p["use_regs"]):
        tb = min(bps, occupancy(c["threads_per_block"], c["shared_bytes_per_block"],
                                min(255, c["fragment_registers"] + 56))[0])
    requests = c["global_loads"] + c["global_stores"] + c["shared_loads"] + c["shared_stores"]
    # Tensor products stand for the product's only where stored into P (counts of an older kit: all).
    core = max(0, fmas - (c["tensor_fmas"] - c.get("tensor_fmas_unstored", 0))) / 32
    t = {"fp32": core / (4 * R)}
    tt = c["tensor_fmas"] / (p["tensor_rate"] * R)
    if c["tensor_fmas"] > 0:
        chain = (c["tensor_fmas"] / (p["tensor_rate"] * min(4, warps) / 4)
                 + c["blocks"] * c["exposed_phases_per_block"] * p["exposed_clk"])
        tt = max(tt, chain / (max(1, tb) * R))
    t["tensor"] = tt
    t["issue"] = (core + c["tensor_insts"] + requests) / (3 * R)
    t["l1-shared"] = (c["shared_wavefronts"] + c["global_wavefronts"]) / R
    t["l1-requests"] = (c["global_loads"] + c["global_stores"]) * 1.35 / R
    t["l2"] = 32 * c["l2_sectors"] / 9.98e12
    t["dram"] = 4 * (J * K + K * L + J * L) / 3.35e12
    t["latency"] = c["blocks"] * c["barriers_per_block"] / 2 * p["phase_clk"] / (bps * R) if bps else 0
    if facts and p["sass"] and c["tensor_fmas"] == 0:
        h = facts["hot_loop"]
        if h.get("products"):
            per = lambda key: h.get(key, 0) / h["products"]  # noqa: E731  (per multiply-add of the loop)
            t["issue-sass"] = warp_fmas * per("total") / (p["ipc"] * R)
            t["int"] = warp_fmas * per("integer") / (p["int_rate"] * R)
            if h.get("fp64"):
                t["fp64"] = warp_fmas * per("fp64") / (2 * R)
            if h.get("conversion"):
                t["conv"] = warp_fmas * per("conversion") / (0.5 * R)
            if p["local_clk"] and per("ldl") + per("stl"):
                t["local"] = warp_fmas * (per("ldl") + per("stl")) * p["local_clk"] / R
            if p["warps_hide"]:   # few warps a scheduler: the loop's dependent latencies show
                eff = min(1.0, bps * warps / 4 / p["warps_hide"])
                t["issue-sass"] /= eff
                t["fp32"] /= eff
    # Only a hot loop with nothing nested: a nested loop's body (a staging loop, a k loop's other
    # versions) runs an unknown number of times a pass, so its instructions say nothing per pass.
    if p["dep"] and facts and deps and deps.get("products") and not deps["nested"] and c["tensor_fmas"] == 0:
        t.update(per_pipe(c, facts, deps, p, warp_fmas))
    bound = max(t, key=t.get)
    return t[bound] * 1e3, bound


def per_pipe(c: dict, facts: dict, deps: dict, p: dict, warp_fmas: float) -> dict:
    """The per-pipe candidate (issue #44): each of an SM's 4 schedulers runs W = blocks per SM (with
    ptxas's registers) x warps per block / 4 warps; one pass of the hot loop costs a scheduler the
    busiest of its pipes (every instruction at sched_ipc a clock, the FMA pipe's one a clock, the
    integer/logic ALU's alu_rate) or, when W warps cannot hide the loop's dependences, one warp's
    clocks alone over W (loop_deps.py: LDS and LDG latencies lds_clk, ldg_clk). smooth k > 0 adds
    the two as a k-norm instead of taking the larger, alpha > 0 as issue + alpha x hidden; waves charges the last wave's idle SMs."""
    bps, warps = occupancy(c["threads_per_block"], c["shared_bytes_per_block"], facts["registers"])
    if not bps:
        return {}
    w = bps * warps / 4
    issue = max(deps["instructions"] / p["sched_ipc"], deps["fma"], deps["alu"] / p["alu_rate"])
    hidden = deps["clocks"][f"{int(p['lds_clk'])},{int(p['ldg_clk'])}"] / w
    k = p["smooth"]
    per_pass = issue + p["alpha"] * hidden if p["alpha"] else \
        (issue ** k + hidden ** k) ** (1 / k) if k else max(issue, hidden)
    t = warp_fmas / deps["products"] * per_pass / (4 * R)
    if p["waves"] and c["blocks"]:
        slots = 132 * bps
        t *= math.ceil(c["blocks"] / slots) * slots / c["blocks"]
    out = {"pipes": t}
    phases = c["barriers_per_block"] / 2
    if p["phase"] and phases and "phase_instructions" in deps:
        # A block's phase: its warps' instructions (the hot loop as many times as a phase runs it)
        # on the schedulers, then its loads' latency the loop leaves exposed and a fixed cost; an SM's
        # other blocks compute meanwhile.
        trips = 1 if deps["phase_is_hot"] else \
            max(1.0, warp_fmas * 32 / (c["blocks"] * c["threads_per_block"] * phases) / deps["products"])
        per = deps.get("phases_per_pass", 1)   # a loop unrolled over several phases
        n = (deps["phase_instructions"] + (trips - 1) * deps["instructions"]) / per
        busy = warps / 4 * n / p["sched_ipc"]
        exposed = deps["phase_exposed"][str(int(p["phase_ldg"]))] / per + p["phase_clk2"]
        out["phase"] = c["blocks"] * phases * max(busy, (busy + exposed) / bps) / R
    return out


def load() -> tuple[dict, dict, dict]:
    counts = json.loads((HERE / "data" / "counts-emu.json").read_text())
    facts = json.loads((HERE / "data" / "backend-facts.json").read_text())["kernels"]
    deps = HERE / "data" / "loop-deps.json"
    for n, d in (json.loads(deps.read_text())["kernels"] if deps.exists() else {}).items():
        if n in facts:
            facts[n]["loop_deps"] = d
    gpu = {}
    for f in sorted(glob.glob(str(HERE / "heldout" / "*" / "measured-*.json"))):
        gpu.update(json.loads(Path(f).read_text()))
    return counts, facts, gpu


def main_kernel(facts: dict, name: str) -> dict | None:
    f = (facts.get(name) or {}).get("facts") or {}
    return f["kernels"][f["main"]] if f.get("read") else None


def loop_deps(facts: dict, name: str) -> dict | None:
    return (facts.get(name) or {}).get("loop_deps")


def bands(counts: dict, facts: dict, gpu: dict, p: dict, sets: set[str]) -> dict[str, list[tuple]]:
    """Per set: (kernel, modelled ratio, measured ratio, model band, GPU band, bound) of each kernel."""
    ref = {}
    for st in STAGES:
        e = counts.get(f"{st[:2]}-solution")
        if e and e.get("model"):
            n = f"{st[:2]}-solution"
            ref[st] = mirror(e["model"]["counts"], e["shape"], main_kernel(facts, n), p, loop_deps(facts, n))[0]
    out: dict[str, list[tuple]] = {}
    for n, e in counts.items():
        s, g = mv.set_of(e), gpu.get(n) or {}
        if s not in sets or not e.get("model") or g.get("ratio_to_reference") is None or e["stage"] not in ref:
            continue
        st = STAGES[e["stage"]]
        ms, bound = mirror(e["model"]["counts"], e["shape"], main_kernel(facts, n), p, loop_deps(facts, n))
        m = ref[e["stage"]] / ms
        pm, pg = st.performance.model, st.performance
        bm = mv.band(perf_fraction(m, pm.full_credit_ratio, pm.zero_credit_ratio))
        bg = mv.band(perf_fraction(g.get(pg.ratio_key), pg.full_credit_ratio, pg.zero_credit_ratio))
        out.setdefault(s, []).append((n, m, g["ratio_to_reference"], bm, bg, bound))
    return out


def summary(by: dict[str, list[tuple]]) -> dict[str, tuple[int, int, float]]:
    return {s: (sum(r[3] == r[4] for r in rows), len(rows), mv.spearman([r[1] for r in rows], [r[2] for r in rows]))
            for s, rows in by.items()}


def check(counts: dict, argv: list[str]) -> int:
    """0 when the mirror gives the C++ model's time, bound and blocks per SM for every stored kernel:
    perf_model.cpp itself, run on the stored counts by tests/cpp/perf_model_eval.cpp (`--model EXE`;
    CTest kit.model-fit.check builds and names it), not the times stored with the counts."""
    exe = Path(argv[argv.index("--model") + 1]) if "--model" in argv else DEFAULT_EVAL
    if not exe.is_file():
        print(f"no C++ model to check against at {exe}: build tilelab_perf_model_eval or pass --model EXE")
        return 2
    cpp = json.loads(subprocess.run([str(exe), str(HERE / "data" / "counts-emu.json")], check=True,
                                    capture_output=True, text=True).stdout)
    bad, worst = [], 0.0
    for n, e in counts.items():
        if not e.get("model"):
            continue
        ms, bound = mirror(e["model"]["counts"], e["shape"], None, BASE)
        c = e["model"]["counts"]
        bps = occupancy(c["threads_per_block"], c["shared_bytes_per_block"], 0)[0]
        diff = abs(ms / cpp[n]["ms"] - 1)
        worst = max(worst, diff)
        if diff > 1e-9 or bound != cpp[n]["bound"] or bps != cpp[n]["blocks_per_sm"]:
            bad.append(f"  {n}: mirror {ms:.6g} ms {bound} {bps} blocks/SM, "
                       f"perf_model.cpp {cpp[n]['ms']:.6g} ms {cpp[n]['bound']} {cpp[n]['blocks_per_sm']:g} blocks/SM")
    print(f"mirror against perf_model.cpp on {len(cpp)} kernels: worst relative difference {worst:.2e}, "
          f"{len(bad)} differ" + "".join("\n" + b for b in bad[:20]))
    return 1 if bad or len(cpp) != sum(1 for e in counts.values() if e.get("model")) else 0


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "check"
    counts, facts, gpu = load()
    if cmd == "check":
        return check(counts, argv[1:])
    pool = {mv.set_of(e) for e in counts.values()} - BLIND
    if cmd == "search":
        rows = []
        for regs, ipc, ir, lc, wh in itertools.product([False, True], [2.5, 3, 3.5, 4], [1, 1.5, 2], [0, 1.35, 4], [0, 2, 3, 4]):
            p = dict(BASE, sass=True, use_regs=regs, ipc=ipc, int_rate=ir, local_clk=lc, warps_hide=wh)
            s = summary(bands(counts, facts, gpu, p, pool))
            rows.append((sum(v[0] for v in s.values()), statistics.fmean(v[2] for v in s.values()), p))
        base = summary(bands(counts, facts, gpu, BASE, pool))
        print(f"today's model on the pool: {sum(v[0] for v in base.values())}/{sum(v[1] for v in base.values())} in band")
        for ok, rho, p in sorted(rows, key=lambda r: (-r[0], -r[1]))[:8]:
            print(f"{ok} in band, mean Spearman {rho:.3f}: " + ", ".join(f"{k}={p[k]}" for k in
                                                                          ("use_regs", "ipc", "int_rate", "local_clk", "warps_hide")))
        return 0
    if cmd == "search-pipes":   # the per-pipe candidate (loop_deps.py's data/loop-deps.json), pool only
        rows = []
        combine = [dict(smooth=0, alpha=0), dict(smooth=2, alpha=0), dict(smooth=4, alpha=0),
                   dict(alpha=0.5), dict(alpha=1), dict(alpha=2)]
        phase = [dict(phase=False)] + [dict(phase=True, phase_ldg=g, phase_clk2=b) for g in (250, 500, 800)
                                       for b in (0, 500, 1000, 1500, 2000, 3000)]
        for regs, lds, ldg, ipc, comb, ph in itertools.product([False, True], [16, 23, 30, 40], [250, 500, 800],
                                                               [0.75, 0.85, 1.0], combine, phase):
            p = dict(BASE, use_regs=regs, dep=True, lds_clk=lds, ldg_clk=ldg, sched_ipc=ipc, **comb, **ph)
            s = summary(bands(counts, facts, gpu, p, pool))
            rows.append((sum(v[0] for v in s.values()), statistics.fmean(v[2] for v in s.values()), p))
        base = summary(bands(counts, facts, gpu, BASE, pool))
        print(f"today's model on the pool: {sum(v[0] for v in base.values())}/{sum(v[1] for v in base.values())} in band, "
              f"mean Spearman {statistics.fmean(v[2] for v in base.values()):.3f}")
        keys = ("use_regs", "lds_clk", "ldg_clk", "sched_ipc", "smooth", "alpha", "phase", "phase_ldg", "phase_clk2")
        for ok, rho, p in sorted(rows, key=lambda r: (-r[0], -r[1]))[:15]:
            print(f"{ok} in band, mean Spearman {rho:.3f}: " + ", ".join(f"{k}={p[k]}" for k in keys))
        return 0
    sets, p = pool, dict(BASE)
    for a in argv[1:]:
        k, v = a.split("=", 1)
        if k == "--set":
            sets = {v}
        else:
            p[k] = {"True": True, "False": False}.get(v, v) if not v.replace(".", "").isdigit() else float(v)
    for s, rows in bands(counts, facts, gpu, p, sets).items():
        ok, n, rho = summary({s: rows})[s]
        print(f"== {s}: {ok}/{n} in band, Spearman {rho:.3f}")
        for r in rows:
            if r[3] != r[4]:
                print(f"   {r[0]:34s} modelled {r[1]:.2f} measured {r[2]:.2f} {r[5]:11s} {r[3]} / {r[4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
