#!/usr/bin/env python3
"""The differential check of the emulator against the GPU (issue #13, item 4; docs/emulator.md,
"Differential check"): every variant of variants.py on the same datasets on each backend.

    differential.py run --tree BUILD --variants DIR --backends emu,emu-race,emu-asan --out emu.json
    differential.py check-emu emu.json       # the CPU half's assertions
    differential.py ci --tree BUILD --variants DIR --out emu.json   # run + check-emu (CTest kit.emu.differential)
    differential.py run --tree BUILD --variants DIR --backends gpu,gpu-sanitizer --out gpu.json
    differential.py compare emu.json gpu.json [--md table.md]   # the GPU half (gpu-differential.sh)

`run` runs BUILD/runners/run-variants-<stage>-<backend> once per variant and dataset, the variant
chosen by TILELAB_VARIANT, and writes one record per run: verdict, hint_code, findings' kinds,
their hint codes and lines. The pseudo-backend `gpu-sanitizer` runs the GPU runner of each variant
whose bug SAFETY gives a tool under compute-sanitizer, through `python3 -m tilelab.run.sanitize` as the
kit's own sanitizer checks do (memcheck with exact, padded buffers), on the dataset the emulator's
asan and race builds run; its records' backend is gpu-<tool>.

`check-emu`: every good variant passes every emulator build with no finding; every variant with a
bug is caught by at least one build (not `pass`), and by the build its bug calls for (EMU_CATCH).

`compare`: per variant and dataset, the emulator's plain verdict against the GPU's. A difference is
explained only where the emulator found what a GPU run alone cannot see (EXPLAINED: a race, a
skipped barrier, an out-of-bounds shared access the plain build reads as zeros); anything else is
unexplained and fails. Prints a short table. Then the safety verdicts (SAFETY): per variant with a
memory or race bug, the emulator's finding (any build) and the GPU tool's, agree or disagree; an
out-of-bounds access one side finds and the other misses fails too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))
from tilelab.run import judge  # noqa: E402
from tilelab.specs.spec import resolved_path  # noqa: E402
# Datasets per stage: the plain build and the GPU run all of them, the slower builds the first
# (with K > 16, so a barrier missing between two phases matters at the bugs' tile width 16).
DATASETS = {
    "02-tiled": ["w32", "w96", "w64-int"],
    "03-boundary": ["w17", "w33", "w100-int"],
    "04-rectangular": ["17x31x13-primes", "15x16x17", "33x65x17-int"],
    # edges in every dimension and no 16-byte rows (K, L not multiples of 4); several blocks each
    # way; a shape with 16-byte rows (fragments loaded and stored straight from and to M, N and P);
    # the wide distribution (inputs past half's 65504) with edges
    "07-tensor-cores": ["17x31x13-primes", "130x66x258-k-mod4", "96x200x80-wide", "129x257x131-wide"],
}
SLOW_BUILDS = {"emu-race", "emu-asan"}
# The emulator build and finding (or verdict) that must catch each bug.
EMU_CATCH = {
    "no-barrier-1": ("emu-race", "race"),
    "no-barrier-2": ("emu-race", "race"),
    "barrier-in-guard": ("emu", "barrier-skipped"),
    # P wrong from the previous phase's stale tile elements; the elements no thread of the block
    # wrote feed only outputs never stored, so the race build warns (issue #26, item 3)
    "no-else": ("emu", "wrong"),
    "unguarded-store": ("emu", "global-overrun"),
    "phases-rounded-down": ("emu", "wrong"),
    "k-off-by-one": ("emu-asan", "out-of-bounds-index"),
    "swapped-n-index": ("emu", "wrong"),
    # right results; only the exact-size buffers of the asan build show the reads past the end
    "m-load-past-end": ("emu-asan", "out-of-bounds-global"),
    "n-load-past-end": ("emu-asan", "out-of-bounds-global"),
    # wrong on every build (the last block's partial sum wins); the race build names it
    "split-k-no-atomics": ("emu-race", "race-between-blocks"),
    # 07-tensor-cores (issue #30). An ldm of BK where rows are BK + pad apart: wrong, and the race
    # build sees the pad's unwritten elements reach P (uninitialized-shared)
    "wrong-ldm": ("emu", "wrong"),
    # an empty grid (a launch error) where L < BN or J < BM, else wrong
    "grid-rounded-down": ("emu", "grid-too-small"),
    # col_major N fragments on a row-major tile read up to 15 rows on from each k-step: past the
    # end of the tile in the last one (the plain build's arena has room: wrong)
    "layout-mismatch": ("emu-asan", "out-of-bounds-shared"),
    # __half inputs: right within half's range, Inf and NaN on the wide datasets
    "half-inputs": ("emu", "half-range"),
}
# Emulator findings that explain a verdict the GPU gives differently: the emulator sees the bug
# and the GPU run alone does not (a race that timing hides, a barrier skipped by returned threads
# that Volta and later count as arrived), or the plain build reads a shared array's overrun as
# zeros where the GPU faults (the asan build names the line).
# Not here: an out-of-bounds global access (out-of-bounds-global, global-overrun). Both backends'
# plain runs have guard zones past M, N and P: a read there changes no stored result on either, and
# a store there is an error on both; a verdict that differs all the same is unexplained.
EXPLAINED = {"race", "barrier-skipped", "barrier-divergence", "uninitialized-shared",
             "out-of-bounds-index", "out-of-bounds-shared"}
# The safety verdicts (issue #26, item 5): per bug, the class of finding it should give and the
# compute-sanitizer tool that sees that class on the GPU (None: no GPU tool does).
SAFETY = {
    "no-barrier-1": ("shared-race", "racecheck"),
    "no-barrier-2": ("shared-race", "racecheck"),
    "k-off-by-one": ("shared-out-of-bounds", "memcheck"),
    "unguarded-store": ("global-out-of-bounds", "memcheck"),
    "m-load-past-end": ("global-out-of-bounds", "memcheck"),
    "n-load-past-end": ("global-out-of-bounds", "memcheck"),
    # racecheck watches shared memory only; no compute-sanitizer tool compares two blocks' stores
    "split-k-no-atomics": ("race-between-blocks", None),
    # Not here: 07's layout-mismatch. Its reads past the staged tile land inside another of the
    # block's shared arrays or past them all as nvcc lays them out: memcheck sees only the latter,
    # the asan build both, so a disagreement would say nothing about either.
}
# Classes where a disagreement fails compare: memcheck and the asan build both see every access
# outside an allocation, so one finding what the other misses is a bug in one of them (or in the
# buffers the runner gives them). A racecheck disagreement is recorded, not failed.
MUST_AGREE = {"global-out-of-bounds", "shared-out-of-bounds"}
SANITIZER_TIMEOUT = 600


def emu_class(kind: str, hint: str | None) -> str:
    """The safety class of an emulator finding."""
    if kind in ("out-of-bounds-global", "global-overrun"):
        return "global-out-of-bounds"
    if kind in ("out-of-bounds-shared", "out-of-bounds-index"):
        return "shared-out-of-bounds"
    if kind == "race":
        return "race-between-blocks" if hint == "race-between-blocks" else "shared-race"
    return kind


def gpu_class(kind: str) -> str:
    """The safety class of a compute-sanitizer finding (tilelab.run.sanitize's kinds)."""
    if kind.startswith("invalid-global-"):
        return "global-out-of-bounds"
    if kind.startswith("invalid-shared-"):
        return "shared-out-of-bounds"
    if kind == "race":  # racecheck: shared memory hazards
        return "shared-race"
    return kind


def run_one(tree: Path, stage: str, backend: str, vid: str, ds: str, timeout: int) -> dict:
    """One run; backend gpu-<tool> runs the GPU runner under compute-sanitizer's tool."""
    tool = backend.removeprefix("gpu-") if backend.startswith("gpu-") else None
    tree = tree.resolve()  # the sanitizer runs in grader/, where `-m tilelab.run.sanitize` is found
    runner = tree / "runners" / f"run-variants-{stage}-{'gpu' if tool else backend}"
    if tool:
        timeout = max(timeout, SANITIZER_TIMEOUT)
    with tempfile.TemporaryDirectory() as tmp:
        res = Path(tmp) / "r.json"
        cmd = [*judge.command(runner), "--spec", str(resolved_path(tree, stage)),
               "--dataset", str(tree / "datasets" / stage / ds), "--check", "correct",
               "--json", str(res), "--timeout", str(timeout)]
        if tool:  # the kit's sanitizer checks' wrapper (TilelabSanitizer.cmake): its log beside res
            cmd = [sys.executable, "-m", "tilelab.run.sanitize", "--tool", tool, "--json", str(res),
                   "--timeout", str(timeout), "--", *cmd]
        env = dict(os.environ, TILELAB_VARIANT=vid)
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout + 60,
                               cwd=ROOT / "grader" if tool else None)
            rc, out = p.returncode, p.stdout[-2000:] + p.stderr[-2000:]
        except subprocess.TimeoutExpired:
            rc, out = -9, "killed"
        try:
            r = json.loads(res.read_text())
        except (OSError, ValueError):
            r = {"verdict": f"no-result(exit {rc})"}
    found = (r.get("sanitizer") if tool else r.get("emulator")) or {}
    fs = found.get("findings", [])
    rec = {"id": vid, "stage": stage, "backend": backend, "dataset": ds, "verdict": r.get("verdict"),
           "hint_code": r.get("hint_code"), "findings": sorted({f.get("kind") for f in fs}),
           "hints": sorted({f["hint_code"] for f in fs if f.get("hint_code")}),
           "where": sorted({(f.get("kind") or "", f.get("line") or 0, f.get("hint_code") or "") for f in fs}),
           "rc": rc, "output": "" if r.get("verdict") in ("pass", "wrong") else out}
    if tool:
        rec.update(tool=tool, errors=found.get("errors", 0))
    return rec


