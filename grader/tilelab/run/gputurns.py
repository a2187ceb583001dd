"""How a batch's grades share one GPU: checks that only compute (correctness, the sanitizers) run
side by side, as many as the grades running; a timed check has the GPU alone, so no other
student's kernel runs while it is timed. A readers-writer lock between the batch's threads (one
process: a Slurm task grades its submissions one after another), writers first so that a timed
check waiting is not passed by an endless stream of correctness checks."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator


class GpuTurns:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._sharing = 0        # checks running side by side
        self._alone = False      # a timed check running
        self._waiting_alone = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._alone or self._waiting_alone:
                self._cond.wait()
            self._sharing += 1
        try:
            yield
        finally:
            with self._cond:
                self._sharing -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        with self._cond:
            self._waiting_alone += 1
            while self._alone or self._sharing:
                self._cond.wait()
            self._waiting_alone -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._cond:
                self._alone = False
                self._cond.notify_all()
