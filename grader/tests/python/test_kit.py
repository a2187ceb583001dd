"""The prebuilt kit (tilelab.run.kit): keyed by its inputs, built once by the grader, read-only after,
a failed build reported with its log and not tried again for every submission, and the batch
handing it to each submission's grade. The real build runs in kit.slurm and the batch's slow tests;
here the build tool is faked."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tilelab.commands import batch
from tilelab.grading import classbatch
from tilelab.run import kit, tree
from tilelab.grading.options import GradeOptions
from tilelab.run.sandbox import Ran


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setattr(kit, "_failed", {})


def _fake_build(calls, ok=True, leave_out=False):
    def run(cmd, timeout=None, log=None, **kw):
        calls.append(cmd)
        if "--build" in cmd:
            build = Path(cmd[cmd.index("--build") + 1])
            (build / "runners").mkdir(parents=True, exist_ok=True)
            (build / "runners" / "tilelab-judge").write_text("#!/bin/sh\n")
            (build / "runners" / "tilelab-judge").chmod(0o700)
            (build / "tilelab-kit.cmake").write_text("# settings\n")
            objs = [build / "worker.cpp.o", build / "sandbox.cpp.o"]
            for o in objs[: 1 if leave_out else 2]:
                o.write_text("")
            (build / "tilelab-kit-targets.cmake").write_text(
                f'set_target_properties(tilelab-judge PROPERTIES\n  IMPORTED_LOCATION_RELEASE "{build}/runners/tilelab-judge"\n  )\n'
                f'set_target_properties(tilelab_worker_gpu_under_test PROPERTIES\n'
                f'  IMPORTED_OBJECTS_RELEASE "{objs[0]};{objs[1]}"\n  )\n')
        return Ran(0 if ok else 1, 0.1, output="" if ok else "error: the kit's own source does not compile")
    return run


def test_the_folder_is_keyed_by_the_inputs(tmp_path, monkeypatch):
    emu, gpu = kit.folder(tmp_path, "emu"), kit.folder(tmp_path, "gpu")
    assert emu != gpu and emu.parent == gpu.parent == tmp_path.resolve()
    assert kit.folder(tmp_path, "emu") == emu                        # stable
    monkeypatch.setattr(kit.identity, "digest", lambda root=None: "another grader")
    assert kit.folder(tmp_path, "emu") != emu                        # a changed kit: another folder


def test_a_ready_kit_is_not_built_again(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(kit, "run_limited", _fake_build(calls))
    path = kit.ensure(tmp_path, "emu", note=lambda s: None)
    assert kit.ready(path) and len(calls) == 2                       # configure, build
    assert kit.ensure(tmp_path, "emu", note=lambda s: None) == path and len(calls) == 2


def test_the_built_kit_is_read_only(tmp_path, monkeypatch):
    monkeypatch.setattr(kit, "run_limited", _fake_build([]))
    path = kit.ensure(tmp_path, "emu", note=lambda s: None)
    judge = path / "runners" / "tilelab-judge"
    for p in (judge, judge.parent, path / "tilelab-kit.cmake"):
        mode = p.stat().st_mode
        assert not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), p
        assert mode & stat.S_IROTH, p                                  # the sandbox user reads it
    assert judge.stat().st_mode & stat.S_IXOTH                         # and runs the judge
    kit.prune(tmp_path, keep=tmp_path / "none")                        # an old kit can still be removed
    assert not path.exists()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv (the sandbox user)")
def test_the_sandbox_user_cannot_write_the_kit(monkeypatch):
    import tempfile
    root = Path(tempfile.mkdtemp(prefix="tilelab-kit-test-", dir="/tmp"))   # pytest's tmp_path is 0700 to others
    root.chmod(0o755)
    monkeypatch.setattr(kit, "run_limited", _fake_build([]))
    try:
        _sandbox_user_cannot_write(kit.ensure(root, "emu", note=lambda s: None))
    finally:
        kit.prune(root, keep=root / "none")
        shutil.rmtree(root, ignore_errors=True)


def _sandbox_user_cannot_write(path):
    nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    for target in (path / "runners" / "tilelab-judge", path / "runners" / "ref-01-basic-emu-count"):
        r = subprocess.run([*nobody, "sh", "-c", f"echo x > '{target}'"], capture_output=True, text=True)
        assert r.returncode != 0 and "denied" in r.stderr.lower(), (target, r.stderr)
    r = subprocess.run([*nobody, "cat", str(path / "tilelab-kit.cmake")], capture_output=True, text=True)
    assert r.returncode == 0


def test_a_kit_that_does_not_build_is_reported_once(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(kit, "run_limited", _fake_build(calls, ok=False))
    with pytest.raises(kit.KitError, match=r"(?s)did not build for the emu backend.*logs.*does not compile"):
        kit.ensure(tmp_path, "emu", note=lambda s: None)
    n = len(calls)
    with pytest.raises(kit.KitError):
        kit.ensure(tmp_path, "emu", note=lambda s: None)
    assert len(calls) == n                                             # not built again for the next submission


def test_a_kit_whose_build_left_out_an_exported_file_is_refused(tmp_path, monkeypatch):
    """The GPU worker's main missing from the kit target: every submission's tree failed to link
    (found on an H200, 2026-11-26); now the kit's build says so, once, before any grade."""
    monkeypatch.setattr(kit, "run_limited", _fake_build([], leave_out=True))
    with pytest.raises(kit.KitError, match=r"left out 1 file.*sandbox\.cpp\.o"):
        kit.ensure(tmp_path, "gpu", note=lambda s: None)
    assert not kit.ready(kit.folder(tmp_path, "gpu"))


