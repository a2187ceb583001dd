"""`tilelab check STAGE [--watch]`: the fast inner loop while writing a kernel. The stage's small
public datasets (run/engine.py: quick_datasets) on the CPU emulator's plain build only, in the same tree as
`tilelab grade` (grading/options.py: default_tree), through the same build, scan, sandbox and scoring path, so a
verdict here is the verdict the grade gives those checks. It is not a grade: no ASan or race build,
no large, hidden or performance dataset; the last line says so. Sharing the tree, it shares its lock
(implementation.grade holds the tree: tree.exclusive): a check started during a grade waits for it, and says so.

--watch runs it again each time the stage's matmul.cu is saved (watchfiles: the file system's
change events, no polling), until Ctrl-C.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Callable, Iterable

from .. import ROOT
from ..grading import implementation, options as options_mod
from ..specs.contract import ExitCode
from ..score.scores import StageScore


def run_once(stage: str, impl: str = "starter", jobs: int | None = None,
             build_dir: Path | None = None) -> tuple[int, list[str]]:
    """(exit status, lines to print): 0 when every quick check passed, 1 when one failed or the
    file did not build, 2 when the grader could not run."""
    from ..report.formats import terminal as table

    started = time.monotonic()
    opts = options_mod.GradeOptions(stages=[stage], impl=impl, backend="emu", quick=True, build_dir=build_dir,
                              jobs=jobs or os.cpu_count() or 1, on_step=table.step_printer())
    report = implementation.grade(opts)
    took = time.monotonic() - started
    if report.status == "error":
        return 2, [f"tilelab: the grader could not run: {report.message}"]
    return summary(report.stages[0], took)


def summary(s: StageScore, seconds: float) -> tuple[int, list[str]]:
    ran = [c for c in s.checks if c.check == "emu" and c.verdict != "skipped"]
    failed = [c for c in ran if not c.passed]
    datasets = ", ".join(c.dataset for c in ran)
    if s.error:
        first = s.error.splitlines()
        lines = [f"{s.stage}: FAIL ({seconds:.1f} s)", *first[:30]]
    elif failed:
        c = failed[0]
        lines = [f"{s.stage}: FAIL on {len(failed)} of {len(ran)} small datasets ({seconds:.1f} s)",
                 f"  {c.dataset}: {c.verdict}: {c.message}"]
        if c.hint:
            lines.append(f"  hint: {c.hint}")
        others = [f"{o.dataset} ({o.verdict})" for o in failed[1:]]
        if others:
            lines.append(f"  also: {', '.join(others)}")
    else:
        lines = [f"{s.stage}: pass on {len(ran)} small datasets ({datasets}) ({seconds:.1f} s)"]
    lines.append(f"  quick check only (plain emulator build): `./tilelab grade {s.stage}` also runs the "
                 "ASan and race builds and the larger datasets")
    return (0 if not failed and not s.error and ran else 1), lines


def source_of(stage: str, impl: str) -> Path:
    return ROOT / ("solutions" if impl == "solution" else "starter") / stage / "matmul.cu"


def watch(stage: str, impl: str = "starter", jobs: int | None = None,
          changes: Callable[[Path], Iterable[object]] | None = None,
          once: Callable[..., tuple[int, list[str]]] = run_once, build_dir: Path | None = None) -> int:
    """Check now, then again after each batch of changes to the stage's matmul.cu. changes(path)
    yields once per batch (watchfiles.watch by default; a test passes a finite one). Returns the
    last check's status when the changes end (Ctrl-C ends watchfiles' iterator)."""
    src = source_of(stage, impl)
    if changes is None:
        try:
            import watchfiles
        except ImportError:
            print("tilelab: --watch needs the Python package watchfiles: run ./tilelab setup")
            return 2

        def changes(path: Path):
            # The folder, not the file: editors save by writing a new file and renaming it over the old.
            for batch in watchfiles.watch(path.parent, raise_interrupt=False):
                if any(Path(p).name == path.name for _, p in batch):
                    yield batch

    if build_dir is not None:   # only then: a test's `once` need not take it
        once = functools.partial(once, build_dir=build_dir)
    rc, lines = once(stage, impl, jobs)
    print("\n".join(lines), flush=True)
    print(f"watching {src.relative_to(ROOT) if src.is_relative_to(ROOT) else src} (Ctrl-C to stop)", flush=True)
    for _ in changes(src):
        rc, lines = once(stage, impl, jobs)
        print("\n".join(lines), flush=True)
    return rc


def check(stage: str, watch_file: bool = False, impl: str = "starter", jobs: int | None = None,
          build_dir: Path | None = None) -> int:
    """The `tilelab check` command; build_dir: another tree than grade's (grading/options.py: default_tree)."""
    try:
        if watch_file:
            return watch(stage, impl, jobs, build_dir=build_dir)
        rc, lines = run_once(stage, impl, jobs, build_dir)
    except options_mod.UsageError as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    print("\n".join(lines))
    return rc
