"""Issue #12: what a grade reads is this submission's own. Leftovers of an earlier build are removed
(artifacts), a student's own main() is named as such (forbidden), includes of kit files are refused
(includes), and no process a grade started outlives it (sandbox)."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import fakes
from tilelab import ROOT
from tilelab.run import artifacts, includes, refusal, sandbox, toolchain

GRADER = Path(__file__).resolve().parents[2]


# ---- artifacts: nothing of an earlier build is read as this one's ----

def _fake_stage_build(build: Path, impl: str = "submission", stage: str = "01-basic") -> list[Path]:
    objs = build / "CMakeFiles" / "emu_plain_run_submission_01_basic.dir" / "generated" / "emu"
    objs.mkdir(parents=True)
    files = [objs / f"run-{impl}-{stage}.cpp.o", objs / f"run-{impl}-{stage}.cpp.o.d",
             # -save-temps=obj's preprocessed unit and .s (g++'s names; clang's, after the source)
             objs / f"run-{impl}-{stage}.cpp.ii", objs / f"run-{impl}-{stage}.cpp.s", objs / f"run-{impl}-{stage}.ii",
             build / "runners" / f"run-{impl}-{stage}-emu", build / "generated" / "emu" / f"run-{impl}-{stage}.cpp",
             build / "results" / f"{impl}.{stage}.w1.emu.json", build / "results" / f"junit-{impl}-{stage}-emu.xml",
             build / "logs" / f"build-{stage}.log", build / "logs" / f"ctest-{stage}-emu.log",
             build / "Testing" / "Temporary" / "CTestCostData.txt"]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("old")
    return files


def test_wipe_removes_every_artifact_of_the_stage_and_keeps_the_kits(tmp_path):
    files = _fake_stage_build(tmp_path)
    kit = tmp_path / "CMakeFiles" / "tilelab_core.dir" / "npy.cpp.o"
    other = tmp_path / "results" / "submission.02-tiled.w32.emu.json"
    for f in (kit, other):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("keep")
    artifacts.wipe(tmp_path, "submission", "01-basic", tmp_path / "results", tmp_path / "logs")
    assert [f for f in files if f.exists()] == []
    assert kit.exists() and other.exists()


def test_objects_older_than_the_build_are_never_scanned(tmp_path):
    files = _fake_stage_build(tmp_path)
    old = files[0]
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    marker = tmp_path / "marker"
    marker.write_text("")
    since = marker.stat().st_mtime
    assert artifacts.student_objects(tmp_path, "submission", "01-basic") == [old]
    assert artifacts.fresh_objects(tmp_path, "submission", "01-basic", since) == []
    old.write_text("rebuilt")
    assert artifacts.fresh_objects(tmp_path, "submission", "01-basic", since) == [old]


# ---- a student's own main() ----

@pytest.mark.skipif(not shutil.which("c++") or not shutil.which("objdump"), reason="needs c++ and objdump")
def test_a_students_main_is_found_and_an_initializer_is_not_a_main(tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text('#include <cstdio>\nvoid launch_matmul() {}\nint main() { puts("P ="); launch_matmul(); return 0; }\n')
    obj = tmp_path / "m.o"
    subprocess.run(["c++", "-O2", "-c", str(src), "-o", str(obj)], check=True)
    assert refusal.defines_main([obj])
    init = tmp_path / "i.cpp"
    init.write_text('#include <cstdio>\nstatic int x = puts("before main");\nvoid launch_matmul() { (void)x; }\n')
    subprocess.run(["c++", "-O2", "-c", str(init), "-o", str(tmp_path / "i.o")], check=True)
    assert not refusal.defines_main([tmp_path / "i.o"])


# ---- includes ----

def test_a_depfile_is_parsed_as_make_reads_it():
    text = "a.o: /src/a\\ b.cu \\\n  /usr/include/stdio.h ../x/y.h\n/usr/include/stdio.h:\n"
    assert includes.parse_depfile(text) == ["/src/a b.cu", "/usr/include/stdio.h", "../x/y.h"]


def test_kit_files_are_refused_by_any_path_and_system_headers_allowed(tmp_path):
    build = tmp_path / "build"
    (build / "generated").mkdir(parents=True)
    sol = ROOT / "solutions" / "02-tiled" / "matmul.cu"
    link = tmp_path / "innocent"
    link.symlink_to(ROOT)                                    # a symlink into the kit
    header = tmp_path / "elsewhere" / "mine.h"
    header.parent.mkdir()
    header.write_text("")
    allowed = toolchain.system_dirs(build)
    deps = [os.path.relpath(sol, build),                     # relative, resolved from the compile's folder
            str(sol),                                        # absolute
            str(link / "starter" / "02-tiled" / "matmul.cu"),
            str(build / "generated" / "x.h"),                # the build tree (datasets, generated files)
            str(header),                                     # outside the system folders
            "/usr/include/stdio.h",
            str(ROOT / "grader" / "emu" / "include" / "cuda_runtime.h")]
    refused = includes.judge(deps, build, allowed)
    assert refused == ["solutions/02-tiled/matmul.cu (a file of the kit)",
                       "starter/02-tiled/matmul.cu (a file of the kit)", "generated/x.h", str(header)]


def test_the_kits_student_headers_are_allowed_and_its_other_headers_refused(tmp_path):
    """<tilelab/mma_ptx.cuh> (the PTX wrappers) by any path; its neighbours in grader/include stay the kit's."""
    build = tmp_path / "build"
    build.mkdir()
    link = tmp_path / "innocent"
    link.symlink_to(ROOT / "grader" / "include")
    ptx = ROOT / "grader" / "include" / "tilelab" / "mma_ptx.cuh"
    deps = [str(ptx), str(link / "tilelab" / "mma_ptx.cuh"), os.path.relpath(ptx, build),
            str(ROOT / "grader" / "emu" / "include" / "tilelab" / "mma_ptx.cuh"),
            str(ROOT / "grader" / "include" / "tilelab" / "audit.hpp")]
    assert ptx.is_file()
    assert includes.judge(deps, build, includes.system_dirs(build)) == ["grader/include/tilelab/audit.hpp (a file of the kit)"]


