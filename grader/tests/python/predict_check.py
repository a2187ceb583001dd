#!/usr/bin/env python3
"""CTest kit.quiz.predict: the predict-then-measure questions' answer key against the emulator.
For every stage with such a question, the reference solution's own count (the count build, every
block counted, through the judge as `grade` runs it) must equal the book's figure the key gives,
for several students' shapes: the key and the measurement agree where the kernel is the book's, so
a difference a student is shown is their kernel's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tilelab import ROOT  # noqa: E402
from tilelab.run import measure as measure_mod  # noqa: E402
from tilelab.score import quiz  # noqa: E402
from tilelab.specs import spec  # noqa: E402
from tilelab.run.tree import Tree, exclusive  # noqa: E402


class KitTree(Tree):
    """The kit's own build tree, shared with the other kit tests running at the same time: the
    reference solutions it runs are the kit's, so no sandbox user, whose hand-over of the tree's
    ownership would pull it from under a concurrent kit.grade.* build in the same tree."""

    def _untrusted(self, running: bool) -> dict:
        return {}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True, help="a build tree with run-solution-<stage>-emu-count")
    ap.add_argument("--students", type=int, default=2)
    args = ap.parse_args()
    tree = KitTree(Path(args.tree).resolve())
    if not (tree.build / "runners" / "run-solution-01-basic-emu-count").exists():
        print("SKIP: no emulator count build in this tree (Boost.Context missing?)")
        return 77
    with exclusive(tree.build):   # a grade in the same tree (kit.grade.scratch-tree) takes turns with this
        return _check(tree, args.students)


def _check(tree: Tree, students: int) -> int:
    failed = checked = 0
    for stage in spec.load_all(ROOT):
        key = quiz.load_key(stage.id)
        for q in quiz.load_questions(ROOT / "assignments" / stage.id):
            if not q.measure:
                continue
            measure = measure_mod.measurer(tree, "solution", stage.id)
            for i in range(students):
                d = quiz.draw(q, f"predict-{i}", stage.id)
                book = quiz.expected(d, key[q.id])
                got, why = measure(q, quiz.shape_of(d))
                checked += 1
                ok = got == book
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {stage.id} {q.id} {quiz.shape_of(d)}: book {book:,.0f}, "
                      f"the reference measured {got if got is None else f'{got:,.0f}'} {why}")
    if not checked:
        print("FAIL: no predict-then-measure question was checked")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
