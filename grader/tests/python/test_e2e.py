"""One real end-to-end run (slow: configure, compile, CTest): the reference solution of the first
stage, handed in as a student submission, is graded without a single failure. Without a GPU the
checks are skipped (or run on the CPU emulator, when it is built), never failed."""

import os
import shutil

import pytest

from tilelab import ROOT
from tilelab.grading import implementation, options
from tilelab.report import formats
from tilelab.specs import spec


@pytest.mark.slow
def test_the_reference_solution_as_a_submission_loses_nothing(tmp_path, grading_tree):
    first = spec.load_all(ROOT)[0].id
    sub = tmp_path / "student" / first
    sub.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / first / "matmul.cu", sub / "matmul.cu")
    def run(backend):
        # "auto": the tree test_check built, when it ran first (the shared objects are not rebuilt).
        return implementation.grade(options.GradeOptions(stages=[first], submission=tmp_path / "student", name="e2e",
                                            backend=backend, jobs=2, isolate_network=True,
                                            build_dir=grading_tree if backend == "auto" else tmp_path / "build-gpu"))
    report = run("auto")
    if "no emu checks are registered" in report.stages[0].error:
        if not shutil.which("nvcc") and not os.path.exists("/usr/local/cuda/bin/nvcc"):
            pytest.skip("neither the CPU emulator nor nvcc is available here")
        report = run("gpu")  # no GPU: the GPU runner still builds, and its checks skip
    assert report.status == "graded", report.message
    (stage,) = report.stages
    assert not stage.error, stage.error
    kernel = [c for c in stage.checks if c.check != "question"]   # no answers.toml handed in: those score 0
    assert {c.verdict for c in kernel} <= {"pass", "skipped"}, [(c.name, c.verdict, c.message) for c in kernel]
    assert {c.verdict for c in stage.checks if c.check == "question"} <= {"missing", "skipped"}
    written = formats.write(report, tmp_path / "out", ("gradescope", "grade", "html"))
    assert len(written) == 3
