#!/usr/bin/env python3
"""The performance model against measured times (docs/performance.md, "Validation").

    model_validation.py run --tree BUILD --variants DIR --backend emu-count|gpu --out X.json [--size N]
                            [--set SET|all]
        runs run-mv-<variant>-<stage>-<backend> of every variant of the set (default all; --check
        perf; the emulator on its stage's [performance.model] shape, the GPU on N^3, default 4096)
        and saves each one's ratio to the reference (and the model's counts, and its set) in X.json
    model_validation.py assert-grades RESULT.json STAGE
        (CTest kit.model.<stage>) the solution's perf-model result earns full credit and the
        previous stage's kernel none
    model_validation.py compare EMU.json GPU.json [--md OUT.md]
                            [--set SET|all]
        modelled vs measured ratio to the reference, side by side, one table per set
        (model_variants.SETS: the fitting variants, on which the model was fitted, and the frozen
        held-out sets, each in its grader/model-validation/heldout/* folder), each with its summary line: Spearman's
        rank correlation, the median error of the ratio for stages 01-05, and whether each kernel
        lands in the same credit band (none / partial / full) under the model's thresholds as under
        the timed check's

Exit status of compare: 0 when the targets of issue #16 are met by every set compared (Spearman
>= 0.9, median error <= 20% for 01-05, every band the same; a set with no kernels compared does
not meet them), 1 otherwise. A kernel's set is the "set" of its row in EMU.json ("fitting" where
a file written before the held-out set has none). `all` is the ten sets: a file written before
the second (or third, fourth, fifth or any tensor-core) held-out set has none of its rows, so compare it with the
sets it has.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))

from tilelab.run import judge  # noqa: E402
from tilelab.specs import spec  # noqa: E402
from tilelab.score.scoring import perf_fraction  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model_variants  # noqa: E402  (grader/setup: the sets' one list)

SETS = tuple(model_variants.SETS)

def set_of(row: dict) -> str:
    return row.get("set", "fitting")


def chosen(which: str) -> tuple[str, ...]:
    return SETS if which == "all" else (which,)


def run(tree: Path, variants: Path, backend: str, out: Path, size: int, timeout: float,
        which: str = "all", resume: Path | None = None, jobs: int = 1) -> int:
    """Runs each kernel of the sets chosen; with `resume` (an earlier run's file, cut short by a time
    limit), keeps that file's rows and runs only the kernels it lacks."""
    manifest = {n: v for n, v in json.loads((variants / "variants.json").read_text()).items()
                if set_of(v) in chosen(which)}
    kept = json.loads(resume.read_text()) if resume else {}
    stages = {s.id: s for s in spec.load_all()}
    rows = {n: r for n, r in kept.items() if n in manifest}
    logs = out.parent / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    todo = [(name, v) for name, v in manifest.items() if name not in rows]

    def one(name: str, v: dict) -> dict:
        st = stages[v["stage"]]
        runner = tree / "runners" / f"run-mv-{name}-{st.id}-{backend}"
        shape = list(st.performance.model.shape) if backend == "emu-count" else [size] * 3
        res = logs / f"{name}-{backend}.json"
        cmd = judge.command(runner, spec=spec.resolved_path(tree, st.id), shape=shape, seed=1, check="perf", out=res,
                            timeout=timeout)
        with open(logs / f"{name}-{backend}.log", "w") as log:
            p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=timeout + 60)
        r = json.loads(res.read_text()) if res.exists() else {}
        t = r.get("timing") or {}
        mine = (t.get("impls") or {}).get(r.get("impl", ""), {})
        return {"stage": st.id, "set": set_of(v), "what": v["what"], "verdict": r.get("verdict", f"exit {p.returncode}"),
                "shape": shape, "ratio_to_reference": t.get("ratio_to_reference"),
                "ratio_to_cublas": t.get("ratio_to_cublas"), "median_ms": mine.get("median_ms"),
                "model": mine.get("model")}

    # The GPU times one kernel at a time (a timing vouches only for its own run); the emulator's
    # counts do not depend on what else runs, so its kernels run `jobs` at a time.
    with ThreadPoolExecutor(max_workers=jobs if backend == "emu-count" else 1) as pool:
        for name, row in zip((n for n, _ in todo), pool.map(lambda nv: one(*nv), todo)):
            rows[name] = row
            # Written after every kernel: a run cut short by a time limit keeps what it measured.
            out.write_text(json.dumps(rows, indent=1) + "\n")
            print(f"{name:24s} {row['set']:10s} {row['verdict']:8s} ratio {row['ratio_to_reference']}", flush=True)
    out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r["verdict"] == "pass" for r in rows.values()) else 1


def ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else 0.0


def band(fraction: float) -> str:
    return "none" if fraction <= 0 else "full" if fraction >= 1 else "partial"


def compare(emu: dict, gpu: dict, md: Path | None, which: str = "all") -> int:
    """One table and summary line per set; 0 when every set meets the targets."""
    stages = {s.id: s for s in spec.load_all()}
    lines, ok = [], True
    for name in chosen(which):
        rows = {n: e for n, e in emu.items() if set_of(e) == name}
        table, met = compare_set(rows, gpu, stages)
        lines += [f"#### {model_variants.title(name)}", "", *table, ""]
        ok = ok and met
    lines.append(f"All sets: {'targets met' if ok else 'TARGETS NOT MET'}")
    text = "\n".join(lines)
    print(text)
    if md:
        md.write_text(text + "\n")
    return 0 if ok else 1


def compare_set(emu: dict, gpu: dict, stages: dict) -> tuple[list[str], bool]:
    """The table and summary line of one set's kernels, and whether they meet the targets."""
    lines = ["| kernel | what | modelled ratio | measured ratio | error | bound (model) | band model / GPU |",
             "|---|---|---:|---:|---:|---|---|"]
    mod, mea, errors, agree = [], [], [], []
    for name, e in emu.items():
        g = gpu.get(name) or {}
        m, t = e.get("ratio_to_reference"), g.get("ratio_to_reference")
        if m is None or t is None:
            lines.append(f"| {name} | {e['what']} | {m} | {t} | – | – | not compared ({e['verdict']} / "
                         f"{g.get('verdict')}) |")
            continue
        st = stages[e["stage"]]
        pm, pg = st.performance.model, st.performance
        bm = band(perf_fraction(m, pm.full_credit_ratio, pm.zero_credit_ratio))
        # The timed check's band, on the ratio it grades by (06: the fraction of cuBLAS).
        bg = band(perf_fraction(g.get(pg.ratio_key), pg.full_credit_ratio, pg.zero_credit_ratio))
        err = m / t - 1
        mod.append(m), mea.append(t), agree.append(bm == bg)
        if pg.basis == "reference":  # 06 is graded by the fraction of cuBLAS: its error is not the model's
            errors.append(abs(err))
        bound = ((e.get("model") or {}).get("model") or {}).get("bound", "?")
        lines.append(f"| {name} | {e['what']} | {m:.2f} | {t:.2f} | {err:+.0%} | {bound} | {bm} / {bg}"
                     f"{'' if bm == bg else ' **differs**'} |")
    rho = spearman(mod, mea) if len(mod) > 2 else 0.0
    med = statistics.median(errors) if errors else 0.0
    ok = bool(agree) and rho >= 0.9 and med <= 0.20 and all(agree)
    lines += ["", f"Spearman's rank correlation {rho:.3f} (target >= 0.9); median error of the ratio, stages "
              f"graded against their reference (01-05, 07): {med:.0%} (target <= 20%); same credit band: "
              f"{sum(agree)}/{len(agree)} kernels; {'targets met' if ok else 'TARGETS NOT MET'}"]
    return lines, ok


