"""`tilelab grade`: grade one implementation (grading/implementation.py: build, scan, run and score
every stage), print its table and write its files (results.json, grade.json ...). The command only
parses what it is given, calls the grade and hands back the exit status; it is not imported by
any other command."""

from __future__ import annotations

import os
from pathlib import Path

from ..grading import implementation, options as options_mod
from ..report import formats as formats_mod, view as view_mod
from ..run import tree as tree_mod
from ..specs.contract import ExitCode


def grade(stages: list[str] | None = None, submission: str | None = None, backend: str = "auto",
          hidden: bool = False, seed: str | None = None, build_dir: str | None = None,
          impl: str | None = None, out: str | None = None, formats: tuple[str, ...] = ("gradescope", "grade"),
          jobs: int | None = None, perf_basis: str = "auto", table: bool = False) -> int:
    """The `tilelab grade` command; table prints every check, not only the diagnoses."""
    from ..report.formats import terminal

    opts = options_mod.GradeOptions(stages=stages or None, submission=Path(submission) if submission else None,
                                    impl=impl, backend=options_mod.resolve_backend(backend), perf_basis=perf_basis,
                                    hidden=hidden, seed=seed, build_dir=Path(build_dir) if build_dir else None,
                                    jobs=jobs or os.cpu_count() or 1, on_step=terminal.step_printer())
    try:
        options_mod.checked(opts)
    except options_mod.UsageError as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    # The tree is held until the files are written too: the default output folder of a submission
    # is its tree, and the next grade there must not overwrite them half-way.
    with tree_mod.exclusive(options_mod.tree_of(opts)):
        report = implementation.grade(opts)
        view = view_mod.of(report)   # the diagnoses and figures, once for the table and every file
        terminal.print_report(view, table=table)
        dest = Path(out) if out else Path(build_dir or options_mod.default_out(report.impl, report.backend))
        for p in formats_mod.write(view, dest, formats):
            print(f"wrote {tree_mod.shown(p)}")
    return implementation.exit_status(report)
