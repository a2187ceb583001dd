"""The student repository: no solutions, no seed, starter built by every preset; it still loads."""

import json
import subprocess
import sys

import pytest

from tilelab import ROOT, release, spec

pytestmark = pytest.mark.skipif(not (ROOT / "solutions").exists(), reason="needs the instructor's kit")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return release.make(tmp_path_factory.mktemp("rel") / "student").out


def test_nothing_secret_ships(out):
    assert not (out / "solutions").exists()
    assert not (out / "docs" / "instructor.md").exists()
    assert release.leaks(out) == []
    assert not list(out.rglob("__pycache__"))


def test_what_students_need_ships(out):
    for sid in (s.id for s in spec.load_all(ROOT)):
        assert (out / "assignments" / sid / "stage.toml").exists()
        if (ROOT / "starter" / sid / "matmul.cu").exists():
            assert (out / "starter" / sid / "matmul.cu").read_text() == (ROOT / "starter" / sid / "matmul.cu").read_text()
    for f in ("CMakeLists.txt", "CMakePresets.json", "tilelab", "grader/tilelab/cli.py", "datasets/generate.cpp"):
        assert (out / f).exists(), f
    assert (out / "tilelab").stat().st_mode & 0o111, "the launcher stays executable"


def test_presets_build_the_starter_without_a_seed(out):
    doc = json.loads((out / "CMakePresets.json").read_text())
    for p in doc["configurePresets"]:
        cv = p.get("cacheVariables", {})
        assert cv.get("TILELAB_GRADING_SEED", "") == ""
        assert cv.get("TILELAB_IMPLS", "starter") == "starter"


def test_the_release_reads_its_own_specs(out):
    code = "from tilelab import spec, ROOT; print(len(spec.load_all(ROOT)), ROOT)"
    p = subprocess.run([sys.executable, "-c", code], cwd=out / "grader", capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(len(spec.load_all(ROOT))) and str(out) in p.stdout


def test_leaks_are_caught(out, tmp_path):
    sol = next((ROOT / "solutions").glob("*/matmul.cu"))
    (out / "starter" / "copy.cu").write_text(sol.read_text())
    try:
        assert any("solution" in x for x in release.leaks(out))
    finally:
        (out / "starter" / "copy.cu").unlink()


def test_near_copies_are_caught(out):
    """A solution with one line changed (a known-bad submission, a mutant) still gives it away."""
    sol = ROOT / "solutions" / "06-register-tiled" / "matmul.cu"
    text = sol.read_text().replace("(K % 4 == 0) && (L % 4 == 0)", "true")
    (out / "starter" / "near.cu").write_text("// my own work\n" + text)
    try:
        assert any("06-register-tiled solution" in x and "near.cu" in x for x in release.leaks(out))
    finally:
        (out / "starter" / "near.cu").unlink()


def test_the_known_bad_suite_is_not_shipped(out):
    assert (ROOT / "grader" / "tests" / "submissions").is_dir()
    assert not (out / "grader" / "tests" / "submissions").exists()


def test_an_existing_folder_is_not_overwritten_by_accident(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep").write_text("")
    with pytest.raises(FileExistsError):
        release.make(tmp_path / "x")