def cmd_run(a) -> int:
    manifest = json.loads((a.variants / "manifest.json").read_text())["variants"]
    jobs = []
    for v in manifest:
        for backend in a.backends.split(","):
            if backend == "gpu-sanitizer":  # the bug's tool, on the slow builds' dataset
                tool = SAFETY.get(v["bug"], (None, None))[1]
                if tool:
                    jobs.append((v["stage"], f"gpu-{tool}", v["id"], DATASETS[v["stage"]][0]))
                continue
            for ds in DATASETS[v["stage"]][:1 if backend in SLOW_BUILDS else None]:
                jobs.append((v["stage"], backend, v["id"], ds))
    with ThreadPoolExecutor(a.jobs) as pool:
        recs = list(pool.map(lambda j: run_one(a.tree, *j, a.timeout), jobs))
    meta = {v["id"]: v for v in manifest}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"variants": meta, "runs": recs}, indent=0) + "\n")
    print(f"{len(recs)} runs of {len(manifest)} variants on {a.backends} -> {a.out}")
    return 0


def caught(r: dict, what: str) -> bool:
    return (r["verdict"] == what or what in r["findings"] or r.get("hint_code") == what
            or what in r.get("hints", []))


def cmd_check_emu(a) -> int:
    doc = json.loads(a.results.read_text())
    meta, runs = doc["variants"], doc["runs"]
    bad: list[str] = []
    for vid, v in meta.items():
        mine = [r for r in runs if r["id"] == vid]
        if v["good"]:
            for r in mine:
                if r["verdict"] != "pass" or r["findings"]:
                    bad.append(f"{vid} {v['stage']} {r['backend']} {r['dataset']}: a correct kernel got "
                               f"{r['verdict']} {r['findings']} {r['output'][-300:]}")
        else:
            build, what = EMU_CATCH[v["bug"]]
            if not any(r["backend"] == build and caught(r, what) for r in mine):
                got = "; ".join(f"{r['backend']} {r['dataset']}: {r['verdict']} {r['findings']}" for r in mine)
                bad.append(f"{vid} {v['stage']} bug {v['bug']}: not caught by {build} as {what} ({got})")
    good = sum(v["good"] for v in meta.values())
    print(f"{len(meta)} variants ({good} good, {len(meta) - good} with a bug), {len(runs)} emulator runs: "
          f"{len(bad)} unexpected")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


