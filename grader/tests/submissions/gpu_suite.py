#!/usr/bin/env python3
"""The GPU half of the known-bad suite (driven by gpu-suite.sh): for one submission whose GPU
runner run-kit-<name>-<stage>-gpu was built (or failed to build) in TREE, run what its expect.toml's [gpu] cases ask, the
static scan, and compute-sanitizer, then print one JSON line per case for the summary table.

    gpu_suite.py case --expect <name>/expect.toml --tree TREE --out OUT [--build-log LOG] [--build-rc RC]
    gpu_suite.py table OUT           # summary.md from OUT/rows/*.json

[gpu] cases (a table or [[gpu]] tables): dataset (default: the stage's first [sanitizer] dataset),
check ("correct" or "perf": perf uses the stage's perf dataset), verdict (or a list of the verdicts
allowed), hint_code, forbidden = [...], message_contains = [...], timeout; credit = "full", "partial"
or "none" (a perf case: the band of the stage's performance points that the timed ratio to the
reference earns, scoring.perf_fraction with the stage's thresholds); memcheck / synccheck /
racecheck / initcheck = the first finding's kind expected from that tool ("clean": none): naming
one runs all four, reported, and asserts the one named. The tools run on the case's dataset where
it names one, otherwise on each of the stage's [sanitizer] datasets for that tool (stage.toml: the
shapes the grade's own sanitizer checks use), the first finding among them counting;
skip = "why" for a case not to run on a shared GPU machine; seed = the grading seed of a sealed
grade (the judge's --seed, as CTest gives it to a public dataset's check). Bug kernels without [gpu] cases (the
emulator suite's) get their [emu] datasets, expected to match the emulator's verdict, and all four
tools, reported but not asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

GRADER = Path(__file__).resolve().parents[2]
ROOT = GRADER.parent
sys.path.insert(0, str(GRADER))
from tilelab.run import refusal  # noqa: E402
from tilelab.run import artifacts, judge, sanitize  # noqa: E402
from tilelab.specs import spec  # noqa: E402
from tilelab.score.scoring import perf_fraction, verdict_of  # noqa: E402
from tilelab.run.tree import compile_excerpt  # noqa: E402
from tilelab.specs.compat import tomllib  # noqa: E402

DATASETS = Path()
TOOLS = ("memcheck", "synccheck", "racecheck", "initcheck")


def cases_of(doc: dict, stage: spec.Stage) -> tuple[list[dict], bool]:
    """The [gpu] cases, or those derived from the emulator cases (with the sanitizer run)."""
    gpu = doc.get("gpu")
    if gpu is not None:
        return (gpu if isinstance(gpu, list) else [gpu]), False
    derived, seen = [], set()
    for key in ("emu", "emu-asan", "emu-race"):
        cs = doc.get(key, [])
        for c in cs if isinstance(cs, list) else [cs]:
            if c.get("dataset") and c["dataset"] not in seen and key == "emu":
                seen.add(c["dataset"])
                # A sealed case stays sealed: the seed decides what the check runs (the drawn values).
                derived.append({"dataset": c["dataset"], "verdict": c.get("verdict", ""), "from": "emu",
                                **({"seed": c["seed"]} if "seed" in c else {})})
    return derived, True


def sanitizer_datasets(stage: spec.Stage, tool: str, case: dict) -> list[str]:
    """Where a case runs a compute-sanitizer tool: its own dataset, or the stage's [sanitizer]
    datasets for the tool -- the shapes TilelabSanitizer.cmake registers the grade's checks on."""
    return [case["dataset"]] if case.get("dataset") else list(stage.sanitizer.datasets_for(tool))


def combined(found: list[str]) -> str:
    """One tool's column over several datasets: the first finding, else "clean", else what ran."""
    return (next((f for f in found if " @ " in f), None) or ("clean" if "clean" in found else None)
            or (found[0] if found else ""))


