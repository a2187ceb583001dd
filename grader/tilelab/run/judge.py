"""How a check is started: the judge (`runners/tilelab-judge`, grader/runner/judge.cpp), built once
per tree, given the worker that runs the code under test (`runners/run-<impl>-<stage>-<backend>`).
The worker is never run on its own: it holds no dataset, reference or result (docs/integrity.md)."""

from __future__ import annotations

from pathlib import Path

JUDGE = "tilelab-judge"


def command(worker: Path | str, runners: Path | str | None = None) -> list[str]:
    """The start of a check's command line for `worker`; the judge lies beside it in runners/, or
    in `runners` (a prebuilt kit's: kit.py, Tree.runners)."""
    worker = Path(worker)
    return [str(Path(runners or worker.parent) / JUDGE), "--worker", str(worker)]
