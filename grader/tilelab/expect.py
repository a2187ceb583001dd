"""Run a runner command and assert its verdict: how the kit's own tests say that the unmodified
starter must fail (and fail the right way -- a wrong result, not a crash or a missing file).

    python3 -m tilelab.expect --exit wrong --json RESULT -- RUNNER ARGS...

Exits 0 when the runner exited with the expected code and wrote a result whose verdict agrees;
passes the skip code through so CTest still reports a skip; exits 1 otherwise, saying why.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from .exit_codes import ExitCode, verdict_name


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tilelab.expect")
    ap.add_argument("--exit", required=True, choices=[c.name.lower() for c in ExitCode])
    ap.add_argument("--json", required=True, type=Path)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    want = ExitCode[a.exit.upper()]
    a.json.unlink(missing_ok=True)
    rc = subprocess.run(cmd).returncode
    if rc == ExitCode.SKIPPED:
        return int(ExitCode.SKIPPED)
    if rc != want:
        print(f"expected the runner to exit with {want.name.lower()} ({int(want)}), "
              f"got {verdict_name(rc)} ({rc})")
        return 1
    try:
        verdict = json.loads(a.json.read_text())["verdict"]
    except (OSError, ValueError, KeyError) as e:
        print(f"the runner exited {rc} but left no readable result at {a.json}: {e}")
        return 1
    if verdict != want.name.lower():
        print(f"exit code {rc} but the result says verdict '{verdict}'")
        return 1
    print(f"as expected: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
