"""install-deps.sh as root on a machine whose apt cannot reach its mirror (a GPU notebook or server
whose only way out is the package index; an air-gapped machine): it goes on when only cmake, ninja
or CLI11 were missing, and names what it needs from apt otherwise. apt, dpkg and the machine's
identity are fakes on PATH; the script runs from a copy, so nothing lands in this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

FAKES = {
    # Everything installed but the packages in $MISSING.
    "dpkg-query": 'for p in $MISSING; do [ "$p" = "${@: -1}" ] && exit 1; done; echo "install ok installed"',
    "apt-get": 'echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Could not resolve host" >&2; exit 100',
    "apt-cache": 'echo "  Candidate: 1.0"',
    "id": 'echo 0',
    # No cmake of the system's: the kit must take PyPI's.
    "cmake": 'exit 127',
}


def _run(tmp_path: Path, missing: str) -> subprocess.CompletedProcess:
    kit = tmp_path / "kit"
    (kit / "grader" / "setup").mkdir(parents=True)
    for f in ("install-deps.sh", "debs.sh"):
        shutil.copy2(ROOT / "grader" / "setup" / f, kit / "grader" / "setup" / f)
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for name, body in FAKES.items():
        (fakes / name).write_text(f"#!/bin/bash\n{body}\n")
        (fakes / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{fakes}:/usr/bin:/bin", "MISSING": missing,
           # The package index, unreachable too: pip fails at once, after the apt decisions under test.
           "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path / "no-wheels")}
    return subprocess.run(["sh", str(kit / "grader" / "setup" / "install-deps.sh")], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not shutil.which("dpkg-deb"), reason="a Debian-like machine")
def test_unreachable_mirror_is_no_obstacle_when_pypi_can_fill_in(tmp_path):
    r = _run(tmp_path, "ninja-build libcli11-dev")
    out = r.stdout + r.stderr
    assert "apt-get update failed (E: Failed to fetch" in out and "nothing else needs apt" in out, out
    assert "the kit needs" not in out, out
    # It went on to the Python step (which fails here only because the index is unreachable too).
    assert "pip could not install" in out, out


@pytest.mark.skipif(not shutil.which("dpkg-deb"), reason="a Debian-like machine")
def test_unreachable_mirror_names_the_packages_only_apt_has(tmp_path):
    r = _run(tmp_path, "ninja-build libopenblas-dev libboost-context-dev")
    assert r.returncode != 0
    assert "the kit needs libopenblas-dev libboost-context-dev from it" in r.stderr, r.stdout + r.stderr
    assert "creating" not in r.stdout   # stopped before the venv
