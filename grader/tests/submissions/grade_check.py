#!/usr/bin/env python3
"""Grades one known-bad submission through the Python grader's own path and asserts the verdict.

    grade_check.py --expect <name>/expect.toml --tree CMAKE_BUILD_TREE --work WORK_DIR
                   --datasets DATASETS_DIR --targets TARGET[;TARGET...]

What runs is tilelab.grading.implementation's per-stage function (grade_stage), unchanged: it builds the runner
target (so a compile or link error is reported the way a student sees it), runs the static scan of
the student's object (tilelab.run.forbidden), then runs the checks through CTest inside the sandbox
(tilelab.run.sandbox: wall-clock limit, memory limit, no network) and reads the runner's JSON and
CTest's JUnit (tilelab.run.ctest_results). Only the build tree is shared: the kit's CI tree, which already
holds this submission's emulator runner (target run-kit-<name>-<stage>-emu), so no submission pays
for a configure. The checks this case needs are written to WORK_DIR/CTestTestfile.cmake under the
implementation name kit-<name>, with the labels a real build gives them.

expect.toml has a [grade] table, or several [[grade]] tables, each a case:

    dataset   = "w17"                  # the dataset of the check (not needed for compile/forbidden)
    check     = "correct"              # or "perf" (the emulator runner's perf path: the fresh-input run)
    checks    = ["emu", "emu-asan"]    # optional: several checks of the dataset, run and scored together
                                       # (the first is the one asserted; the others' findings can cost it points)
    points    = 0.0                    # optional: the points the grader gives the asserted check
    verdict   = "error"                # the check's verdict: pass wrong error timeout crash compile forbidden
    hint_code = "crash"                # optional: the result's hint_code
    diagnosis = ["hung", "loop"]       # optional: words the stage's first diagnosis must contain
    message_contains = ["..."]         # optional: text the check's message must contain
    stage_error_contains = "..."       # optional: text of the stage's error (build failed, memory limit...)
    forbidden = ["fork"]               # optional: symbols the grade's forbidden message must name
    scan = ["cublasSgemm_v2"]          # optional: symbols tilelab.run.refusal.scan must report ([] = none)
    timeout = 5                        # the runner's --timeout (default 60)
    memory_mib = 2048                  # the sandbox's memory limit (default 4096)
    max_seconds = 60                   # optional: the case's wall time must stay below this
    judge_seed = "abc"                 # optional: a --seed the check's judge is given as it is (the
                                       # grader's own bad input: the verdict must be grading_error)
    secrets_absent = true              # optional: nothing the student reads (the stage's error, every
                                       # check's message and hint, the terminal report, results.json)
                                       # holds a secret: the tree's grading seed, a line of the stage's
                                       # answer key or one of the solution's own lines (secrets())

Registered by grader/cmake/TilelabSubmissions.cmake as kit.grade.<name>. Exits 0 when every case
holds and 1, saying what differed, otherwise.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # grader/
from tilelab import ROOT  # noqa: E402
from tilelab.grading import implementation, options  # noqa: E402
from tilelab.run import artifacts, ctest_results as results_mod, judge, refusal  # noqa: E402
from tilelab.score import diagnoses  # noqa: E402
from tilelab.specs import spec  # noqa: E402
from tilelab.report.formats import terminal  # noqa: E402
from tilelab.report.model import GradeReport  # noqa: E402
from tilelab.run.tree import Tree  # noqa: E402
from tilelab.specs.compat import tomllib  # noqa: E402

TERMINAL_LINES = 40         # a failing stage's terminal output fits on one screen (issue #17)
SAFETY_NET_BYTES = 3 << 30   # above every case's sandbox limit: only a sandbox that lost track of a process fires it


class KitTree(Tree):
    """The CI build tree for building and scanning; a private folder for CTest, results and logs."""

    def __init__(self, build: Path, work: Path, targets: list[str], **kw):
        super().__init__(build, **kw)
        self.work = work
        self._targets = targets

    @property
    def logs(self) -> Path:
        return self.work / "logs"

    @property
    def results(self) -> Path:
        return self.work / "results"

    def targets(self) -> list[str]:
        return list(self._targets)

    def _tests_tree(self) -> Tree:
        return Tree(self.work, jobs=self.jobs, memory_bytes=self.memory_bytes, isolate_network=self.isolate_network)

    def tests(self):
        return self._tests_tree().tests()

    def run_tests(self, labels, junit, log_name, timeout, parallel=1, **kw):
        return self._tests_tree().run_tests(labels, junit, log_name, timeout, parallel, **kw)

    def own_folders(self, impl, stage):
        # The known-bad submission's own folder (a mutant's is written into the tree; scratch_tree.py's
        # kit-scratch and kit-fresh-<name>): compiler messages may quote its files, as a student's own.
        if impl == "kit-scratch":
            return (self.build / "kit-scratch" / stage,)
        name = impl.removeprefix("kit-").removeprefix("fresh-")
        return (Path(__file__).resolve().parent / name / stage, self.build / "kit-mutants" / name / stage)

    def begin_build(self, impl, stage):
        # The CI tree's objects of this submission are the kit's own, built by `all` from this very
        # file and shared with the kit.emu.* tests running beside this one: kept, and all count as
        # this build's. (The real grade path wipes them: tilelab.run.artifacts, kit.grade.scratch-tree.)
        for f in [*self.results.glob(f"{impl}.{stage}.*"), *self.results.glob(f"junit-{impl}-{stage}-*")]:
            f.unlink(missing_ok=True)
        return 0.0


def cmake_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_ctest_file(work: Path, tree: Path, impl: str, stage: spec.Stage, datasets: Path, case: dict) -> str:
    """A CTestTestfile.cmake holding this case's checks, named and labelled as TilelabStages and
    TilelabEmu do; returns the name of the first (the one asserted)."""
    check = case.get("check", "correct")
    ds = case.get("dataset", "w17")
    kinds = case.get("checks") or ["emu" if check == "correct" else check]
    timeout = case.get("timeout", 60)
    spec_file = spec.resolved_path(tree, stage.id)
    (work / "results").mkdir(parents=True, exist_ok=True)
    text = ""
    for kind in kinds:
        name = f"{impl}.{stage.id}.{ds}.{kind}"
        suffix = kind if kind.startswith("emu") else "emu"
        runner = tree / "runners" / f"run-{impl}-{stage.id}-{suffix}"
        cmd = judge.command(runner, spec=spec_file, dataset=datasets / stage.id / ds, seed=case.get("judge_seed"),
                            check="perf" if kind == "perf" else "correct", out=work / "results" / f"{name}.json",
                            timeout=timeout)
        labels = ";".join([impl, stage.id, kind, "emu", "public"])
        text += (f"add_test({name} {' '.join(cmake_quote(c) for c in cmd)})\n"
                 f"set_tests_properties({name} PROPERTIES LABELS {cmake_quote(labels)} TIMEOUT {int(timeout) + 30} "
                 f"SKIP_RETURN_CODE 77 WORKING_DIRECTORY {cmake_quote(str(ROOT / 'grader'))})\n")
    (work / "CTestTestfile.cmake").write_text(text)
    return f"{impl}.{stage.id}.{ds}.{kinds[0]}"


def descendants() -> list[int]:
    """Every process below this one (orphans included: this process is their subreaper)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    mine, frontier = [], [os.getpid()]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        mine += kids
        frontier += kids
    return mine


def rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def safety_net(stop: threading.Event, fired: list) -> None:
    """Kills every process below this one when together they pass SAFETY_NET_BYTES, so that a
    sandbox which lost track of a process (one that left its process group) cannot exhaust the CI
    machine. Orphans are reparented here (PR_SET_CHILD_SUBREAPER), so none escapes."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    while not stop.wait(0.5):
        procs = descendants()
        if sum(rss(p) for p in procs) > SAFETY_NET_BYTES:
            fired.append(True)
            for p in procs:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass


def secrets(tree: Path, stage: spec.Stage) -> list[str]:
    """What no student may read, as text to look for: the tree's grading seed (CMakeCache.txt), the
    cache's own lines that name it, the answer key's lines and the reference solution's lines that
    the starter does not share (both a dozen characters or more, so no common word matches)."""
    found = []
    cache = (tree / "CMakeCache.txt").read_text(errors="replace")
    seed = next((line.split("=", 1)[1] for line in cache.splitlines() if line.startswith("TILELAB_GRADING_SEED:")), "")
    found += [s for s in (seed, "This is the CMakeCache file", "TILELAB_GRADING_SEED:STRING") if s]
    key = ROOT / "solutions" / stage.id / "questions-key.toml"
    starter = set((ROOT / "starter" / stage.id / "matmul.cu").read_text().splitlines())
    for f, skip in ((key, set()), (ROOT / "solutions" / stage.id / "matmul.cu", starter)):
        if f.exists():
            found += [line.strip() for line in f.read_text().splitlines()
                      if len(line.strip()) >= 12 and line not in skip and not line.strip().startswith("//")]
    return found


def rendered(score, name: str, impl: str) -> dict:
    """What the student reads of a graded stage in the formats that carry everything: the report's
    own JSON, the terminal text (its table) and Gradescope's results file; rendered once a case."""
    from tilelab.report import formats

    report = GradeReport(name, impl, "emu", stages=[score])
    out = io.StringIO()
    terminal.print_report(report, file=out, table=True)
    return {"grade": report.to_dict(), "terminal": out.getvalue(), "gradescope": formats.render(report, "gradescope")}