def credit_band(result: dict, stage: spec.Stage) -> str:
    """"full", "partial" or "none" (with the ratio) of a timed check's result under the stage's
    [performance] thresholds; "" when it has no ratio to the reference."""
    ratio = (result.get("timing") or {}).get(stage.performance.ratio_key)
    if not isinstance(ratio, (int, float)):
        return ""
    p = stage.performance
    f = perf_fraction(ratio, p.full_credit_ratio, p.zero_credit_ratio)
    return f"{'full' if f >= 1 else 'none' if f <= 0 else 'partial'} ({ratio:.2f})"


def run_runner(runner: Path, stage: spec.Stage, tree: Path, ds: str, check: str, out: Path, tag: str,
               timeout: int, tool: str | None = None, seed: int | None = None) -> dict:
    res = out / "results" / f"{tag}.json"
    res.parent.mkdir(parents=True, exist_ok=True)
    cmd = [*judge.command(runner), "--spec", str(spec.resolved_path(tree, stage.id)),
           "--dataset", str(DATASETS / stage.id / ds), "--check", check, "--json", str(res),
           "--timeout", str(timeout)] + (["--seed", str(seed)] if seed is not None else [])
    log = out / "logs" / f"{tag}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with open(log, "w") as f:
        if tool:
            cmd = [sys.executable, "-m", "tilelab.run.sanitize", "--tool", tool, "--json", str(res),
                   "--timeout", str(timeout + 60), "--", *cmd]
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=GRADER, timeout=timeout + 90).returncode
        except subprocess.TimeoutExpired:
            rc = -9
    try:
        r = json.loads(res.read_text())
    except (OSError, ValueError):
        r = {"verdict": f"no result (exit {rc})"}
    r["_seconds"] = round(time.monotonic() - t0, 1)
    return r


def first_sanitizer(r: dict) -> str:
    s = r.get("sanitizer")
    if not s:
        return r.get("verdict", "")
    if not s.get("findings"):
        return "clean" if r.get("verdict") != "skipped" else "skipped"
    f = s["findings"][0]
    where = f"{Path(f['file']).name}:{f['line']}" if f.get("file") else "?"
    return f"{f['kind']} @ {where}"


def do_case(a: argparse.Namespace) -> int:
    global DATASETS
    DATASETS = (a.datasets or a.tree / "datasets").resolve()
    a.tree = a.tree.resolve()
    doc = tomllib.loads(a.expect.read_text())
    name = a.expect.parent.name
    stage = next(s for s in spec.load_all(ROOT) if s.id == doc["stage"])
    cases, derived = cases_of(doc, stage)
    runner = a.tree / "runners" / f"run-kit-{name}-{stage.id}-gpu"
    build_log = a.build_log.read_text(errors="replace") if a.build_log and a.build_log.exists() else ""
    objects = artifacts.student_objects(a.tree, f"kit-{name}", stage.id)
    found = refusal.scan(objects)
    scan_txt = "; ".join(sorted({f.symbol for f in found}))
    # What the grade path refuses before running anything (its own main, includes, forbidden calls).
    refused = refusal.refusal(a.tree, stage, objects)
    rows = []
    for i, c in enumerate(cases or [{}]):
        want = c.get("verdict", "")
        allowed = ["skipped"] if c.get("skip") else want if isinstance(want, list) else [want]
        check = c.get("check", "correct")
        ds = c.get("dataset") or (stage.performance.dataset if check == "perf" else stage.sanitizer.datasets[0])
        row = {"submission": name, "stage": stage.id, "dataset": ds, "check": check, "expected": "/".join(allowed),
               "expected_hint": c.get("hint_code", ""), "forbidden": scan_txt, "sanitizer": {}}
        if c.get("skip"):
            got, message = "skipped", c["skip"]
        elif refused and verdict_of(refused) != "forbidden":
            got, message = verdict_of(refused), refused.why
        elif refused and (want == "forbidden" or a.build_rc != 0):
            got, message = "forbidden", refused.why
        elif a.build_rc != 0:
            got, message = "compile", compile_excerpt(build_log, strip=str(a.expect.parent.resolve()),
                                                            own=(a.tree / "kit-mutants" / name,))
        elif found and want == "forbidden":
            got, message = "forbidden", scan_txt
        else:
            r = run_runner(runner, stage, a.tree, ds, check, a.out, f"{name}.{ds}.{check}", int(c.get("timeout", 120)),
                           seed=c.get("seed"))
            got, message = r.get("verdict", "?"), r.get("message", "")
            row["hint"] = r.get("hint_code", "")
            row["seconds"] = r.get("_seconds")
            if check == "perf":
                row["credit"] = credit_band(r, stage)
            if found and got == "pass":
                got = "forbidden"     # what the grader does: the scan refuses what the runner passed
        row.update(got=got, message=message[:300])
        ok = got in allowed and (not c.get("hint_code") or row.get("hint") == c["hint_code"])
        ok = ok and all(s in scan_txt for s in c.get("forbidden", []))
        ok = ok and all(s in message for s in c.get("message_contains", []))
        ok = ok and (not c.get("credit") or row.get("credit", "").startswith(c["credit"]))
        tools = TOOLS if derived or any(t in c for t in TOOLS) else ()
        for tool in tools if a.build_rc == 0 and not c.get("skip") else ():
            # What compute-sanitizer says on the case's dataset, or on the stage's [sanitizer]
            # datasets (asserted where the case names the tool).
            where = [ds] if derived else sanitizer_datasets(stage, tool, c)
            reports = [first_sanitizer(run_runner(runner, stage, a.tree, w, "correct", a.out, f"{name}.{w}.{tool}",
                                                  600, tool)) for w in where]
            row["sanitizer"][tool] = combined(reports)  # not `found`: the scan's, read by the next case
            if len(where) > 1 or where != [ds]:
                row["sanitizer"][tool] += f" ({', '.join(where)})"
            if tool in c:
                ok = ok and row["sanitizer"][tool].startswith(c[tool])
        row["ok"] = bool(ok)
        rows.append(row)
    (a.out / "rows").mkdir(parents=True, exist_ok=True)
    (a.out / "rows" / f"{name}.json").write_text(json.dumps(rows, indent=1))
    for r in rows:
        print(json.dumps(r))
    return 0 if all(r["ok"] for r in rows) else 1


