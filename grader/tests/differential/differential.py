#!/usr/bin/env python3
"""The differential check of the emulator against the GPU (issue #13, item 4; docs/emulator.md,
"Differential check"): every variant of variants.py on the same datasets on each backend.

    differential.py run --tree BUILD --variants DIR --backends emu,emu-race,emu-asan --out emu.json
    differential.py check-emu emu.json       # the CPU half's assertions
    differential.py ci --tree BUILD --variants DIR --out emu.json   # run + check-emu (CTest kit.emu.differential)
    differential.py compare emu.json gpu.json [--md table.md]   # the GPU half (gpu-differential.sh)

`run` runs BUILD/runners/run-variants-<stage>-<backend> once per variant and dataset, the variant
chosen by TILELAB_VARIANT, and writes one record per run: verdict, hint_code, findings' kinds.

`check-emu`: every good variant passes every emulator build with no finding; every variant with a
bug is caught by at least one build (not `pass`), and by the build its bug calls for (EMU_CATCH).

`compare`: per variant and dataset, the emulator's plain verdict against the GPU's. A difference is
explained only where the emulator found what a GPU run alone cannot see (EXPLAINED: a race, a
skipped barrier, an out-of-bounds shared access the plain build reads as zeros); anything else is
unexplained and fails. Prints a short table.
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
from tilelab import judge  # noqa: E402
from tilelab.spec import resolved_path  # noqa: E402
# Datasets per stage: the plain build and the GPU run all of them, the slower builds the first
# (with K > 16, so a barrier missing between two phases matters at the bugs' tile width 16).
DATASETS = {
    "02-tiled": ["w32", "w96", "w64-int"],
    "03-boundary": ["w17", "w33", "w100-int"],
    "04-rectangular": ["17x31x13-primes", "15x16x17", "33x65x17-int"],
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
}
# Emulator findings that explain a verdict the GPU gives differently: the emulator sees the bug
# and the GPU run alone does not (a race that timing hides, a barrier skipped by returned threads
# that Volta and later count as arrived), or the plain build reads a shared array's overrun as
# zeros where the GPU faults (the asan build names the line).
EXPLAINED = {"race", "barrier-skipped", "barrier-divergence", "uninitialized-shared",
             "out-of-bounds-index", "out-of-bounds-shared"}


def run_one(tree: Path, stage: str, backend: str, vid: str, ds: str, timeout: int) -> dict:
    runner = tree / "runners" / f"run-variants-{stage}-{backend}"
    with tempfile.TemporaryDirectory() as tmp:
        res = Path(tmp) / "r.json"
        cmd = [*judge.command(runner), "--spec", str(resolved_path(tree, stage)),
               "--dataset", str(tree / "datasets" / stage / ds), "--check", "correct",
               "--json", str(res), "--timeout", str(timeout)]
        env = dict(os.environ, TILELAB_VARIANT=vid)
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout + 30)
            rc, out = p.returncode, p.stdout[-2000:] + p.stderr[-2000:]
        except subprocess.TimeoutExpired:
            rc, out = -9, "killed"
        try:
            r = json.loads(res.read_text())
        except (OSError, ValueError):
            r = {"verdict": f"no-result(exit {rc})"}
    emu = r.get("emulator") or {}
    return {"id": vid, "stage": stage, "backend": backend, "dataset": ds, "verdict": r.get("verdict"),
            "hint_code": r.get("hint_code"), "findings": sorted({f.get("kind") for f in emu.get("findings", [])}),
            "rc": rc, "output": "" if r.get("verdict") in ("pass", "wrong") else out}


def cmd_run(a) -> int:
    manifest = json.loads((a.variants / "manifest.json").read_text())["variants"]
    jobs = []
    for v in manifest:
        for backend in a.backends.split(","):
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
    return r["verdict"] == what or what in r["findings"] or r.get("hint_code") == what


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
    text = "\n".join(head + rows) + "\n"
    print(text)
    if a.md:
        a.md.write_text(text)
    return 1 if counts["unexplained"] else 0


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
