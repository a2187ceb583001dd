#!/usr/bin/env python3
"""CTest kit.release: the student repository passes its own README's test command.

    release_check.py --work DIR

Releases the kit into DIR/student (`./tilelab release`), then runs there, as a student would,
`./tilelab test` (`cmake --workflow --preset default` with the kit's cmake), and asserts that the
workflow exits 0 and ran the starter's checks (their results are in the build tree, with the
starter's verdict, `wrong`), so green does not mean "nothing ran".
The README's first command, `./tilelab setup`, is proved in the student repository by
kit.portability.trixie-user: released from the same tree, set up from nothing on Debian 13 by a
user without root, where it must exit 0, grade the starter (never speak of reference solutions)
and say that the starter's failures are the assignment -- what this test asserted of it when it ran
setup here too, on the host, with the kit's packages and .venv already in place.
The release's .venv (and .deps, where there is one) is a link to the kit's, as after an earlier
`./tilelab setup` (CI has no reason to download the same packages twice). Prints how long each step
took."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]


def step(what: str, cmd: list[str], cwd: Path) -> tuple[int, str, float]:
    print(f"== {what}: {' '.join(cmd)} (in {cwd})", flush=True)
    t = time.monotonic()
    # One build job per core, as .ci/run sets it: the presets' "jobs": 0 alone is an unbounded make -j.
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL")
           or str(os.cpu_count() or 1)}
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    took = time.monotonic() - t
    print(p.stdout if p.returncode else p.stdout[-6000:])   # a failure's whole output: its cause is early
    print(f"== {what}: exit {p.returncode} after {took:.0f} s", flush=True)
    return p.returncode, p.stdout, took


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True, type=Path)
    a = ap.parse_args()
    student = a.work / "student"
    if a.work.exists():
        shutil.rmtree(a.work)
    a.work.mkdir(parents=True)
    failures = []

    rc, out, t_rel = step("release", [str(KIT / "tilelab"), "release", str(student)], KIT)
    if rc != 0:
        print("FAIL: release did not succeed")
        return 1
    # The kit's set-up in the student's checkout: its .venv, and its .deps where setup put the -dev
    # packages there (a user without root; the offline GPU machine's Boost.Context): without them
    # the student's tree would have no emulator.
    for made in (".venv", ".deps"):
        if (KIT / made).exists():
            (student / made).symlink_to((KIT / made).resolve())

    rc, out, t_wf = step("./tilelab test", ["./tilelab", "test"], student)
    if rc != 0:
        failures.append(f"./tilelab test (cmake --workflow --preset default) exited {rc}")
    results = sorted((student / "build" / "default" / "results").glob("starter.*.json"))
    verdicts = {}
    for r in results:
        try:
            verdicts[r.name] = json.loads(r.read_text()).get("verdict")
        except ValueError:
            verdicts[r.name] = "unreadable"
    if not verdicts:
        failures.append("the workflow ran none of the starter's checks (no starter.*.json results)")
    unexpected = {n: v for n, v in verdicts.items() if v not in ("wrong", "skipped")}
    if unexpected:
        failures.append(f"the unmodified starter got other verdicts than wrong: {dict(list(unexpected.items())[:5])}")

    print(f"timings: release {t_rel:.0f} s, workflow {t_wf:.0f} s; "
          f"{len(verdicts)} starter checks ran in the workflow")
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
