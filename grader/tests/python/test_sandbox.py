"""Untrusted code: time and memory limits end the whole process group; forbidden calls are found
in the compiled object; submissions are copied safely (zips included)."""

import sys
import zipfile

import pytest

from tilelab.run import allowlist, sandbox, submission


def test_a_command_runs_and_its_output_is_kept(tmp_path):
    ran = sandbox.run_limited([sys.executable, "-c", "print('hi')"], timeout=30, log=tmp_path / "x.log")
    assert ran.ok and "hi" in ran.output and "hi" in (tmp_path / "x.log").read_text()


def test_a_hang_is_ended_with_its_children(tmp_path):
    marker = tmp_path / "child-alive"
    code = ("import subprocess, sys, time; "
            f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3); open(r\"{marker}\", \"w\")']); "
            "time.sleep(60)")
    ran = sandbox.run_limited([sys.executable, "-c", code], timeout=0.5, poll=0.05)
    assert ran.timed_out and not ran.ok and ran.seconds < 10
    import time
    time.sleep(0.2)
    assert not marker.exists()


def test_memory_over_the_limit_is_ended():
    code = "import time; b = bytearray(300 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(30)"
    ran = sandbox.run_limited([sys.executable, "-c", code], timeout=20, memory_bytes=100 << 20, poll=0.05)
    assert ran.out_of_memory and not ran.ok


def test_a_missing_program_is_a_result_not_an_exception():
    ran = sandbox.run_limited(["/nonexistent/tool"], timeout=5)
    assert ran.returncode == 127 and not ran.ok


@pytest.mark.parametrize("symbol, bad", [
    ("cublasSgemm_v2", True), ("cublasLtMatmul", True), ("cudnnCreate", True), ("dlopen", True),
    ("system", True), ("popen", True), ("execve", True), ("fopen", True), ("socket", True),
    ("std::basic_ofstream<char, std::char_traits<char> >::basic_ofstream()", True),
    ("cudaMalloc", False), ("cudaMemcpy", False), ("fprintf", False), ("__cudaLaunchKernel", False),
    ("systemd_thing", True), ("printf", False), ("exit", False)])   # an allow-list refuses what it does not list
def test_forbidden_symbols(symbol, bad):
    assert (allowlist.classify(symbol) is not None) == bad


def test_submission_files_are_found_at_any_depth(tmp_path):
    sub = tmp_path / "alice" / "my-work"
    (sub / "01-basic").mkdir(parents=True)
    (sub / "01-basic" / "matmul.cu").write_text("one")
    (sub / "notes.txt").write_text("ignored")
    m = submission.materialize(tmp_path / "alice", tmp_path / "out", ["01-basic", "02-tiled"])
    assert m.stages == ["01-basic"] and (m.root / "01-basic" / "matmul.cu").read_text() == "one"
    assert not (m.root / "notes.txt").exists()
    again = submission.materialize(tmp_path / "alice", tmp_path / "out2", ["01-basic", "02-tiled"])
    assert again.digest == m.digest
    (sub / "01-basic" / "matmul.cu").write_text("changed")
    assert submission.digest_of(tmp_path / "alice", ["01-basic", "02-tiled"]) != m.digest


def test_a_lone_file_counts_for_a_single_stage(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "matmul.cu").write_text("x")
    assert submission.materialize(tmp_path / "s", tmp_path / "o", ["02-tiled"]).stages == ["02-tiled"]
    assert submission.materialize(tmp_path / "s", tmp_path / "o", ["01-basic", "02-tiled"]).stages == []


def test_zips_are_read_and_unsafe_ones_refused(tmp_path):
    good = tmp_path / "bob.zip"
    with zipfile.ZipFile(good, "w") as z:
        z.writestr("bob/01-basic/matmul.cu", "kernel")
    m = submission.materialize(good, tmp_path / "o", ["01-basic"])
    assert m.stages == ["01-basic"]
    evil = tmp_path / "eve.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../../escape/01-basic/matmul.cu", "x")
    with pytest.raises(submission.SubmissionError, match="unsafe path"):
        submission.materialize(evil, tmp_path / "o2", ["01-basic"])
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(submission.SubmissionError, match="not a readable zip"):
        submission.materialize(tmp_path / "junk.zip", tmp_path / "o3", ["01-basic"])


def test_discover_lists_folders_and_zips(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "bob.zip").write_bytes(b"")
    (tmp_path / "readme.txt").write_text("")
    assert [s.name for s in submission.discover(tmp_path)] == ["alice", "bob"]
    (tmp_path / "alice.zip").write_bytes(b"")
    with pytest.raises(submission.SubmissionError, match="share a name"):
        submission.discover(tmp_path)


