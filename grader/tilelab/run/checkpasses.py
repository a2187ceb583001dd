"""A built stage's checks, run in three CTest passes (the engine's third and fourth steps), and
which of the result files those passes left are trusted:

  1. the probe: the plain correctness check of the smallest public dataset, alone (the cheapest
     run of the kernel, so a hang is found after one short timeout; when it hangs nothing else runs);
  2. every other check but the GPU's timed ones, side by side (a batch's other grades' too), stopped
     as soon as one of them shows a hang;
  3. the timed checks on the GPU, last. Each judge holds the GPU alone around its timing loop only
     (grader/runner/gpu_lock.hpp: a lock between processes that every GPU check's judge shares), so
     the other grades' builds and checks go on beside the rest of a timed check.

A result file counts only with the JUnit report of the pass that ran its check: code under test can
write the results folder, so a file another run left, or one a pass ended before vouching for,
counts for nothing."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from . import ctest_results as results_mod, outcome
from .tree import Tree


def hung(results_dir: Path, prefix: str, kind: str) -> outcome.Hung | None:
    """The first plain correctness check (of kind) whose result says it timed out: the kernel hung.
    A timeout the emulator saw making progress (hint_code too-slow: blocks and barriers still
    finishing, issue #26) is a slow kernel, not a hung one: the stage's other checks still run."""
    for name, r in results_mod.read_json_results(results_dir, prefix).items():
        if name.endswith("." + kind) and r.verdict == "timeout" and r.hint_code != "too-slow":
            return outcome.Hung(r.dataset or name.split(".")[2], r.message)
    return None


@dataclass(frozen=True)
class Passes:
    """The checks of one stage's build, split into the three passes."""
    labels: list[str]            # CTest labels that select the stage's checks: impl, stage, backend
    names: list[str]             # every check selected for this grade
    probe: str | None            # pass 1
    timed: list[str]             # pass 3
    only_selected: bool = False  # pass 2 runs `names` only (a quick check), not every check of the labels


def run_and_collect(tree: Tree, p: Passes, impl: str, stage_id: str, backend: str, kind: str,
                    limit: float) -> outcome.Built:
    """Run the passes within `limit` seconds in all, and what they leave: the trusted results and what
    cut the run short (a hang, the time or the memory limit)."""
    prefix = f"{impl}.{stage_id}."
    results_mod.clear(tree.results, prefix)
    junit = tree.results / f"junit-{impl}-{stage_id}-{backend}.xml"
    probe_junit = tree.results / f"junit-{impl}-{stage_id}-{backend}-first.xml"
    timed_junit = tree.results / f"junit-{impl}-{stage_id}-{backend}-timed.xml"
    for j in (junit, probe_junit, timed_junit):
        j.unlink(missing_ok=True)
    started = time.monotonic()
    left = lambda: max(1.0, limit - (time.monotonic() - started))  # noqa: E731
    ran = tree.run_tests(p.labels, probe_junit, f"{stage_id}-{backend}-first", limit,
                         only=[p.probe]) if p.probe else None
    hang = hung(tree.results, prefix, kind)
    if hang is None and not (ran and (ran.timed_out or ran.out_of_memory)):
        ran = tree.run_tests(p.labels, junit, f"{stage_id}-{backend}", left(), parallel=max(1, tree.jobs),
                             only=p.names if p.only_selected else None,
                             exclude=[n for n in [p.probe, *p.timed] if n] or None,
                             stop_when=lambda: hung(tree.results, prefix, kind) is not None)
        hang = hung(tree.results, prefix, kind)
    if p.timed and hang is None and not (ran and (ran.timed_out or ran.out_of_memory or ran.stopped)):
        timed_ran = tree.run_tests(p.labels, timed_junit, f"{stage_id}-{backend}-timed", left(), only=p.timed)
        if timed_ran.timed_out or timed_ran.out_of_memory:
            ran = timed_ran
    found = results_mod.collect(tree.results, junit, prefix)
    # The probe's and the timed checks' results are checked against their own runs' JUnit reports.
    for j, names in ((probe_junit, [p.probe] if p.probe else []), (timed_junit, p.timed)):
        for k in names:
            found.pop(k, None)
        if names and j.exists():
            found.update({k: v for k, v in results_mod.collect(tree.results, j, prefix).items() if k in names})
    if ran is not None and ran.stopped:
        # CTest was ended before it wrote its JUnit report, so no exit status vouches for a `pass`
        # file: those checks count as not run.
        found = {k: v for k, v in found.items() if k == p.probe or v.verdict != "pass"}
    cut_short = hang
    if hang is None and ran is not None and (ran.timed_out or ran.out_of_memory):
        cut_short = outcome.Stopped("time", limit) if ran.timed_out else outcome.Stopped("memory")
    return outcome.Built(found, frozenset(p.names), cut_short)