def do_table(out: Path) -> int:
    rows = []
    for f in sorted((out / "rows").glob("*.json")):
        rows += json.loads(f.read_text())
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip().splitlines()[:1]
    except OSError:
        gpu = []
    san = sanitize.find_sanitizer()
    ver = subprocess.run([san, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1:] if san else []
    lines = ["# Known-bad submissions on the GPU", "",
             f"GPU: {gpu[0] if gpu else '?'}; {ver[0] if ver else 'no compute-sanitizer'}", "",
             "| submission | dataset/check | expected | GPU verdict | hint / finding | memcheck | synccheck | racecheck | initcheck | ok |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        hint = r.get("hint") or (r["forbidden"] if r["got"] == "forbidden" else "") or r.get("message", "")[:60]
        s = r.get("sanitizer", {})
        exp = r["expected"] + (f" ({r['expected_hint']})" if r.get("expected_hint") else "")
        got = r["got"] + (f", credit {r['credit']}" if r.get("credit") else "")
        lines.append(f"| {r['submission']} | {r['dataset']}/{r['check']} | {exp} | {got} | "
                     f"{hint.replace('|', '/').replace(chr(10), ' ')[:80]} | {s.get('memcheck', '')} | "
                     f"{s.get('synccheck', '')} | {s.get('racecheck', '')} | {s.get('initcheck', '')} | "
                     f"{'yes' if r['ok'] else '**NO**'} |")
    bad = [r for r in rows if not r["ok"]]
    lines += ["", f"{len(rows) - len(bad)} of {len(rows)} as expected."]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if not bad else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gpu_suite.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("case")
    c.add_argument("--expect", required=True, type=Path)
    c.add_argument("--tree", required=True, type=Path)
    c.add_argument("--out", required=True, type=Path)
    c.add_argument("--datasets", type=Path, help="datasets folder (default: TREE/datasets)")
    c.add_argument("--build-log", type=Path)
    c.add_argument("--build-rc", type=int, default=0)
    t = sub.add_parser("table")
    t.add_argument("out", type=Path)
    a = ap.parse_args(argv)
    return do_case(a) if a.cmd == "case" else do_table(a.out)


if __name__ == "__main__":
    sys.exit(main())
