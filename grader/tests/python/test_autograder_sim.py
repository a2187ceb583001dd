"""Gradescope and PrairieLearn, simulated in their real layouts and entry-point rules (slow: one
real prepared build, then real grading on the CPU emulator).

Gradescope: the autograder zip that `make_zip` writes is unpacked into <root>/autograder/source,
its run_autograder copied to <root>/autograder/run_autograder, and setup.sh's build step run, as
Gradescope does when it builds the image; each case puts files in autograder/submission, runs
autograder/run_autograder directly (no shell, from another folder) and reads
autograder/results/results.json.

PrairieLearn: the same kit and prepared build stand for the grading image; each case builds a
fresh job folder (<root>/grade/{data/data.json, student/, serverFilesCourse/, tests/}, no
results/), runs the entry point of docs/instructor.md as an argument list (PrairieLearn execs it:
no shell, no cd) and reads grade/results/results.json. Only the /grade root is moved, through
TILELAB_PRAIRIELEARN_ROOT, since a test cannot mount a folder at /grade.

Cases on both: a bare matmul.cu, a nested folder, a file that does not compile."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.commands import autograder
from tilelab.report.formats import gradescope as gradescope_format

STAGE = "01-basic"
# The instructor's recipes: not in the student repository (tilelab release), where this is skipped.
DOCS = (ROOT / "docs" / "instructor.md").read_text() if (ROOT / "docs" / "instructor.md").exists() else ""
BROKEN = "#include <cuda_runtime.h>\n__global__ void MatrixMulKernel(float* P) { P[0] = 1.0f }\n"
SECONDS: dict[str, float] = {}    # how long each step took, for the failure messages

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not DOCS or not (ROOT / "solutions").exists(), reason="needs the instructor's kit")]


def _run(step: str, cmd: list[str], env: dict | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """As the platforms do: an argument list, executed directly, from a folder outside the kit."""
    started = time.monotonic()
    p = subprocess.run(cmd, cwd="/", env={**os.environ, **(env or {})}, capture_output=True, text=True,
                       timeout=timeout)
    SECONDS[step] = time.monotonic() - started
    return p


def _unzip(zip_path: Path, dest: Path) -> None:
    """Unpack keeping each file's mode (Python's extractall drops it; Gradescope's unzip keeps it)."""
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(dest / info.filename, mode)


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """The Gradescope image after setup.sh: kit unpacked, its build prepared (shared by every case).
    Under CTest (TILELAB_BUILD_DIR: the kit's build tree) the image lies in that tree, so the
    unpacked kit's build/autograder is inside the checkout's compiler-cache base and at the depth
    of the kit's own build below its root: its compiles are the kit build's commands, and CI's
    cache (.ci/run) has them; in a temporary folder every one is compiled again."""
    kit_build = os.environ.get("TILELAB_BUILD_DIR")
    if kit_build and Path(kit_build).is_dir():
        root = Path(kit_build) / "pytest-platforms"
        shutil.rmtree(root, ignore_errors=True)   # fresh each session, as a temporary folder is
        root.mkdir()
    else:
        root = tmp_path_factory.mktemp("platforms")
    ag = root / "autograder"
    cfg = autograder.AutograderConfig(stages=[STAGE], backend="emu", timeout=300)
    autograder.make_zip(root / "autograder.zip", cfg)
    _unzip(root / "autograder.zip", ag / "source")
    shutil.copy2(ag / "source" / "run_autograder", ag / "run_autograder")
    kit = ag / "source" / "tilelab"
    for made in (".venv", ".deps"):   # what setup.sh's install-deps.sh makes (.deps: -dev packages without root)
        if (ROOT / made).exists():
            (kit / made).symlink_to((ROOT / made).resolve())
    prepare = "./tilelab gradescope --prepare"
    assert prepare in gradescope_format.SETUP_SH
    started = time.monotonic()
    p = subprocess.run(prepare.split(), cwd=kit, capture_output=True, text=True, timeout=1500)
    SECONDS["prepare"] = time.monotonic() - started
    assert p.returncode == 0, p.stdout + p.stderr
    assert (kit / "build" / "autograder" / "runners").is_dir()
    return root


def _solution() -> str:
    return (ROOT / "solutions" / STAGE / "matmul.cu").read_text()


