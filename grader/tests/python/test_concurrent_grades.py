"""Two `./tilelab grade` runs started together in one build tree (slow: real configure, compile,
CTest on the CPU emulator): a correct kernel and a transposed one each get their own verdict, the
second grade waits for the first (tree.exclusive) and says so, and nothing either prints names the
checkout's absolute path.

Before the tree was held for a whole grade, the two overwrote each other's copy of the submission,
objects, runners and results: the correct kernel was given the buggy one's "every element is wrong",
or "it does not compile" with the grading machine's paths in the message."""

import json
import shutil
import subprocess
import time

import pytest

from tilelab import ROOT

STAGE = "01-basic"


def _submission(folder, source):
    (folder / STAGE).mkdir(parents=True)
    shutil.copy(source, folder / STAGE / "matmul.cu")
    return folder


@pytest.mark.slow
def test_two_grades_started_together_in_one_tree_each_get_their_own_verdict(tmp_path, grading_tree, capsys):
    subs = {"good": _submission(tmp_path / "good", ROOT / "solutions" / STAGE / "matmul.cu"),
            "bad": _submission(tmp_path / "bad", ROOT / "grader/tests/submissions/swapped-row-col" / STAGE / "matmul.cu")}
    started = time.monotonic()
    # The same tree for both, as two `./tilelab grade --submission` in one checkout share
    # build/grade-submission-emu; each writes its files to its own --out to be read here.
    procs = {name: subprocess.Popen([str(ROOT / "tilelab"), "grade", STAGE, "--submission", str(sub),
                                     "--backend", "emu", "--jobs", "2", "--build-dir", str(grading_tree),
                                     "--out", str(tmp_path / f"out-{name}")],
                                    cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name, sub in subs.items()}
    outs = {name: p.communicate(timeout=1500) for name, p in procs.items()}
    took = time.monotonic() - started
    with capsys.disabled():
        print(f"\ntwo concurrent grades of {STAGE} in one tree: {took:.1f} s")
    reports = {name: json.loads((tmp_path / f"out-{name}" / "grade.json").read_text()) for name in subs}

    def kernel_checks(report):
        (stage,) = report["stages"]
        return stage, [c for c in stage["checks"] if c["check"] != "question"]

    stage, good = kernel_checks(reports["good"])
    assert procs["good"].returncode in (0, 1), outs["good"]   # 1: no answers.toml, its questions score 0
    assert not stage["error"] and good and {c["verdict"] for c in good} <= {"pass", "skipped"}, \
        [(c["name"], c["verdict"], c["message"]) for c in good if c["verdict"] != "pass"]
    stage, bad = kernel_checks(reports["bad"])
    assert procs["bad"].returncode == 1, outs["bad"]
    assert not stage["error"], stage["error"]
    assert "wrong" in {c["verdict"] for c in bad}, [(c["name"], c["verdict"]) for c in bad]
    assert not any(c["verdict"] == "compile" for c in good + bad)

    # One took the tree, the other waited for it and said so, once, on stderr.
    waits = [err.count("waiting for another grade using") for _, err in outs.values()]
    assert sorted(waits) == [0, 1], outs
    # Nothing printed, and no message of either report, names the checkout or the build tree.
    for name, (out, err) in outs.items():
        assert str(ROOT) not in out + err, (name, out, err)
    for name, report in reports.items():
        for stage in report["stages"]:
            texts = [stage["error"], *(c["message"] + c["hint"] for c in stage["checks"])]
            leaked = [t for t in texts if str(ROOT) in t or str(grading_tree) in t]
            assert not leaked, (name, leaked)