def test_an_object_without_a_depfile_cannot_be_verified(tmp_path):
    obj = tmp_path / "x.o"
    obj.write_text("")
    assert includes.check([obj], tmp_path).unverifiable == [str(obj)]


# ---- no process of a grade outlives it ----

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stopping_the_grader_ends_every_process_it_started(tmp_path, sig):
    pidfile = tmp_path / "pid"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(GRADER)!r})
        from tilelab.run import sandbox
        with sandbox.stop_on_signals():
            sandbox.run_limited(["sh", "-c", "sleep 300 & echo $! > {pidfile}; sleep 300"], timeout=600)
    """)
    p = subprocess.Popen([sys.executable, "-c", script])
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.05)
    child = int(pidfile.read_text())
    time.sleep(0.5)     # run_limited is waiting on the command by now (not still inside Popen)
    p.send_signal(sig)
    p.wait(timeout=20)
    assert not _alive(child), Path(f"/proc/{child}/status").read_text()[:300]


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it is not)."""
    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state in "ZX":
            return False
        time.sleep(0.05)
    return True


def test_stop_when_ends_a_run_early():
    t0 = time.monotonic()
    ran = sandbox.run_limited(["sleep", "30"], timeout=60, poll=0.05, stop_when=lambda: time.monotonic() - t0 > 0.3)
    assert ran.stopped and not ran.ok and ran.seconds < 10


# ---- a hang found while the stage's other checks run ----

class _StagedTree:
    """A Tree whose CTest runs are scripted: the first check passes alone; in the second run the
    plain check of w33 passes, w127 hangs, and the code under test forges a `pass` for w128 -- then
    stop_when ends the run before CTest writes its JUnit report."""

    def __init__(self, root: Path, stage):
        self.build, self.results, self.logs, self.jobs = root, root / "results", root / "logs", 2
        self.results.mkdir(parents=True)
        self.stage, self.runs = stage, []

    def runner_targets(self, impl, stage, backend):
        return [f"run-{impl}-{stage}-emu"]

    def begin_build(self, impl, stage):
        return 0.0

    def build_targets(self, targets, log_name, timeout=0):
        return sandbox.Ran(0, 0.1)

    def _write(self, name, verdict):
        import json
        r = fakes.result(self.stage.id, "submission", name.split(".")[2], "emu", verdict)
        (self.results / f"{name}.json").write_text(json.dumps(r))

    def run_tests(self, labels, junit, log_name, timeout, parallel=1, only=None, exclude=None, stop_when=None):
        self.runs.append((only, exclude))
        p = "submission.01-basic."
        if only:
            self._write(only[0], "pass")
            junit.write_text(f'<testsuite><testcase name="{only[0]}" status="run" time="0.1"/></testsuite>')
            return sandbox.Ran(0, 0.1)
        self._write(p + "w33.emu", "pass")
        self._write(p + "w128.emu", "pass")          # forged, or finished: nothing vouches for it
        self._write(p + "w127.emu", "timeout")
        assert stop_when()
        return sandbox.Ran(-9, 9.0, stopped=True)


def test_after_a_hang_the_other_checks_are_not_run_and_unvouched_passes_do_not_count(tmp_path, monkeypatch):
    from tilelab.grading import implementation, options
    from tilelab.run import engine, refusal
    from tilelab.specs import spec
    from tilelab.run.tree import RegisteredTest
    stage = next(s for s in spec.load_all(ROOT) if s.id == "01-basic")
    tree = _StagedTree(tmp_path, stage)
    monkeypatch.setattr(engine.artifacts, "fresh_objects", lambda *a: [tmp_path / "x.o"])
    monkeypatch.setattr(refusal, "refusal", lambda *a: None)
    registered = [RegisteredTest(f"submission.01-basic.{d.name}.{b}", ("submission", "01-basic", "emu", "public"), (), 20)
                  for d in stage.correctness_datasets if d.name != "w1000" for b in ("emu", "emu-asan")]
    score = implementation.grade_stage(tree, stage, "submission", "emu", registered, options.GradeOptions(stages=["01-basic"]))
    assert tree.runs == [(["submission.01-basic.w1.emu"], None), (None, ["submission.01-basic.w1.emu"])]
    by = {c.name: c for c in score.checks}
    assert by["submission.01-basic.w1.emu"].verdict == "pass"                 # vouched for by its own run
    assert by["submission.01-basic.w127.emu"].verdict == "timeout"
    for name in ("w33.emu", "w128.emu", "w129.emu"):
        c = by[f"submission.01-basic.{name}"]
        assert c.verdict == "timeout" and c.message.startswith("not run: the kernel hung on w127"), (name, c)
    assert "hung on w127" in score.error