def assert_grades(result: Path, stage_id: str) -> int:
    """CTest kit.model.<stage>: the perf-model check of the stage's solution earns full performance
    credit from the model, and the previous stage's kernel (counted in the same run) none, where
    the book says the previous method loads more per FMA (its book_cgma is lower)."""
    stages = {s.id: s for s in spec.load_all()}
    st = stages[stage_id]
    m = st.performance.model
    r = json.loads(result.read_text())
    t = r.get("timing") or {}
    problems = []
    if r.get("verdict") != "pass" or t.get("basis") != "model":
        problems.append(f"the perf-model check gave {r.get('verdict')!r} (basis {t.get('basis')!r}): {r.get('message')}")
    ratio = t.get("ratio_to_reference")
    if perf_fraction(ratio, m.full_credit_ratio, m.zero_credit_ratio) < 1:
        problems.append(f"the solution's modelled ratio to the reference is {ratio}, not full credit")
    prev = stages.get(st.previous)
    if prev and prev.performance.model and (prev.performance.model.book_cgma or 0) < (m.book_cgma or 0):
        back = t.get("ratio_to_previous")
        prev_ratio = 1 / back if back else None
        if prev_ratio is None or perf_fraction(prev_ratio, m.full_credit_ratio, m.zero_credit_ratio) > 0:
            problems.append(f"the previous stage's kernel ({prev.id}) models at {prev_ratio} of the reference: "
                            f"it must earn nothing (<= {m.zero_credit_ratio})")
        else:
            print(f"{stage_id}: previous stage's kernel models at {prev_ratio:.2f} of the reference: no credit")
    # What shared memory is for (stage.toml max_global_loads_per_fma): the judge failed the check if
    # the solution loaded more; said here with the margin, and the previous stage's kernel beside it.
    if st.max_global_loads_per_fma:
        impls = t.get("impls") or {}
        loads = {n: (impls.get(n) or {}).get("global_loads_per_fma") for n in (r.get("impl"), "previous")}
        mine = loads[r.get("impl")]
        if mine is None:
            problems.append("the result has no global_loads_per_fma: the judge did not count the loads")
        else:
            prev_loads = loads["previous"]
            print(f"{stage_id}: global loads per multiply-add: solution {mine:.4f} (limit "
                  f"{st.max_global_loads_per_fma:.4f}, margin {st.max_global_loads_per_fma / mine:.2f}x)"
                  + (f", previous stage's kernel {prev_loads:.4f}" if prev_loads is not None else ""))
    for p in problems:
        print(f"{stage_id}: {p}")
    if not problems:
        print(f"{stage_id}: solution at {ratio:.2f} of the reference: full credit")
    return 1 if problems else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--tree", type=Path, required=True)
    p.add_argument("--variants", type=Path, required=True)
    p.add_argument("--backend", choices=["emu-count", "gpu"], required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--set", dest="which", choices=[*SETS, "all"], default="all")
    p.add_argument("--resume", type=Path, help="an earlier run's file: keep its rows, run only the rest")
    p.add_argument("--jobs", type=int, default=1, help="emulator runs at a time (the GPU's are one at a time)")
    p = sub.add_parser("assert-grades")
    p.add_argument("result", type=Path)
    p.add_argument("stage")
    p = sub.add_parser("compare")
    p.add_argument("emu", type=Path)
    p.add_argument("gpu", type=Path)
    p.add_argument("--md", type=Path)
    p.add_argument("--set", dest="which", choices=[*SETS, "all"], default="all")
    a = ap.parse_args(argv)
    if a.cmd == "assert-grades":
        return assert_grades(a.result, a.stage)
    if a.cmd == "run":
        return run(a.tree, a.variants, a.backend, a.out, a.size, a.timeout, a.which, a.resume, a.jobs)
    return compare(json.loads(a.emu.read_text()), json.loads(a.gpu.read_text()), a.md, a.which)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
