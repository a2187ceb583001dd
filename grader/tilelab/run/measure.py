"""The measurement a predict-then-measure question shows (score/quiz.py's `measure`): the student's
own kernel, on the emulator's count build, at the question's shape, through the judge as a
perf-model check runs it (the sandbox user, the limits)."""

from __future__ import annotations

from pathlib import Path

from . import ctest_results as results_mod, judge
from .tree import Tree
from ..specs import spec


def measurer(tree: Tree, impl: str, stage_id: str):
    """quiz.score's `measure(question, shape)`: (count, "") or (None, why not). Informational: the
    question is graded on the prediction. One run per (quantity, shape)."""
    runner = tree.build / "runners" / f"run-{impl}-{stage_id}-emu-count"
    judge_path = judge.command(runner, tree.runners)[0]
    seen: dict[tuple, tuple] = {}

    def measure(q, shape):
        if not runner.exists() or not Path(judge_path).exists():
            return None, "this build has no emulator count build (the CPU emulator measures it)"
        key = (q.measure, *shape)
        if key not in seen:
            out = tree.results / f"predict-{impl}-{stage_id}-{'x'.join(map(str, shape))}.json"
            out.unlink(missing_ok=True)
            tree.run_program(judge.command(runner, tree.runners, spec=spec.resolved_path(tree.build, stage_id),
                                           every_block=True, shape=shape, seed=1, check="perf", out=out,
                                           timeout=120), f"predict-{stage_id}", 180)
            r = results_mod.load(out)
            mine = r.timing.impls.get(impl) if r and r.timing else None
            counts = mine.model.counts if mine and mine.model else {}
            if "global_load_bytes" in counts:
                seen[key] = (float(counts["global_load_bytes"]) / 4, "")
            else:
                seen[key] = (None, f"your kernel's run at this shape ended '{r.verdict if r else 'without a result'}'"
                                   + (f": {r.message}" if r and r.message else ""))
        return seen[key]
    return measure