def cmd_compare(a) -> int:
    emu = json.loads(a.emu.read_text())
    gpu = json.loads(a.gpu.read_text())
    meta = emu["variants"]
    emu_runs = emu["runs"]
    rows, counts = [], {"agree": 0, "explained": 0, "unexplained": 0}
    for g in gpu["runs"]:
        if g["backend"] != "gpu":
            continue
        e = next((r for r in emu_runs if r["id"] == g["id"] and r["dataset"] == g["dataset"] and r["backend"] == "emu"), None)
        if e is None:
            continue
        if e["verdict"] == g["verdict"]:
            counts["agree"] += 1
            continue
        seen = sorted({k for r in emu_runs if r["id"] == g["id"] for k in r["findings"]} & EXPLAINED)
        kind = "explained" if seen else "unexplained"
        counts[kind] += 1
        v = meta[g["id"]]
        rows.append(f"| {g['id']} | {v['stage']} | {v['bug'] or 'correct'} | {g['dataset']} | {e['verdict']} | "
                    f"{g['verdict']} | {kind}: {', '.join(seen) or '-'} |")
    good = sum(v["good"] for v in meta.values())
    head = [f"{len(meta)} variants ({good} correct, {len(meta) - good} with a bug), {sum(counts.values())} "
            f"(variant, dataset) pairs: {counts['agree']} same verdict, {counts['explained']} explained, "
            f"{counts['unexplained']} unexplained", "",
            "| variant | stage | bug | dataset | emulator | GPU | difference |", "|---|---|---|---|---|---|---|"]
    safety, failed = safety_table(meta, emu_runs, gpu["runs"])
    text = "\n".join(head + rows) + "\n\n" + safety
    print(text)
    if a.md:
        a.md.write_text(text)
    return 1 if counts["unexplained"] or failed else 0