def test_untrusted_commands_do_not_run_as_root():
    """As root, an unprivileged command runs as the sandbox user in the folder handed to it; as
    anyone else it runs as that user, and the log says why."""
    import os
    import tempfile
    from pathlib import Path
    work = Path(tempfile.mkdtemp(prefix="tilelab-sandbox-"))   # not below pytest's root-only folder
    code = "import os, pathlib; pathlib.Path('made').write_text('x'); print('uid', os.getuid())"
    ran = sandbox.run_limited([sys.executable, "-c", code], timeout=30, cwd=work, unprivileged=True,
                              writable=(work,), readable=(sys.executable,), log=work / "log")
    user, why = sandbox.sandbox_user((sys.executable,))
    if os.geteuid() != 0:
        assert user is None and ran.ok and f"uid {os.getuid()}" in ran.output
        return
    if user is None:
        pytest.skip(f"no sandbox user here: {why}")
    assert ran.ok, ran.output
    assert f"uid {user.uid}" in ran.output and user.uid != 0
    assert (work / "made").stat().st_uid == user.uid and work.stat().st_uid == user.uid
    assert f"as user {user.name!r}" in (work / "log").read_text().splitlines()[0]


def test_the_sandbox_user_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("TILELAB_SANDBOX_USER", "")
    user, why = sandbox.sandbox_user(())
    assert user is None and why


def test_a_folder_made_for_the_step_is_reachable(tmp_path_factory):
    """The first check of a grade creates results/ and Testing/: the step that makes them must
    still run as the sandbox user (the probe is not cached across steps)."""
    import os
    import tempfile
    from pathlib import Path
    if os.geteuid() != 0 or sandbox.sandbox_user((sys.executable,))[0] is None:
        pytest.skip("needs root and a sandbox user")
    tree = Path(tempfile.mkdtemp(prefix="tilelab-tree-"))
    tree.chmod(0o755)
    new = tree / "results"
    assert sandbox.sandbox_user((str(new),))[0] is None          # not there yet
    ran = sandbox.run_limited([sys.executable, "-c", "import os; print('uid', os.getuid())"], timeout=30,
                              unprivileged=True, writable=(new,), readable=(sys.executable, str(new)))
    assert ran.ok and "uid 0" not in ran.output


def test_running_code_writes_only_where_it_is_handed(tmp_path_factory):
    """The test step takes the tree back and hands over only its results folder: the code under
    test can write a result, but cannot replace a runner the next checks will use."""
    import os
    import tempfile
    from pathlib import Path
    user, why = sandbox.sandbox_user((sys.executable,))
    if user is None:
        pytest.skip(f"no sandbox user here: {why}")
    tree = Path(tempfile.mkdtemp(prefix="tilelab-tree-"))
    (tree / "runners").mkdir()
    (tree / "runners" / "run").write_text("the runner")
    sandbox.hand_over(user.uid, user.gid, tree)          # as after a build step
    code = ("import pathlib, sys\n"
            "t = pathlib.Path(sys.argv[1])\n"
            "(t / 'results' / 'r.json').write_text('{}')\n"
            "for p in (t / 'runners' / 'run', t / 'runners' / 'new'):\n"
            "    try:\n"
            "        p.write_text('forged'); print('wrote', p.name)\n"
            "    except PermissionError:\n"
            "        print('refused', p.name)\n")
    ran = sandbox.run_limited([sys.executable, "-c", code, str(tree)], timeout=30, unprivileged=True,
                              writable=(tree / "results",), protected=(tree,), readable=(sys.executable,))
    assert ran.ok, ran.output
    assert "refused run" in ran.output and "refused new" in ran.output
    assert (tree / "runners" / "run").read_text() == "the runner"
    assert (tree / "results" / "r.json").exists() and (tree / "runners").stat().st_uid == os.geteuid()


def test_a_tree_the_sandbox_user_cannot_reach_runs_as_the_grader(tmp_path):
    """Below a folder only root may enter (pytest's own tmp_path, as root) nothing would build as
    the sandbox user: the step stays the grader's, and the log says why."""
    import os
    if os.geteuid() != 0 or sandbox.sandbox_user((sys.executable,))[0] is None:
        pytest.skip("needs root and a sandbox user")
    hidden = tmp_path / "locked"
    hidden.mkdir(mode=0o700)
    tree = hidden / "tree"
    tree.mkdir()
    ran = sandbox.run_limited([sys.executable, "-c", "import os; print('uid', os.getuid())"], timeout=30,
                              unprivileged=True, writable=(tree,), readable=(sys.executable, str(tree)),
                              log=tmp_path / "log")
    assert ran.ok and "uid 0" in ran.output
    assert "cannot read" in (tmp_path / "log").read_text().splitlines()[0]
