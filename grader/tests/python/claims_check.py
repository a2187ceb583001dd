#!/usr/bin/env python3
"""CTest kit.walkthrough.claims: what the walkthroughs say a bug does on a dataset, checked by
grading the bug. A walkthrough section that shows a bug carries, under its prose, a comment the
reader does not see:

    <!-- graded: CASE STAGE | pass: DATASET ... | wrong: DATASET ... | error: DATASET ... -->

CASE is the known-bad submission (grader/tests/submissions/CASE) the section's snippet is, or
`starter` for the stage's starter as given (starter/STAGE/matmul.cu, the test tree's starter
runner); each dataset is graded by the judge on CASE's plain emulator runner, and its verdict must
be the one claimed. A sentence of the prose that says a dataset passes or fails names it in the comment, so
the comment and the prose are written together and the comment is checked on every test run."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))
from tilelab.run import judge  # noqa: E402
from tilelab.specs import spec  # noqa: E402
CLAIM = re.compile(r"<!--\s*graded:\s*(\S+)\s+(\S+)\s*((?:\|\s*\w[\w-]*:[^|>]*)+)-->")


def claims(text: str):
    for m in CLAIM.finditer(text):
        case, stage, rest = m.group(1), m.group(2), m.group(3)
        for part in rest.split("|"):
            if ":" in part:
                verdict, names = part.split(":", 1)
                for ds in names.split():
                    yield case, stage, verdict.strip(), ds


def runner_name(case: str, stage: str) -> str:
    """The plain emulator runner of a claim's CASE: a known-bad submission's, or the starter's."""
    return f"run-starter-{stage}-emu" if case == "starter" else f"run-kit-{case}-{stage}-emu"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    if not (tree / "runners" / judge.JUDGE).exists() or not any((tree / "runners").glob("run-kit-*-emu")):
        print("SKIP: no emulator runners of the known-bad suite in this tree")
        return 77
    failed = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for md in sorted((ROOT / "docs" / "walkthrough").glob("*.md")):
            for case, stage, want, ds in claims(md.read_text()):
                runner = tree / "runners" / runner_name(case, stage)
                data = tree / "datasets" / stage / ds
                out = Path(tmp) / f"{case}-{ds}.json"
                if not runner.exists() or not data.is_dir():
                    print(f"FAIL {md.name}: {case} {stage} {ds}: no runner {runner.name} or no dataset {ds}")
                    failed += 1
                    continue
                subprocess.run([*judge.command(runner), "--spec", str(spec.resolved_path(tree, stage)),
                                "--dataset", str(data), "--check", "correct", "--json", str(out), "--timeout", "60"],
                               capture_output=True, timeout=120, cwd=ROOT / "grader")
                try:
                    got = json.loads(out.read_text()).get("verdict")
                except (OSError, ValueError):
                    got = None
                checked += 1
                ok = got == want
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {md.name}: {case} on {ds}: the walkthrough says {want}, "
                      f"grading gives {got}")
    if not checked:
        print("FAIL: no claim found in docs/walkthrough")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
