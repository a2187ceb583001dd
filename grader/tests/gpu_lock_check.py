#!/usr/bin/env python3
"""The judge takes the machine's GPU lock (grader/runner/gpu_lock.hpp) as docs/integrity.md says, on
any machine, GPU or not:

    gpu_lock_check.py --tree BUILD_TREE

The emulator's worker of 01-basic, copied under a GPU worker's name (run-solution-01-basic-gpu), is
a worker the judge must share the GPU for: it runs the check and passes, so the lock is all that
differs. Checked, each with a result the judge wrote:

- while another process holds the GPU alone (as a timing loop does, gate and lock), the judge waits
  before it starts the worker, then passes; its result's seconds.gpu_share says how long it waited;
- a holder that is killed lets go: the judge waiting behind it goes on;
- the same worker under its own emulator name takes no lock: it passes while the GPU is held.

Registered as kit.gpu-lock (grader/tests/CMakeLists.txt). Exits 0, or 1 naming what differed."""

from __future__ import annotations

import argparse
import fcntl
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # grader/, for `import tilelab`
from tilelab.run import judge  # noqa: E402
from tilelab.specs.contract import GPU_LOCK  # noqa: E402

HOLD = 1.5   # seconds the GPU is held alone before it is let go


def hold_alone():
    """The GPU alone, as a timing loop has it: the gate, then the lock, both exclusive."""
    files = [open(GPU_LOCK + ".gate", "a"), open(GPU_LOCK, "a")]
    for f in files:
        fcntl.flock(f, fcntl.LOCK_EX)
    return files


def start(tree: Path, worker: Path, out: Path) -> subprocess.Popen:
    cmd = judge.command(worker, tree / "runners", spec=tree / "generated" / "stages" / "01-basic.json",
                        dataset=tree / "datasets" / "01-basic" / "w1", check="correct", out=out, timeout=60)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def finished(p: subprocess.Popen, out: Path, problems: list[str], what: str) -> dict:
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        problems.append(f"{what}: the judge did not finish")
        return {}
    r = json.loads(out.read_text()) if out.is_file() else {}
    if r.get("verdict") != "pass":
        problems.append(f"{what}: verdict {r.get('verdict')!r}, expected 'pass' ({r.get('message', '')[:200]})")
    return r


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", type=Path, required=True)
    tree = ap.parse_args().tree.resolve()
    emu = tree / "runners" / "run-solution-01-basic-emu"
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        gpu = Path(tmp) / "run-solution-01-basic-gpu"
        shutil.copy2(emu, gpu)

        held = hold_alone()
        p = start(tree, gpu, Path(tmp) / "waits.json")
        time.sleep(HOLD)
        if p.poll() is not None:
            problems.append("a GPU check's judge ran while the GPU was held alone")
        q = start(tree, emu, Path(tmp) / "emu.json")   # the emulator's: no lock to wait for
        r = finished(q, Path(tmp) / "emu.json", problems, "the emulator's worker, the GPU held")
        if "gpu_share" in r.get("seconds", {}):
            problems.append("the emulator's judge took the GPU lock")
        for f in held:
            f.close()
        r = finished(p, Path(tmp) / "waits.json", problems, "after the GPU was let go")
        if r and r.get("seconds", {}).get("gpu_share", 0) < HOLD * 0.8:
            problems.append(f"seconds.gpu_share {r.get('seconds')} does not show the wait of {HOLD} s")

        holder = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]); "
                                   "import gpu_lock_check as c; h = c.hold_alone(); print('held', flush=True); "
                                   "time.sleep(600)", str(Path(__file__).parent)],
                                  stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
        p = start(tree, gpu, Path(tmp) / "killed.json")
        time.sleep(0.5)
        if p.poll() is not None:
            problems.append("a GPU check's judge ran while another process held the GPU alone")
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        finished(p, Path(tmp) / "killed.json", problems, "after the holder was killed")
    for line in problems:
        print("gpu-lock:", line)
    print("gpu-lock: the judge shares the GPU, waits for a timing loop, and a killed holder lets go"
          if not problems else f"gpu-lock: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