def _place(folder: Path, files: dict[str, str]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


CASES = {"bare": {"matmul.cu": None}, "nested": {f"hw3-alice/starter/{STAGE}/matmul.cu": None},
         "broken": {"matmul.cu": BROKEN}}


def _files(case: str) -> dict[str, str]:
    return {rel: text or _solution() for rel, text in CASES[case].items()}


# ---- Gradescope ----

def _total(doc: dict) -> float:
    """The submission's total as Gradescope takes it: the top-level score, or, where the graded
    questions' tests wait for the due date and score is left out, the sum of the tests' scores."""
    return doc["score"] if "score" in doc else sum(t["score"] for t in doc["tests"])


def gradescope_case(image: Path, case: str) -> dict:
    ag = image / "autograder"
    _place(ag / "submission", _files(case))
    shutil.rmtree(ag / "results", ignore_errors=True)
    (ag / "results").mkdir()
    p = _run(f"gradescope {case}", [str(ag / "run_autograder")])
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads((ag / "results" / "results.json").read_text())


@pytest.mark.parametrize("case", ["bare", "nested"])
def test_gradescope_grades_a_correct_kernel_in_full(image, case):
    doc = gradescope_case(image, case)
    tests = [t for t in doc["tests"] if STAGE in t["tags"] and "perf" not in t["tags"]]
    # The kernel's checks in full; the stage's questions (no answers.toml handed in) each say how
    # to answer them and score nothing.
    checks = [t for t in tests if not t["name"].endswith(": question")]
    questions = [t for t in tests if t["name"].endswith(": question")]
    assert checks, doc["output"]
    bad = [(t["name"], t["output"][:200]) for t in checks if t["status"] != "passed" or t["score"] != t["max_score"]]
    assert not bad, bad
    assert all(t["score"] == 0 for t in questions), questions
    assert not questions or any("tilelab quiz" in t["output"] for t in questions) or "tilelab quiz" in doc["output"]
    assert _total(doc) == pytest.approx(sum(t["max_score"] for t in checks), abs=0.01) and _total(doc) > 0


def test_gradescope_a_broken_file_scores_zero_and_shows_the_compiler_error(image):
    doc = gradescope_case(image, "broken")
    assert _total(doc) == 0
    text = doc["output"] + "".join(t["output"] for t in doc["tests"])
    assert re.search(rf"{STAGE}/matmul\.cu:2:\d+: error", text), text[:2000]
    assert str(image) not in text, "the student sees no path of the grading machine"


# ---- PrairieLearn ----

def question_options() -> dict:
    """externalGradingOptions of the question's info.json, as docs/instructor.md gives it."""
    m = re.search(r"```json\n(.*?\"externalGradingOptions\".*?)```", DOCS, re.S)
    assert m, "docs/instructor.md gives a question's info.json in a json block"
    return json.loads("{" + m.group(1) + "}")["externalGradingOptions"]


def entrypoint(kit: Path) -> list[str]:
    """The question's entry point, from docs/instructor.md (with the kit where the test put it)."""
    cmd = question_options()["entrypoint"]
    assert isinstance(cmd, list) and cmd[0].startswith("/") and cmd[0].endswith("/tilelab"), \
        "an argument list whose first item is the kit's launcher, by absolute path"
    return [str(kit / "tilelab"), *cmd[1:]]


def prairielearn_case(image: Path, case: str) -> tuple[dict, list[str]]:
    grade = image / "grade"
    shutil.rmtree(grade, ignore_errors=True)
    _place(grade / "student", _files(case))
    _place(grade / "data", {"data.json": json.dumps({"params": {}, "submitted_answers": {}})})
    _place(grade / "serverFilesCourse", {})
    _place(grade / "tests", {})
    before = {p for p in grade.rglob("*")}
    p = _run(f"prairielearn {case}", entrypoint(image / "autograder" / "source" / "tilelab"),
             {"TILELAB_PRAIRIELEARN_ROOT": str(grade)})
    assert p.returncode == 0, p.stdout + p.stderr
    new = sorted(str(q.relative_to(grade)) for q in set(grade.rglob("*")) - before)
    return json.loads((grade / "results" / "results.json").read_text()), new


@pytest.mark.parametrize("case", ["bare", "nested"])
def test_prairielearn_grades_a_correct_kernel_in_full(image, case):
    doc, new = prairielearn_case(image, case)
    assert new == ["results", "results/results.json"], "nothing but the results is written under /grade"
    assert doc["gradable"] is True, doc
    checks = [t for t in doc["tests"] if not t["name"].endswith((": perf", ": question"))]
    bad = [(t["name"], t["message"]) for t in checks if t["points"] != t["max_points"]]
    assert checks and not bad, bad
    assert doc["score"] > 0
    # The question's timeout (docs/instructor.md) leaves room for a slower grading machine.
    limit = question_options().get("timeout", 30)   # PrairieLearn's default: 30 s
    assert SECONDS[f"prairielearn {case}"] < limit / 2, SECONDS


def test_prairielearn_a_broken_file_is_not_gradable_and_says_why(image):
    doc, new = prairielearn_case(image, "broken")
    assert doc["gradable"] is False
    errors = "\n".join(doc["format_errors"])
    assert re.search(rf"{STAGE}/matmul\.cu:2:\d+: error", errors), errors[:2000]
    assert str(image) not in errors


