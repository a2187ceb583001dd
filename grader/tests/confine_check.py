#!/usr/bin/env python3
"""tilelab-confine (grader/runner/confine_main.cpp) does what a submission's build relies on:

    confine_check.py --confine runners/tilelab-confine --tree BUILD_TREE

- a program run under it reads what --read names and nothing else of the tree (CMakeCache.txt, the
  grading seed, is refused with "Permission denied");
- it writes beneath --write and --tmpdir folders (made when missing) and nowhere else, and TMPDIR is
  the --tmpdir folder;
- its own options end at `--`: the program's (-c, -o) are passed on untouched;
- a program that cannot be found is exit 127, as env(1) says it.
Where this kernel has no Landlock the check is skipped (77) unless --require-landlock: CI's and the
grading machines' kernels have it, and a sealed build refuses to run without it (--require).
Registered as kit.confine (grader/cmake/TilelabConfine.cmake). Exits 0, or 1 naming what differed."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SYSTEM = ["--read-exec", "/usr", "--read-exec", "/lib", "--read-exec", "/lib64", "--read-exec", "/bin",
          "--read", "/etc", "--device", "/dev/null"]


def run(confine: Path, policy: list[str], cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(confine), *SYSTEM, *policy, "--", *cmd], capture_output=True, text=True, timeout=60)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--confine", required=True, type=Path)
    ap.add_argument("--tree", required=True, type=Path)
    ap.add_argument("--require-landlock", action="store_true")
    a = ap.parse_args(argv)
    cache = a.tree / "CMakeCache.txt"
    probe = run(a.confine, ["--require"], ["true"])
    if probe.returncode != 0:
        print(f"no Landlock here: {probe.stderr.strip()}")
        return 1 if a.require_landlock else 77
    bad = []
    with tempfile.TemporaryDirectory(dir=a.tree) as tmp:
        own = Path(tmp) / "own.txt"
        own.write_text("mine\n")
        out = Path(tmp) / "out"
        r = run(a.confine, ["--require", "--read", str(own)], ["cat", str(own)])
        if r.returncode != 0 or r.stdout != "mine\n":
            bad.append(f"a file named by --read could not be read: {r.stderr.strip()}")
        r = run(a.confine, ["--require", "--read", str(own)], ["cat", str(cache)])
        if r.returncode == 0 or "Permission denied" not in r.stderr or "TILELAB" in r.stdout:
            bad.append(f"CMakeCache.txt was readable under a policy that does not name it (rc {r.returncode})")
        r = run(a.confine, ["--require", "--write", str(out), "--tmpdir", str(out / "tmp")],
                ["sh", "-c", f'echo "$TMPDIR" > {out}/made && echo x > {tmp}/outside'])
        if not (out / "made").is_file() or (out / "made").read_text().strip() != str(out / "tmp"):
            bad.append(f"--write/--tmpdir: the folder was not writable or TMPDIR not set ({r.stderr.strip()})")
        if (Path(tmp) / "outside").exists() or r.returncode == 0:
            bad.append("a file was written outside the --write folders")
        r = run(a.confine, ["--require", "--read", str(own), "--write", str(out)],
                ["sh", "-c", 'for a in "$@"; do printf "%s|" "$a"; done', "sh", "-c", "-o", "x"])
        if r.stdout != "-c|-o|x|":
            bad.append(f"the program's own options were not passed on as they were: {r.stdout!r} {r.stderr.strip()}")
        r = run(a.confine, [], ["/nonexistent/tool"])
        if r.returncode != 127:
            bad.append(f"a missing program gave exit {r.returncode}, not 127")
    for b in bad:
        print(b)
    print("tilelab-confine:", "NOT as expected" if bad else "as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
