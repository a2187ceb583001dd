#!/usr/bin/env python3
"""Asserts the diagnosis of one known-bad submission under one emulator build.

    check.py --expect <bug>/expect.toml --backend emu|emu-asan|emu-race|emu-count --runner RUNNER
             --spec BUILD/generated/stages/<stage>.json --datasets DATASETS_DIR/<stage> --json RESULT
             [--backend-facts IMPL=FACTS.json ...]

expect.toml has, per backend, a table ([emu]) or several ([[emu]]), each a case. The cases of
[emu-count] run the perf check on the count build (the perf-model check, whose counts the judge reads:
the reference worker runners/ref-<stage>-emu-count beside the runner, and nvcc's back end on the
submission and the references where the build has it, --backend-facts, as a grade's check gets it);
the others the correct check.

    dataset   = "w17"                  # a dataset of the stage (required, unless shape is given)
    shape     = "model"                # instead: the stage's [performance.model] shape, made in memory
                                       # (the product the emulator's performance check verifies), drawn
                                       # near it as that check draws it (--draw-shape)
    verdict   = "error"                # the runner's verdict and exit code (required)
    hint_code = "barrier-skipped"      # optional: the result's hint_code
    finding   = "race"                 # optional: a finding of this kind must be reported ...
    warning   = "duplicate-store"      # optional: a warning of this kind must be reported (it fails nothing)
    line      = 31                     # ... optionally at this line of the submission (its matmul.cu)
    message_contains = "..."           # optional: text the result's message must contain
    hint_contains = ["..."]            # optional: texts the result's hint must contain
    hint_lacks = ["..."]               # optional: texts it must not contain (a hint pointing the wrong way)
    no_findings = true                 # optional: the emulator must report nothing (warnings aside)
    diagnosis = ["barrier", "40"]      # optional: words the first diagnosis shown must contain
    ratio = [0.9, 1.2]                 # optional ([emu-count]): the modelled ratio to the reference lies in it
    ratio_without_backend = [0.7, 0.8] # optional: instead, where nvcc's back end was not read (no wheels:
                                       # graded_by "traffic"), the model without registers and spills
    seed = 20261122                    # optional (with dataset): the grading seed of a sealed grade, which the
                                       # judge is given as CTest gives it (--seed): the public dataset's check
                                       # also runs on values drawn for the grade from it

Registered by grader/cmake/TilelabEmu.cmake as kit.emu.<bug>.<backend>. Exits 0 when every case
holds, 1 (saying which expectation failed and what the runner said) otherwise.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # grader/, for tilelab.specs.contract
from tilelab.run import judge  # noqa: E402
from tilelab.score import diagnoses  # noqa: E402
from tilelab.specs.contract import ExitCode  # noqa: E402
from tilelab.run.result import Result  # noqa: E402
from tilelab.specs.compat import tomllib  # noqa: E402


def check_case(case: dict, a: argparse.Namespace) -> list[str]:
    """Runs one case; returns what did not match (empty when it held)."""
    if case.get("shape") not in (None, "model"):
        return [f"expect.toml: a [{a.backend}] case's shape must be \"model\", got {case['shape']!r}"]
    for key in ("dataset", "verdict"):
        if key not in case and not (key == "dataset" and "shape" in case):
            return [f"expect.toml: a [{a.backend}] case has no '{key}'"]
    want = ExitCode[case["verdict"].upper()]
    a.json.unlink(missing_ok=True)
    if "shape" in case:   # the shape the perf-model check counts, read from the resolved spec
        shape = json.loads(a.spec.read_text())["performance"]["model"]["shape"]
        case = {**case, "dataset": "x".join(map(str, shape))}
        data = ["--shape", *map(str, shape), "--draw-shape", "--seed", "1"]   # as the perf-model check
    else:
        data = ["--dataset", str(a.datasets / case["dataset"])]
        if "seed" in case:
            data += ["--seed", str(case["seed"])]
    check = "perf" if a.backend == "emu-count" else "correct"
    cmd = [*judge.command(a.runner), "--spec", str(a.spec), *data,
           "--check", check, "--json", str(a.json), "--timeout", "60"]
    for facts in a.backend_facts if a.backend == "emu-count" else []:
        cmd += ["--backend-facts", facts]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    try:
        r = json.loads(a.json.read_text())
    except (OSError, ValueError) as e:
        return [f"{case['dataset']}: no readable result ({e}); exit {proc.returncode}\n{proc.stderr[-3000:]}"]
    bad = []
    if proc.returncode != want:
        bad.append(f"exit code {proc.returncode}, expected {int(want)} ({want.name.lower()})")
    if r.get("verdict") != want.name.lower():
        bad.append(f"verdict '{r.get('verdict')}', expected '{want.name.lower()}'")
    if "hint_code" in case and r.get("hint_code") != case["hint_code"]:
        bad.append(f"hint_code '{r.get('hint_code')}', expected '{case['hint_code']}'")
    if "message_contains" in case and case["message_contains"] not in r.get("message", ""):
        bad.append(f"message '{r.get('message')}' lacks '{case['message_contains']}'")
    for text in case.get("hint_contains", []):
        if text not in r.get("hint", ""):
            bad.append(f"hint '{r.get('hint')}' lacks '{text}'")
    for text in case.get("hint_lacks", []):
        if text in r.get("hint", ""):
            bad.append(f"hint '{r.get('hint')}' contains '{text}', which points the wrong way here")
    findings = r.get("emulator", {}).get("findings", [])
    if case.get("no_findings") and findings:
        bad.append(f"expected no findings, got {[f['kind'] for f in findings]}")
    if "finding" in case:
        kinds = [f for f in findings if f["kind"] == case["finding"]]
        if not kinds:
            bad.append(f"no '{case['finding']}' finding; got {[f['kind'] for f in findings]}")
        elif "line" in case and not any(f["line"] == case["line"] for f in kinds):
            bad.append(f"'{case['finding']}' reported at lines {[f['line'] for f in kinds]}, expected {case['line']}")
        elif "line" in case and not any(Path(f.get("file", "")).name == "matmul.cu" for f in kinds):
            bad.append(f"'{case['finding']}' names {[f.get('file') for f in kinds]}, not the student's matmul.cu")
    if "warning" in case:
        warnings = [w for w in r.get("emulator", {}).get("warnings", []) if w.get("kind") == case["warning"]]
        if not warnings:
            bad.append(f"no '{case['warning']}' warning; got "
                       f"{[w.get('kind') for w in r.get('emulator', {}).get('warnings', [])]}")
        elif "line" in case and "finding" not in case and not any(w.get("line") == case["line"] for w in warnings):
            bad.append(f"'{case['warning']}' warned at lines {[w.get('line') for w in warnings]}, expected {case['line']}")
    if "ratio" in case:
        got = (r.get("timing") or {}).get("ratio_to_reference")
        mine = ((r.get("timing") or {}).get("impls") or {}).get(r.get("impl"), {}).get("model") or {}
        unread = mine.get("graded_by") == "traffic"   # no wheels: the model without nvcc's registers and spills
        lo, hi = case["ratio_without_backend"] if unread and "ratio_without_backend" in case else case["ratio"]
        if not isinstance(got, (int, float)) or not lo <= got <= hi:
            bad.append(f"modelled ratio to the reference {got}, expected within [{lo}, {hi}]")
    if "diagnosis" in case:
        ds = diagnoses.of_result(Result.parse(r))
        if lost := diagnoses.missing_words(ds, case["diagnosis"]):
            bad.append(f"the first diagnosis lacks {lost}: {ds[0].text() if ds else '(none)'}")
    if bad:
        bad = [f"{case['dataset']}: {b}" for b in bad] + [f"  hint: {r.get('hint', '')}"]
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="check.py", description=__doc__.splitlines()[0])
    ap.add_argument("--expect", required=True, type=Path)
    ap.add_argument("--backend", required=True, choices=["emu", "emu-asan", "emu-race", "emu-count"])
    ap.add_argument("--runner", required=True, type=Path)
    ap.add_argument("--spec", required=True, type=Path)
    ap.add_argument("--datasets", required=True, type=Path)
    ap.add_argument("--json", required=True, type=Path)
    ap.add_argument("--backend-facts", action="append", default=[], metavar="IMPL=FACTS.json",
                    help="emu-count: nvcc's back end on an implementation, as the perf-model check gets it")
    a = ap.parse_args(argv)
    cases = tomllib.loads(a.expect.read_text()).get(a.backend)
    if cases is None:
        print(f"{a.expect}: no [{a.backend}] expectation")
        return 1
    cases = cases if isinstance(cases, list) else [cases]
    failures = []
    for case in cases:
        failures += check_case(case, a)
    if failures:
        print(f"{a.expect.parent.name} under {a.backend}: NOT as expected")
        print("\n".join(failures))
        return 1
    print(f"{a.expect.parent.name} under {a.backend}: as expected ({len(cases)} case{'s' * (len(cases) > 1)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
