"""Run a runner command and assert its verdict: how the kit's own tests say that the unmodified
starter must fail (and fail the right way -- a wrong result, not a crash or a missing file).

    python3 -m tilelab.run.expect --exit wrong --json RESULT -- RUNNER ARGS...

Exits 0 when the runner exited with the expected code and wrote a result whose verdict agrees;
passes the skip code through so CTest still reports a skip; exits 1 otherwise, saying why.

`--exit any` is the student repository's test suite (TILELAB_STARTER_PROGRESS): whatever the
student's code earns -- pass, wrong, error, timeout -- is the assignment's state and is printed,
not a failure of the suite; the test fails only when no verdict was given (no result file, an
unreadable one, or one that the exit status contradicts).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from ..specs.contract import ExitCode, verdict_name
from .ctest_results import load


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tilelab.run.expect")
    ap.add_argument("--exit", required=True, choices=[c.name.lower() for c in ExitCode] + ["any"])
    ap.add_argument("--json", required=True, type=Path)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    a.json.unlink(missing_ok=True)
    rc = subprocess.run(cmd).returncode
    if rc == ExitCode.SKIPPED:
        return int(ExitCode.SKIPPED)
    if a.exit == "any":
        return _progress(rc, a.json)
    want = ExitCode[a.exit.upper()]
    if rc != want:
        print(f"expected the runner to exit with {want.name.lower()} ({int(want)}), "
              f"got {verdict_name(rc)} ({rc})")
        return 1
    if (r := load(a.json)) is None or "verdict" not in r.raw:
        print(f"the runner exited {rc} but left no readable result at {a.json}")
        return 1
    verdict = r.verdict
    if verdict != want.name.lower():
        print(f"exit code {rc} but the result says verdict '{verdict}'")
        return 1
    print(f"as expected: {verdict}")
    return 0


def _progress(rc: int, json_path: Path) -> int:
    """--exit any: 0 when the runner gave a verdict (any), 1 when it gave none."""
    name = verdict_name(rc)
    if (result := load(json_path)) is None or "verdict" not in result.raw:
        print(f"no verdict: the runner ended with {name} ({rc}) and left no readable result at {json_path}")
        return 1
    verdict = result.verdict
    if verdict != name:
        print(f"no verdict: the runner exited {rc} ({name}) but its result says '{verdict}'")
        return 1
    print(f"verdict: {verdict}" + (f" -- {result.message.splitlines()[0]}" if result.message else ""))
    if verdict != "pass":
        stage = result.stage or "this stage"
        print(f"(not a failure of the test suite: this is where your {stage} stands; "
              f"./tilelab grade {stage} shows the hints, ctest --preset student fails until it passes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
