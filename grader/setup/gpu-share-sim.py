#!/usr/bin/env python3
"""A class on one GPU machine, simulated with the judge's real lock (docs/performance.md, "Batch
throughput"): how a batch's timing loops wait for the GPU when each judge shares it for its check's
whole life (issue 45's first lock) or only around each call to its worker (gpu_turns.hpp).

    python3 grader/setup/gpu-share-sim.py [--lanes 16] [--students 32] [--scale 0.1]

No GPU and no grader: `lanes` threads grade `students` x 3 stages as `tilelab batch -j lanes` does
(a tree's configure, then per stage a build, the probe, the other checks one after another, the
timed check last), each check a list of steps that sleep -- on the CPU, or in a turn on the GPU --
with the GPU taken through the same two flock(2)s and gate as grader/runner/gpu_lock.cpp (each
judge its own open files, as each judge is its own process). The steps' seconds are the uncontended
figures of the H200 batch of 2026-11-29 (docs/performance.md: a correctness check 0.7-0.8 s, a
compute-sanitizer check 1.0-1.6 s, a timed check 6.3 s of which the loop 2.64 s, a build 2.9 s, a
configure 1.5 s), split over the judge's steps by what each does (its worker's start and greeting,
the calls, the references and audits on the CPU); `scale` shrinks every sleep. It prints, per policy,
the wall time, the machine's seconds per submission-stage, the class of 400 x 6 projected, and the
loops' seconds held alone beside their waits. What it cannot show: the GPU's own contention between
sharers, and CPU contention (16 lanes are taken as 16 free cores).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field

# A check: its steps, ("cpu", s) outside any turn, ("gpu", s) a call to its worker (or its start or
# end), ("alone", s) the timing loop. Seconds uncontended, before scaling.
CORRECT = [("cpu", 0.25), ("gpu", 0.25), ("cpu", 0.05), ("gpu", 0.02), ("gpu", 0.10), ("cpu", 0.02),
           ("gpu", 0.01), ("gpu", 0.05)]
SANITIZER = [("cpu", 0.30), ("gpu", 0.60), ("cpu", 0.05), ("gpu", 0.30), ("gpu", 0.02), ("gpu", 0.10)]
TIMED = [("cpu", 0.30), ("gpu", 0.30), ("cpu", 1.50), ("gpu", 0.20), ("cpu", 0.10), ("gpu", 0.05),
         ("gpu", 0.40), ("gpu", 0.20), ("alone", 2.64), ("cpu", 1.00), ("gpu", 0.10)]
STAGE = [CORRECT] + [CORRECT] * 12 + [SANITIZER] * 4 + [TIMED]   # the probe, the rest, the timed check
CONFIGURE, BUILD, STAGES = 1.5, 2.9, 3


class Lock:
    """grader/runner/gpu_lock.cpp in Python: the gate, then the GPU's file, both flock(2)."""

    def __init__(self, path: str):
        self.gpu = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
        self.gate = os.open(path + ".gate", os.O_RDONLY | os.O_CREAT, 0o644)
        self.gate_held = False

    def share(self):
        fcntl.flock(self.gate, fcntl.LOCK_EX)
        fcntl.flock(self.gpu, fcntl.LOCK_SH)
        fcntl.flock(self.gate, fcntl.LOCK_UN)

    def alone(self):
        fcntl.flock(self.gpu, fcntl.LOCK_UN)
        fcntl.flock(self.gate, fcntl.LOCK_EX)
        self.gate_held = True
        fcntl.flock(self.gpu, fcntl.LOCK_EX)

    def share_again(self):
        """The first lock's way back from alone to sharing, under the gate."""
        fcntl.flock(self.gpu, fcntl.LOCK_SH)
        fcntl.flock(self.gate, fcntl.LOCK_UN)
        self.gate_held = False

    def let_go(self):
        fcntl.flock(self.gpu, fcntl.LOCK_UN)
        if self.gate_held:
            fcntl.flock(self.gate, fcntl.LOCK_UN)
        self.gate_held = False

    def close(self):
        os.close(self.gpu)
        os.close(self.gate)


@dataclass
class Tally:
    held: float = 0.0
    loop_wait: float = 0.0
    share_wait: float = 0.0
    loops: int = 0
    mutex: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **kw):
        with self.mutex:
            for k, v in kw.items():
                setattr(self, k, getattr(self, k) + v)


def judge(steps, path: str, per_call: bool, scale: float, tally: Tally):
    """One check's judge: per check, shared from its worker's start (the first GPU step) to its end;
    per call, shared around each GPU step only; alone around the loop either way."""
    lock = Lock(path)
    sharing = False
    try:
        for kind, s in steps:
            if kind == "alone":
                t0 = time.monotonic()
                lock.alone()
                t1 = time.monotonic()
                time.sleep(s * scale)
                tally.add(held=time.monotonic() - t1, loop_wait=t1 - t0, loops=1)
                if per_call:
                    lock.let_go()
                    sharing = False
                else:
                    lock.share_again()
                continue
            if kind == "gpu" and not sharing:
                t0 = time.monotonic()
                lock.share()
                tally.add(share_wait=time.monotonic() - t0)
                sharing = True
            time.sleep(s * scale)
            if per_call and sharing:
                lock.let_go()
                sharing = False
    finally:
        lock.close()


def batch(lanes: int, students: int, per_call: bool, scale: float, path: str) -> tuple[float, Tally]:
    tally = Tally()
    todo = list(range(students))
    todo_lock = threading.Lock()

    def lane():
        while True:
            with todo_lock:
                if not todo:
                    return
                todo.pop()
            time.sleep(CONFIGURE * scale)
            for _ in range(STAGES):
                time.sleep(BUILD * scale)
                for steps in STAGE:
                    judge(steps, path, per_call, scale, tally)

    t0 = time.monotonic()
    threads = [threading.Thread(target=lane) for _ in range(lanes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - t0, tally


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanes", type=int, default=16)
    ap.add_argument("--students", type=int, default=32)
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--policy", choices=("both", "check", "call"), default="both")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, per_call in (("per check (the first lock)", False), ("per call (gpu_turns.hpp)", True)):
            if a.policy != "both" and per_call != (a.policy == "call"):
                continue
            wall, t = batch(a.lanes, a.students, per_call, a.scale, os.path.join(tmp, f"lock-{per_call}"))
            pairs = a.students * STAGES
            per = wall / a.scale / pairs
            rows.append((name, f"{wall / a.scale:.0f} s", f"{per:.2f} s", f"{per * 2400 / 3600:.2f} h",
                         f"{t.held / a.scale:.0f} s in {t.loops}", f"{t.loop_wait / a.scale:.0f} s",
                         f"{t.share_wait / a.scale:.0f} s"))
    head = ("GPU shared", "wall (unscaled)", "per submission-stage", "400 x 6 projected", "loops held alone",
            "loops waited", "sharers waited")
    print(f"{a.students} students x {STAGES} stages on {a.lanes} lanes, sleeps scaled by {a.scale}")
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
