"""`tilelab check STAGE [--watch]`: the quick inner loop (plain emulator build, small public
datasets). The slow test builds a real tree; the others test the selection and the watch loop."""

import time

import pytest

from tilelab import ROOT
from tilelab.commands import check
from tilelab.run import engine
from tilelab.specs import spec
from tilelab.run.tree import RegisteredTest


def _stage(sid):
    return next(s for s in spec.load_all(ROOT) if s.id == sid)


def test_quick_datasets_are_the_public_ones_not_tagged_large():
    for s in spec.load_all(ROOT):
        names = engine.quick_datasets(s)
        assert names, s.id
        by_name = {d.name: d for d in s.correctness_datasets}
        assert all(n in by_name and "large" not in by_name[n].tags for n in names)
        assert set(by_name) - set(names) == {d.name for d in s.correctness_datasets if "large" in d.tags}
        assert s.performance.dataset not in names


def test_quick_selects_only_the_plain_emulator_checks_of_those_datasets():
    s = _stage("02-tiled")
    tests = [RegisteredTest(f"starter.02-tiled.{d.name}.{c}", (), (), 10.0)
             for d in s.correctness_datasets for c in ("emu", "emu-asan", "emu-race")]
    picked = engine.quick_checks(tests, s, "emu")
    assert sorted(t.name for t in picked) == sorted(f"starter.02-tiled.{n}.emu" for n in engine.quick_datasets(s))


def test_watch_checks_once_then_after_each_save():
    calls = []

    def once(stage, impl, jobs):
        calls.append(stage)
        return (1 if len(calls) < 3 else 0), [f"run {len(calls)}"]

    rc = check.watch("02-tiled", changes=lambda path: iter([("saved",), ("saved",)]), once=once)
    assert calls == ["02-tiled"] * 3 and rc == 0


@pytest.mark.slow
def test_check_gives_the_starter_and_the_solution_their_verdicts(grading_tree, capsys):
    """One tree for both (as `grade` shares it): the starter fails with a wrong result, the solution
    passes every small dataset; a warm re-check is timed (docs/performance.md)."""
    build = grading_tree
    rc, lines = check.run_once("02-tiled", impl="starter", jobs=2, build_dir=build)
    assert rc == 1 and lines[0].startswith("02-tiled: FAIL on"), lines
    assert "wrong" in lines[1], lines
    rc, lines = check.run_once("02-tiled", impl="solution", jobs=2, build_dir=build)
    n = len(engine.quick_datasets(_stage("02-tiled")))
    assert rc == 0 and lines[0].startswith(f"02-tiled: pass on {n} small datasets"), lines
    started = time.monotonic()
    rc, lines = check.run_once("02-tiled", impl="solution", jobs=2, build_dir=build)
    with capsys.disabled():
        print(f"\nwarm `check 02-tiled` of the solution: {time.monotonic() - started:.1f} s")
    assert rc == 0, lines
    # Only the plain runner was built: no ASan or race build of the stage.
    runners = sorted(p.name for p in (build / "runners").glob("run-solution-02-tiled-*"))
    assert runners == ["run-solution-02-tiled-emu"], runners