def shown_to_student(score, shown: dict) -> str:
    """Everything a student reads of a graded stage: the stage's error, each check's message and
    hint, the terminal report and the Gradescope results file (shown: rendered())."""
    return "\n".join([score.error, *(c.message + "\n" + c.hint for c in score.checks), shown["terminal"],
                      shown["gradescope"]])


def write_report(work: Path, shown: dict) -> None:
    """WORK/report.json: rendered()'s formats, for report_snapshot.py: a change meant to keep
    behaviour must leave these the same over the whole suite."""
    (work / "report.json").write_text(json.dumps(shown, indent=1, sort_keys=True) + "\n")


def run_case(case: dict, a: argparse.Namespace, name: str, stage: spec.Stage, work: Path) -> list[str]:
    impl = f"kit-{name}"
    want = case.get("verdict")
    if not want:
        return ["expect.toml: a [grade] case has no 'verdict'"]
    work.mkdir(parents=True, exist_ok=True)
    test = write_ctest_file(work, a.tree, impl, stage, a.datasets, case)
    mem = int(case.get("memory_mib", 4096)) << 20
    tree = KitTree(a.tree, work, a.targets, jobs=1, memory_bytes=mem, isolate_network=True)
    opts = options.GradeOptions(stages=[stage.id], impl=impl, backend="emu", build_dir=a.tree, jobs=1,
                              build_timeout=300, memory_bytes=mem, isolate_network=True)
    registered = tree.tests()
    if not any(t.name == test for t in registered):
        return [f"CTest does not list {test} from {work / 'CTestTestfile.cmake'}"]
    stop, fired = threading.Event(), []
    net = threading.Thread(target=safety_net, args=(stop, fired), daemon=True)
    net.start()
    t0 = time.monotonic()
    try:
        score = implementation.grade_stage(tree, stage, impl, "emu", registered, opts)
    finally:
        stop.set()
        net.join()
    seconds = time.monotonic() - t0
    junit = tree.results / f"junit-{impl}-{stage.id}-emu.xml"
    found = results_mod.collect(tree.results, junit, f"{impl}.{stage.id}.")
    by_name = {c.name: c for c in score.checks}
    bad = []
    if fired:
        bad.append(f"the safety net killed the run above {SAFETY_NET_BYTES >> 30} GiB: the sandbox's memory "
                   "watchdog did not see the process (did it leave the process group?)")
    if want in ("compile", "forbidden"):
        verdicts = sorted({c.verdict for c in score.checks})
        message = score.error
        result, c = None, None
    else:
        c = by_name.get(test)
        result = found.get(test) or (c.result if c else None)
        verdicts = [c.verdict] if c else [result.verdict if result else "missing"]
        message = (c.message if c else "") or (result.message if result else "")
    if verdicts != [want]:
        bad.append(f"verdict {verdicts}, expected '{want}'")
    if "points" in case and (c is None or abs(c.points - case["points"]) > 1e-6):
        bad.append(f"points {c.points if c else None}, expected {case['points']}")
    hint_code = result.hint_code if result else ""
    if "hint_code" in case and hint_code != case["hint_code"]:
        bad.append(f"hint_code '{hint_code}', expected '{case['hint_code']}'")
    for text in case.get("message_contains", []):
        if text not in message:
            bad.append(f"the message lacks '{text}'")
    if "stage_error_contains" in case and case["stage_error_contains"] not in score.error:
        bad.append(f"the stage's error '{score.error}' lacks '{case['stage_error_contains']}'")
    for sym in case.get("forbidden", []):
        if sym not in score.error:
            bad.append(f"the forbidden-call message does not name '{sym}'")
    if "scan" in case:
        objects = artifacts.student_objects(a.tree, impl, stage.id)
        named = [f.symbol for f in refusal.scan(objects)]
        if not objects:
            bad.append(f"the static scan found no object of {impl} {stage.id} in {a.tree}")
        if case["scan"] == [] and named:
            bad.append(f"the static scan reported {named}, expected nothing")
        for sym in case["scan"]:
            if not any(sym in n for n in named):
                bad.append(f"the static scan did not report '{sym}' (it reported {named})")
    if "diagnosis" in case:
        ds = diagnoses.of_stage(score)
        if lost := diagnoses.missing_words(ds, case["diagnosis"]):
            bad.append(f"the first diagnosis lacks {lost}: {ds[0].text() if ds else '(none)'}")
    if not score.passed:   # what a student reads first fits on one screen
        screen = io.StringIO()
        terminal.print_report(GradeReport(name, impl, "emu", stages=[score]), file=screen)
        if (n := len(screen.getvalue().splitlines())) > TERMINAL_LINES:
            bad.append(f"the terminal output of the failing stage is {n} lines, more than {TERMINAL_LINES}")
    shown = rendered(score, name, impl)
    if case.get("secrets_absent"):
        text = shown_to_student(score, shown)
        leaked = [s for s in secrets(a.tree, stage) if s in text]
        if leaked:
            bad.append(f"the student reads what is secret: {leaked[:3]}")
    if "max_seconds" in case and seconds > case["max_seconds"]:
        bad.append(f"took {seconds:.0f} s, more than {case['max_seconds']} s")
    write_report(work, shown)
    label = f"{case.get('dataset', '-')}/{case.get('check', 'correct')}"
    print(f"  {label}: {','.join(verdicts)} hint={hint_code!r} in {seconds:.1f} s")
    if message:
        print("    " + message.strip().replace("\n", "\n    ")[:1500])
    if bad:
        bad = [f"{label}: {b}" for b in bad] + [f"  logs: {tree.logs}"]
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="grade_check.py", description=__doc__.splitlines()[0])
    ap.add_argument("--expect", required=True, type=Path)
    ap.add_argument("--tree", required=True, type=Path, help="the CMake build tree holding the runner targets")
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--datasets", required=True, type=Path, help="the tree's datasets folder")
    ap.add_argument("--targets", required=True, help="the submission's runner targets, ;-separated")
    a = ap.parse_args(argv)
    a.targets = [t for t in a.targets.split(";") if t]
    doc = tomllib.loads(a.expect.read_text())
    cases = doc.get("grade")
    name = a.expect.parent.name
    if cases is None:
        print(f"{a.expect}: no [grade] expectation")
        return 1
    cases = cases if isinstance(cases, list) else [cases]
    stage = next((s for s in spec.load_all(ROOT) if s.id == doc.get("stage")), None)
    if stage is None:
        print(f"{a.expect}: unknown stage {doc.get('stage')!r}")
        return 1
    failures = []
    for i, case in enumerate(cases):
        failures += run_case(case, a, name, stage, a.work / f"case{i}")
    if failures:
        print(f"{name} through the grader: NOT as expected")
        print("\n".join(failures))
        return 1
    print(f"{name} through the grader: as expected ({len(cases)} case{'s' * (len(cases) > 1)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
