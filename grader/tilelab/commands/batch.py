"""`tilelab batch SUBMISSIONS --out DIR`: grade a class.

One submission per folder or zip. Submissions build in parallel (--jobs), each in its own build
tree (held while it is graded: tree.exclusive); on the GPU each check's judge holds the GPU alone
only around its timing loop (grader/runner/gpu_lock.hpp), so the others build and check beside it.
Each student's folder under DIR gets grade.json, results.json (Gradescope) and report.html, then
done.json last: a batch that is stopped and run again skips every student whose done.json matches
the same files, settings and grader (identity.py: a digest of the grader's code and the stage
specs, so a grader fix regrades everyone; --regrade NAME regrades one student). The gradebook
records the grader version and seed each grade was made with.
Whatever one submission does -- fail to compile, hang, crash, eat memory -- is recorded in its
row of the gradebook and the batch goes on.

The gradebook and index.html always hold every submission found: one the batch has not
(re)graded yet, because it was stopped, is `pending`, with its previous grade where there is one.
Every student is graded on every stage of the batch (a stage not handed in scores 0), so all share
one maximum.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from ..grading import classbatch, implementation
from ..grading.classbatch import BatchOptions, BatchSummary
from ..report import formats as formats_mod
from ..report.model import GradeReport
from ..run import kit as kit_mod, sandbox


def save(report: GradeReport, folder: Path, opts: BatchOptions, key: str, digest: str) -> None:
    """A student's folder: the report's files, then done.json (classbatch.mark_done)."""
    formats_mod.write(report, folder, opts.formats)
    classbatch.mark_done(report, folder, opts, key, digest)


def run_batch(submissions: Path, opts: BatchOptions, grader: classbatch.Grader | None = None,
              on_event: Callable[[str, GradeReport, bool], None] | None = None,
              on_step: classbatch.OnStep | None = None) -> BatchSummary:
    """Grade every submission under `submissions`; on_event(name, report, reused) after each,
    on_step(name, step) as each one's grading goes on (configuring, building, checking)."""
    grader = grader or implementation.grade
    p = classbatch.plan(submissions, opts, on_event)
    summary = p.summary
    book_lock = threading.Lock()

    def finish(sub, folder, digest, report):
        with book_lock:
            save(report, folder, opts, p.key, digest)
            summary.reports[sub.name] = report
            summary.graded.append(sub.name)
            p.made[sub.name] = classbatch.made_with(opts)
            p.write_book(opts, index=False)
        if on_event:
            on_event(sub.name, report, False)

    kit_root = classbatch.kit_root(opts)
    if kit_root and p.todo:
        kit_mod.prune(kit_root, keep=kit_mod.folder(kit_root, p.backend))
    pool = ThreadPoolExecutor(max_workers=max(1, opts.jobs), thread_name_prefix="tilelab-batch")
    futures = {pool.submit(classbatch.grade_one, item[0], opts, p.backend, grader, p.stage_ids, on_step): item
               for item in p.todo}
    try:
        for fut in as_completed(futures):
            sub, folder, digest = futures[fut]
            finish(sub, folder, digest, fut.result())
    except KeyboardInterrupt:
        summary.interrupted = True
        sandbox.STOP.set()
        pool.shutdown(wait=True, cancel_futures=True)
        sandbox.STOP.clear()
    else:
        pool.shutdown(wait=True)
    p.write_book(opts)
    return summary