class _GpuTree(_StagedTree):
    """A GPU stage's CTest runs, scripted: the first check alone, the others side by side (the
    timed one left out), then the timed check in a run of its own; with hang=True the second run finds w127 hung
    and the code under test forges a `pass` for the timed check meanwhile."""

    def __init__(self, root, stage, hang=False):
        super().__init__(root, stage)
        self.hang = hang

    def runner_targets(self, impl, stage, backend):
        return [f"run-{impl}-{stage}-gpu"]

    def run_tests(self, labels, junit, log_name, timeout, parallel=1, only=None, exclude=None, stop_when=None):
        import json
        self.runs.append((only, exclude))
        p, perf = "submission.01-basic.", f"submission.01-basic.{self.stage.performance.dataset}.perf"
        names = only or [p + f"{d}.correct" for d in ("w33", "w128")]
        for n in names:
            r = fakes.result(self.stage.id, "submission", n.split(".")[2], n.split(".")[3], "pass")
            (self.results / f"{n}.json").write_text(json.dumps(r))
        if not only and self.hang:
            (self.results / f"{perf}.json").write_text(json.dumps(fakes.result(self.stage.id, "submission",
                                                                               self.stage.performance.dataset, "perf")))
            r = fakes.result(self.stage.id, "submission", "w127", "correct", "timeout")
            (self.results / f"{p}w127.correct.json").write_text(json.dumps(r))
            assert stop_when()
            return sandbox.Ran(-9, 9.0, stopped=True)
        junit.write_text("<testsuite>" + "".join(f'<testcase name="{n}" status="run" time="0.1"/>' for n in names)
                         + "</testsuite>")
        return sandbox.Ran(0, 0.1)


@pytest.mark.parametrize("hang", [False, True])
def test_a_timed_check_runs_last_in_a_run_of_its_own_that_alone_vouches_for_it(tmp_path, monkeypatch, hang):
    from tilelab.grading import implementation, options
    from tilelab.run import engine, refusal
    from tilelab.specs import spec
    from tilelab.run.tree import RegisteredTest
    stage = next(s for s in spec.load_all(ROOT) if s.id == "01-basic")
    tree = _GpuTree(tmp_path, stage, hang)
    monkeypatch.setattr(engine.artifacts, "fresh_objects", lambda *a: [tmp_path / "x.o"])
    monkeypatch.setattr(refusal, "refusal", lambda *a: None)
    labels = ("submission", "01-basic", "gpu", "public")
    perf = f"submission.01-basic.{stage.performance.dataset}.perf"
    registered = [RegisteredTest(f"submission.01-basic.{d}.correct", labels, (), 20) for d in ("w1", "w33", "w127", "w128")]
    registered.append(RegisteredTest(perf, labels, (), 60))
    score = implementation.grade_stage(tree, stage, "submission", "gpu", registered,
                               options.GradeOptions(stages=["01-basic"]))
    by = {c.name: c for c in score.checks}
    if not hang:
        assert tree.runs == [(["submission.01-basic.w1.correct"], None),
                             (None, ["submission.01-basic.w1.correct", perf]), ([perf], None)]
        assert by[perf].verdict == "pass"
    else:
        assert len(tree.runs) == 2                               # hung: the timed check is not run
        assert by[perf].verdict == "timeout" and by[perf].message.startswith("not run: the kernel hung")


def test_a_system_folders_own_symlink_counts_as_the_folder(tmp_path):
    """Debian 13's /usr/include/x86_64-linux-gnu/asm is a link to /usr/lib/linux/uapi/x86/asm, which
    <memory> reaches through <linux/futex.h>: found through the allowed folder, it is allowed; named
    where it lies, it is not."""
    build = tmp_path / "build"
    build.mkdir()
    (tmp_path / "uapi" / "asm").mkdir(parents=True)
    (tmp_path / "uapi" / "asm" / "types.h").write_text("")
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "asm").symlink_to(tmp_path / "uapi" / "asm")
    allowed = (str(tmp_path / "sys"),)
    assert includes.judge([str(tmp_path / "sys" / "asm" / "types.h")], build, allowed) == []
    assert includes.judge([str(tmp_path / "uapi" / "asm" / "types.h")], build, allowed) == [str(tmp_path / "uapi" / "asm" / "types.h")]