def test_a_half_built_kit_is_built_from_nothing(tmp_path, monkeypatch):
    path = kit.folder(tmp_path, "emu")
    (path / "runners").mkdir(parents=True)
    (path / "runners" / "left-by-an-interrupted-build").write_text("")
    monkeypatch.setattr(kit, "run_limited", _fake_build([]))
    kit.ensure(tmp_path, "emu", note=lambda s: None)
    assert not (path / "runners" / "left-by-an-interrupted-build").exists()


def test_a_grade_whose_kit_does_not_build_is_an_error_naming_it(tmp_path, monkeypatch):
    from tilelab.grading import implementation
    monkeypatch.setattr(kit, "run_limited", _fake_build([], ok=False))
    sub = tmp_path / "sub" / "01-basic"
    sub.mkdir(parents=True)
    (sub / "matmul.cu").write_text("// a kernel\n")
    r = implementation.grade(GradeOptions(stages=["01-basic"], submission=sub.parent, backend="emu",
                               build_dir=tmp_path / "tree", kit_root=tmp_path / "kits"))
    assert r.status == "error" and "the kit did not build" in r.message


def test_the_batch_hands_its_kit_to_every_grade(tmp_path):
    seen = []

    def grader(go):
        seen.append(go.kit_root)
        from tilelab.report.model import GradeReport
        return GradeReport(go.name, "submission", go.backend)

    for name in ("ada", "bob"):
        (tmp_path / "subs" / name / "01-basic").mkdir(parents=True)
        (tmp_path / "subs" / name / "01-basic" / "matmul.cu").write_text(f"// {name}\n")
    out = tmp_path / "out"
    batch.run_batch(tmp_path / "subs", classbatch.BatchOptions(out=out, backend="emu", stages=["01-basic"]), grader=grader)
    assert seen == [(out / ".kit").resolve()] * 2
    seen.clear()
    batch.run_batch(tmp_path / "subs", classbatch.BatchOptions(out=out, backend="emu", stages=["01-basic"], regrade=True,
                                                          prebuilt_kit=False), grader=grader)
    assert seen == [None, None]


def test_no_kit_path_reaches_a_student():
    text = "In file included from /srv/grading/out/.kit/kit-gpu-0123456789abcdef/generated/include/contract.hpp:3:"
    assert tree.scrub(text) == "In file included from kit/generated/include/contract.hpp:3:"
