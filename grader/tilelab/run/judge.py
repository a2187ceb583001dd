"""How a check is started: the judge (`runners/tilelab-judge`, grader/runner/judge.cpp), built once
per tree, given the worker that runs the code under test (`runners/run-<impl>-<stage>-<backend>`).
The worker is never run on its own: it holds no dataset, reference or result (docs/integrity.md).

command() is the one place Python writes the judge's command line (bench, the predict-then-measure
questions, the test suites). CMake writes its own for the CTest checks (TilelabStages.cmake,
TilelabSanitizer.cmake), at configure time, before any Python of the grade runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

JUDGE = "tilelab-judge"


def command(worker: Path | str, runners: Path | str | None = None, *, spec: Path | str | None = None,
            check: str | None = None, out: Path | str | None = None, timeout: float | None = None,
            dataset: Path | str | None = None, shape: Sequence[int] = (), seed: int | None = None,
            every_block: bool = False) -> list[str]:
    """A check's command line for `worker`; the judge lies beside it in runners/, or in `runners` (a
    prebuilt kit's: kit.py, Tree.runners). The options, in the judge's words: the resolved stage
    spec, a dataset file or a shape (J K L) with a seed, the check (correct, perf ...), where the
    JSON result goes, the judge's own timeout in whole seconds, and --count-every-block (the
    emulator's count build: count every block, not a sample). With none, the start of the line."""
    worker = Path(worker)
    cmd = [str(Path(runners or worker.parent) / JUDGE), "--worker", str(worker)]
    if spec is not None:
        cmd += ["--spec", str(spec)]
    if dataset is not None:
        cmd += ["--dataset", str(dataset)]
    if every_block:
        cmd.append("--count-every-block")
    if shape:
        cmd += ["--shape", *map(str, shape)]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if check is not None:
        cmd += ["--check", check]
    if out is not None:
        cmd += ["--json", str(out)]
    if timeout is not None:
        cmd += ["--timeout", str(int(timeout))]
    return cmd
