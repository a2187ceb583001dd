"""What became of one stage's build and checks: the grading engine's one typed answer (engine.py
finds it out; score/scoring.py turns it into verdicts and points, and alone decides them). Plain
frozen values: nothing here reads a file or judges a result."""

from __future__ import annotations

from collections.abc import Mapping
import re
from dataclasses import dataclass
from typing import Literal, Union

from . import result as runresult

# The check that decides correctness on each backend (docs/grading.md, "What one check does"); the
# engine runs its smallest dataset first, and a timeout of it is a hang.
CORRECT_CHECK = {"gpu": "correct", "emu": "emu"}


@dataclass(frozen=True)
class NotChecked:
    """Nothing of the stage can be checked here: no checks or no runner of this backend in the
    build, or no <stage>/matmul.cu in the submission. Every check: `missing`."""
    why: str


@dataclass(frozen=True)
class Refused:
    """What was compiled from the student's file calls or defines what the allow-list forbids, or
    includes a file outside the system and CUDA headers (refusal.refusal). Every check: `forbidden`."""
    why: str


# Compiler errors that name a CUDA call removed from the toolkit.
REMOVED_CALL = re.compile(r"\bcudaThread(Synchronize|Exit|SetLimit|GetLimit|SetCacheConfig|GetCacheConfig)\b")


@dataclass(frozen=True)
class DidNotCompile:
    """The build failed or timed out, or left nothing the grader can link or check (the file's own
    main(), no object, no dependency file). Every check: `compile`. The compiler's text is read
    once, here, for what the reports act on (removed_cuda_call)."""
    why: str

    @property
    def removed_cuda_call(self) -> bool:
        """The compiler named a CUDA call removed from the toolkit: its own suggestion (g++: "did you
        mean cudaStreamSynchronize?") points the wrong way, so the report says what replaced it."""
        return REMOVED_CALL.search(self.why) is not None


@dataclass(frozen=True)
class Hung:
    """The kernel hung on a dataset (its plain correctness check timed out, and not as a slow kernel
    the emulator saw making progress): the checks not yet started were not run."""
    dataset: str
    message: str = ""           # the runner's message about it ("timed out" when it gave none)


@dataclass(frozen=True)
class Stopped:
    """The stage's checks were stopped by a limit of the grade: its time (after `seconds`) or its
    memory."""
    limit: Literal["time", "memory"]
    seconds: float = 0.0


@dataclass(frozen=True)
class Built:
    """The stage built and its checks ran: the runner's results by CTest name (a JSON object is
    parsed by score_stage, once: the tests hand in edited documents), the checks this build
    registered (None: every one the stage has; see scoring._score), and what cut the run short, if
    anything (the checks without a result were not run)."""
    results: Mapping[str, runresult.Result | dict]
    registered: frozenset[str] | None = None
    cut_short: Hung | Stopped | None = None


# A stage's outcome: one of these, and nothing else (scoring.NOT_RUN: those where no check ran).
Outcome = Union[NotChecked, Refused, DidNotCompile, Built]
