"""`tilelab setup`: after grader/setup/install-deps.sh has installed the packages (the launcher
runs it first), build the kit and run the main job, on the GPU when one is present and on the CPU
emulator otherwise:
  * in the instructor's kit (solutions/ present): grade the reference solutions; every check must
    pass (exit status as `./tilelab grade`);
  * in the student repository (`./tilelab release`, no solutions/): grade the student's code --
    the starter at first, whose checks all fail until the kernels are written. Those failures are
    the assignment, so they are explained, not reported as a broken setup: exit 0 once the grading
    ran, 1 when a stage does not compile (or calls what is forbidden), 2 when the grader could not
    run at all."""

from __future__ import annotations

import os

from .. import ROOT
from ..grading import implementation, options as options_mod
from ..report import formats as formats_mod, view as view_mod
from ..run import tree as tree_mod
from ..specs.contract import ExitCode


def is_student_repository(root=ROOT) -> bool:
    return not (root / "solutions").is_dir()


def setup(run_main_job: bool = True, assume_yes: bool = False) -> int:
    del assume_yes  # install-deps.sh never prompts; kept so `setup -y` reads naturally in scripts
    if not run_main_job:
        return ExitCode.PASS
    if not is_student_repository():
        print("tilelab: grading the reference solutions (the kit's main job)")
        report = _grade_and_write("solution")   # in the tree `./tilelab grade` then reuses (options.default_tree)
        return report if isinstance(report, int) else implementation.exit_status(report)
    return grade_student_code()


def grade_student_code() -> int:
    print("tilelab: grading your code in starter/ (the starter's checks fail until you write the kernels)")
    report = _grade_and_write("starter")
    if isinstance(report, int):
        return report
    rc, lines = explain(report)
    print("\n".join(lines))
    return rc


def _grade_and_write(impl: str):
    """What `./tilelab grade` does for an implementation, with its defaults: grade it, print its
    table, write results.json and grade.json to its default folder. The report, or the exit status
    of options that cannot be graded."""
    from ..report.formats import terminal as table

    try:
        report = implementation.grade(options_mod.GradeOptions(impl=impl, jobs=os.cpu_count() or 1,
                                                               on_step=table.step_printer()))
    except options_mod.UsageError as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    view = view_mod.of(report)   # once, for the table and the files
    table.print_report(view)
    for p in formats_mod.write(view, options_mod.default_out(report.impl, report.backend)):
        print(f"wrote {tree_mod.shown(p)}")
    return report


def explain(report) -> tuple[int, list[str]]:
    """setup's exit status in the student repository, and what it tells the student."""
    if report.status == "error":
        return ExitCode.ERROR, [f"tilelab: the grader could not run: {report.message}", "see ./tilelab doctor"]
    if implementation.exit_status(report) == ExitCode.SKIPPED:
        return ExitCode.SKIPPED, ["tilelab: nothing could be checked here (no GPU and no CPU emulator): see ./tilelab doctor"]
    broken = [s.stage for s in report.stages if any(c.verdict in ("compile", "forbidden") for c in s.checks)]
    if broken:
        return ExitCode.WRONG, [f"tilelab: setup is done, but {', '.join(broken)} does not build (message above): fix that first"]
    done = [s.stage for s in report.stages if s.passed]
    todo = [s.stage for s in report.stages if not s.passed]
    lines = ["tilelab: setup is done; the grader works on this machine."]
    if todo:
        lines += [f"Stages still to do: {', '.join(todo)}. Their failing checks above are the assignment, "
                  "not a problem with the setup:",
                  f"read assignments/{todo[0]}/README.md, write starter/{todo[0]}/matmul.cu, "
                  f"then ./tilelab grade {todo[0]}."]
    if done:
        lines.append(f"Stages passing every check: {', '.join(done)}.")
    return ExitCode.PASS, lines