def _where(r: dict, want: str, classify) -> str:
    """A run's findings of the safety class `want`, as kind:line."""
    return ", ".join(sorted({f"{k}:{line}" if line else k
                             for k, line, hint in r.get("where", []) if classify(k, hint) == want}))


def safety_table(meta: dict, emu_runs: list[dict], gpu_runs: list[dict]) -> tuple[str, int]:
    """The safety verdicts of the variants with a memory or race bug (SAFETY): the emulator's
    findings of the bug's class (every build), the GPU tool's, and whether they agree. Returns
    the table and the number of disagreements that fail (MUST_AGREE)."""
    rows, counts = [], {"agree": 0, "disagree": 0, "no GPU tool": 0, "not run": 0}
    failed = 0
    for vid, v in sorted(meta.items()):
        if v["good"] or v["bug"] not in SAFETY:
            continue
        want, tool = SAFETY[v["bug"]]
        emu_hits = sorted({f"{r['backend']}: {w}" for r in emu_runs if r["id"] == vid
                           for w in [_where(r, want, emu_class)] if w})
        emu_text = "; ".join(emu_hits) or "none"
        g = next((r for r in gpu_runs if r["id"] == vid and r["backend"] == f"gpu-{tool}"), None)
        if tool is None:
            status, gpu_text = "no GPU tool", "– (no compute-sanitizer tool compares two blocks' stores)"
        elif g is None or g["verdict"] in (None, "skipped", "timeout") or str(g["verdict"]).startswith("no-result"):
            status, gpu_text = "not run", f"{tool}: {g['verdict'] if g else 'no record'}"
        else:
            gw = _where(g, want, lambda k, hint: gpu_class(k))
            gpu_text = f"{tool}: {gw or 'none'}" + (f" ({g['errors']} errors)" if g.get("errors") else "")
            status = "agree" if bool(gw) == bool(emu_hits) else "disagree"
        counts[status] += 1
        if status == "disagree" and want in MUST_AGREE:
            failed += 1
            status = "disagree (fails)"
        rows.append(f"| {vid} | {v['stage']} | {v['bug']} | {want} | {emu_text} | {gpu_text} | {status} |")
    head = [f"Safety verdicts, {len(rows)} variants with a memory or race bug: {counts['agree']} agree, "
            f"{counts['disagree']} disagree ({failed} failing), {counts['no GPU tool']} with no GPU tool, "
            f"{counts['not run']} not run on the GPU", "",
            "| variant | stage | bug | class | emulator (build: finding:line) | GPU (tool: finding:line) | verdict |",
            "|---|---|---|---|---|---|---|"]
    return "\n".join(head + rows) + "\n", failed


def cmd_ci(a) -> int:
    a.backends = "emu,emu-race,emu-asan" if (a.tree / "runners" / "run-variants-03-boundary-emu-asan").exists() \
        else "emu,emu-race"
    cmd_run(a)
    a.results = a.out
    return cmd_check_emu(a)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--tree", type=Path, required=True)
    r.add_argument("--variants", type=Path, required=True)
    r.add_argument("--backends", required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--timeout", type=int, default=60)
    ci = sub.add_parser("ci")
    ci.add_argument("--tree", type=Path, required=True)
    ci.add_argument("--variants", type=Path, required=True)
    ci.add_argument("--out", type=Path, required=True)
    ci.add_argument("--jobs", type=int, default=2)
    ci.add_argument("--timeout", type=int, default=60)
    c = sub.add_parser("check-emu")
    c.add_argument("results", type=Path)
    m = sub.add_parser("compare")
    m.add_argument("emu", type=Path)
    m.add_argument("gpu", type=Path)
    m.add_argument("--md", type=Path)
    a = ap.parse_args()
    return {"run": cmd_run, "ci": cmd_ci, "check-emu": cmd_check_emu, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
