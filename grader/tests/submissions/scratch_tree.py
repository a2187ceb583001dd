#!/usr/bin/env python3
"""Grading submissions one after another in one scratch tree gives the verdicts each gets in a
fresh tree: nothing an earlier submission built (objects, depfiles, runners, results, logs, CTest's
cost data) decides a later one's verdict.

    scratch_tree.py --tree CMAKE_BUILD_TREE --work WORK_DIR --source SHARED_MATMUL_CU
                    --submissions "reads-dataset;compile-error;..." --files "<their matmul.cu>;..."

Registered by grader/cmake/TilelabSubmissions.cmake as kit.grade.scratch-tree. Each submission
(all of stage 01-basic) is graded twice through tilelab.grading.implementation's grade_stage, unchanged --
wipe of the stage's earlier artifacts, build of every emulator runner, include check, static scan,
the stage's real checks (every public dataset x plain, ASan and race build, with their real
timeouts, as the tree registers them for the solution) run through CTest in the sandbox:
  * shared: its file is copied over SHARED_MATMUL_CU, the one source of implementation kit-scratch,
    as a reused scratch tree's submission-src is overwritten; the submissions go in the given order;
  * fresh: through its own implementation kit-fresh-<name>, which no other submission touches.
The two must agree check by check, and each must give expect.toml's [grade] verdict (and named
text). A hanging submission must be graded within HANG_SECONDS, its other checks not run.
Exits 0 when all holds, 1 saying what differed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # grader/
sys.path.insert(0, str(HERE))
from grade_check import KitTree, cmake_quote  # noqa: E402
from tilelab import ROOT  # noqa: E402
from tilelab.grading import implementation, options  # noqa: E402
from tilelab.run import judge  # noqa: E402
from tilelab.specs import spec  # noqa: E402
from tilelab.score.scoring import StageScore  # noqa: E402
from tilelab.run.tree import RegisteredTest, Tree  # noqa: E402
from tilelab.specs.compat import tomllib  # noqa: E402

STAGE = "01-basic"
HANG_SECONDS = 90      # issue #12: a hanging submission is graded in <= 90 s, build included


class ScratchTree(KitTree):
    """The CI tree for building, a private folder for CTest, results and logs, and the real
    begin_build (tilelab.run.artifacts.wipe) of the grade path."""

    begin_build = Tree.begin_build


def checks_for(impl: str, solution_tests: list[RegisteredTest], tree: Path, work: Path) -> None:
    """work/CTestTestfile.cmake: the tree's public emulator checks of the solution, renamed to impl
    (runner run-<impl>-01-basic-<build>, its own result files), with their timeouts and labels,
    and the command tilelab_add_check gives them (CTest lists no command for a runner not yet built)."""
    lines = []
    spec_file = spec.resolved_path(tree, STAGE)
    for t in solution_tests:
        name = t.name.replace("solution.", f"{impl}.", 1)
        _, _, dataset, check = name.split(".")
        runner_timeout = int(t.timeout) - 30           # tilelab_add_check: CTest's TIMEOUT is the runner's + 30
        cmd = judge.command(tree / "runners" / f"run-{impl}-{STAGE}-{check}", spec=spec_file,
                            dataset=tree / "datasets" / STAGE / dataset, check="correct",
                            out=work / "results" / f"{name}.json", timeout=runner_timeout)
        labels = ";".join(impl if label == "solution" else label for label in t.labels)
        lines.append(f"add_test({name} {' '.join(cmake_quote(c) for c in cmd)})")
        lines.append(f"set_tests_properties({name} PROPERTIES LABELS {cmake_quote(labels)} TIMEOUT {int(t.timeout)} "
                     f"SKIP_RETURN_CODE 77 WORKING_DIRECTORY {cmake_quote(str(ROOT / 'grader'))})")
    (work / "results").mkdir(parents=True, exist_ok=True)
    (work / "CTestTestfile.cmake").write_text("\n".join(lines) + "\n")


def grade_as(impl: str, tree_dir: Path, work: Path, stage: spec.Stage, solution_tests) -> tuple[StageScore, float]:
    checks_for(impl, solution_tests, tree_dir, work)
    targets = [f"run-{impl}-{STAGE}-{b}" for b in ("emu", "emu-asan", "emu-race")]
    mem = 4096 << 20
    tree = ScratchTree(tree_dir, work, targets, jobs=2, memory_bytes=mem, isolate_network=True)
    opts = options.GradeOptions(stages=[STAGE], impl=impl, backend="emu", build_dir=tree_dir, jobs=2,
                              build_timeout=300, memory_bytes=mem, isolate_network=True)
    t0 = time.monotonic()
    score = implementation.grade_stage(tree, stage, impl, "emu", tree.tests(), opts)
    return score, time.monotonic() - t0


def verdicts(score: StageScore, impl: str) -> list[tuple[str, str]]:
    return sorted((c.name.replace(f"{impl}.", "", 1), c.verdict) for c in score.checks)


def expected_problems(name: str, score: StageScore, impl: str, seconds: float) -> list[str]:
    """What differs from the submission's expect.toml [grade] case."""
    doc = tomllib.loads((HERE / name / "expect.toml").read_text())
    case = doc["grade"] if isinstance(doc["grade"], dict) else doc["grade"][0]
    want = case["verdict"]
    bad = []
    if want in ("compile", "forbidden"):
        got = sorted({c.verdict for c in score.checks})
        if got != [want]:
            bad.append(f"verdicts {got}, expected '{want}': {score.error[:300]}")
        for text in [*case.get("message_contains", []), *case.get("forbidden", [])]:
            if text not in score.error:
                bad.append(f"the stage's message lacks '{text}': {score.error[:300]}")
    else:
        check = f"{impl}.{STAGE}.{case['dataset']}.{case.get('check', 'emu') if case.get('check') != 'correct' else 'emu'}"
        got = next((c.verdict for c in score.checks if c.name == check), "missing")
        if got != want:
            bad.append(f"{check}: verdict '{got}', expected '{want}'")
    if want == "timeout":
        ran = [c for c in score.checks if c.verdict == "timeout" and not c.message.startswith("not run")]
        if len(ran) != 1:
            bad.append(f"{len(ran)} checks waited out a timeout; after the first hang the others must not run")
        if seconds > HANG_SECONDS:
            bad.append(f"graded in {seconds:.0f} s, more than {HANG_SECONDS} s")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scratch_tree.py", description=__doc__.splitlines()[0])
    ap.add_argument("--tree", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--source", required=True, type=Path, help="the shared implementation's matmul.cu")
    ap.add_argument("--submissions", required=True, help=";-separated names under grader/tests/submissions")
    ap.add_argument("--files", required=True, help="their 01-basic/matmul.cu (a mutant's is in the build tree), ;-separated")
    a = ap.parse_args(argv)
    names = [n for n in a.submissions.split(";") if n]
    files = dict(zip(names, [Path(f) for f in a.files.split(";") if f]))
    stage = next(s for s in spec.load_all(ROOT) if s.id == STAGE)
    solution_tests = [t for t in Tree(a.tree).tests()
                      if t.name.startswith(f"solution.{STAGE}.") and "emu" in t.labels and "public" in t.labels]
    if not solution_tests:
        print(f"no public emulator checks of solution.{STAGE} registered in {a.tree}")
        return 1
    shutil.rmtree(a.work, ignore_errors=True)
    failures = []
    for name in names:
        shutil.copyfile(files[name], a.source)
        shared, s_sec = grade_as("kit-scratch", a.tree, a.work / "kit-scratch", stage, solution_tests)
        fresh, f_sec = grade_as(f"kit-fresh-{name}", a.tree, a.work / f"kit-fresh-{name}", stage, solution_tests)
        vs, vf = verdicts(shared, "kit-scratch"), verdicts(fresh, f"kit-fresh-{name}")
        print(f"{name}: shared tree {sorted({v for _, v in vs})} in {s_sec:.0f} s; "
              f"fresh {sorted({v for _, v in vf})} in {f_sec:.0f} s")
        print("    " + shared.error.strip().replace("\n", "\n    ")[:600])
        if vs != vf:
            diff = [f"{c}: shared {v} / fresh {dict(vf).get(c)}" for c, v in vs if dict(vf).get(c) != v]
            failures.append(f"{name}: the shared tree's verdicts differ from a fresh tree's: {diff[:5]}")
        for where, score, impl, sec in (("shared", shared, "kit-scratch", s_sec),
                                        ("fresh", fresh, f"kit-fresh-{name}", f_sec)):
            failures += [f"{name} ({where} tree): {p}" for p in expected_problems(name, score, impl, sec)]
    if failures:
        print("one scratch tree vs fresh trees: NOT the same verdicts")
        print("\n".join(failures))
        return 1
    print(f"one scratch tree vs fresh trees: the same verdicts for {len(names)} submissions in turn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
