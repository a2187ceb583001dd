"""The student repository: no solutions, no seed, starter built by every preset; it still loads."""

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.commands import autograder, release
from tilelab.specs import spec

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
    # The grader's package whole (its HTML templates too), but for the student README's template.
    for f in (ROOT / "grader" / "tilelab").rglob("*"):
        rel = f.relative_to(ROOT)
        if f.is_file() and f.suffix != ".pyc" and "__pycache__" not in rel.parts and f.name != release.README_TEMPLATE:
            assert (out / rel).exists(), rel


def test_presets_build_the_starter_without_a_seed(out):
    doc = json.loads((out / "CMakePresets.json").read_text())
    for p in doc["configurePresets"]:
        cv = p.get("cacheVariables", {})
        assert cv.get("TILELAB_GRADING_SEED", "") == ""
        assert cv.get("TILELAB_IMPLS", "starter") == "starter"


def test_the_release_reads_its_own_specs(out):
    code = "from tilelab import ROOT; from tilelab.specs import spec; print(len(spec.load_all(ROOT)), ROOT)"
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


def test_the_models_held_out_kernels_are_not_shipped(out):
    """Working kernels: every held-out set of the performance model's validation, as
    model_variants.SETS lists them (docs/performance.md, "Validation"), is instructor material."""
    sys.path.insert(0, str(ROOT / "grader" / "model-validation"))
    import model_variants
    assert len(model_variants.HELDOUT_SETS) >= 9
    for folder in model_variants.HELDOUT_SETS.values():
        assert (folder / "heldout.toml").is_file()
        assert not (out / folder.relative_to(ROOT)).exists()
    assert (out / "grader" / "model-validation" / "model_variants.py").is_file()


def test_an_existing_folder_is_not_overwritten_by_accident(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep").write_text("")
    with pytest.raises(FileExistsError):
        release.make(tmp_path / "x")
    with pytest.raises(FileExistsError):   # --force never replaces the kit itself
        release.make(ROOT.parent, force=True)


# ---- a copy of the kit as a git checkout, to plant what an instructor leaves lying around ----

def _git(kit, *args):
    subprocess.run(["git", "-C", str(kit), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   check=True, capture_output=True)


@pytest.fixture
def kit(tmp_path):
    dst = tmp_path / "kit"
    for name in release.source_files(ROOT):
        if Path(name).parts[0] in release.EXCLUDE_TOP - {"solutions"}:
            continue
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dst / name)
    _git(dst, "init", "-q")
    _git(dst, "add", "-A")
    _git(dst, "commit", "-qm", "kit")
    return dst


def _autograder_zip(kit, path, seed="123"):
    autograder.make_zip(path, autograder.AutograderConfig(seed=seed), root=kit)
    return path


def test_what_git_does_not_track_never_ships(kit, tmp_path):
    """The issue's case: an autograder.zip (every solution, "seed": "123") made in the kit's root
    and a batch's grades/ went into the student repository with exit 0 and no warning."""
    _autograder_zip(kit, kit / "autograder.zip")
    (kit / "grades" / "students" / "alice").mkdir(parents=True)
    (kit / "grades" / "students" / "alice" / "done.json").write_text('{"seed": "123"}\n')
    (kit / "docs" / "notes-for-me.md").write_text("grade with --seed 123\n")
    rel = release.make(tmp_path / "student", root=kit)
    assert rel.ok, rel.problems
    assert not (rel.out / "autograder.zip").exists() and not (rel.out / "grades").exists()
    assert not (rel.out / "docs" / "notes-for-me.md").exists()
    assert {"autograder.zip", "grades/students/alice/done.json", "docs/notes-for-me.md"} <= set(rel.not_tracked)


@pytest.mark.parametrize("kind", ["zip", "tar.gz", "zip-in-tar"])
def test_a_shipped_archive_with_solutions_and_a_seed_is_refused(kit, tmp_path, kind):
    """Archives are opened (whatever their name), nested ones too; nothing is written to OUT."""
    made = _autograder_zip(kit, tmp_path / "autograder.zip")
    dst = kit / "docs" / f"handouts.{kind.split('-')[-1]}"
    if kind == "zip":
        shutil.copy(made, dst)
    else:
        with tarfile.open(dst, "w:gz") as t:
            if kind == "tar.gz":
                t.add(kit / "solutions" / "02-tiled" / "matmul.cu", "old/02.cu")
                t.add(kit / "CMakePresets.json", "old/CMakePresets.json")
            else:
                t.add(made, "old/autograder.zip")
    _git(kit, "add", "-A")
    out = tmp_path / "student"
    rel = release.make(out, root=kit)
    assert not rel.ok and not out.exists()
    named = [p for p in rel.problems if p.startswith(f"docs/{dst.name}!")]
    assert any("solution" in p for p in named), rel.problems
    assert any("grading seed" in p for p in named), rel.problems
    if kind != "zip":
        return
    # The kit here has no .venv: its launcher takes python3 on PATH, this interpreter's (whose packages
    # the grader needs: tomli below 3.11), not the system's.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    p = subprocess.run([str(kit / "tilelab"), "release", str(out)], capture_output=True, text=True, cwd=kit,
                       env={**os.environ, "PATH": path})
    assert p.returncode == 1 and f"LEAK: docs/{dst.name}!" in p.stdout and not out.exists(), p.stdout


def test_a_seed_given_to_a_command_is_found(kit, tmp_path):
    """`grade --seed 4242` leaves the seed in its build tree's cache; a page holding it is refused,
    and so is any config that sets a grading seed, even one not known here."""
    cache = kit / "build" / "grade-solution-emu" / "CMakeCache.txt"
    cache.parent.mkdir(parents=True)
    var = "TILELAB_GRADING_SEED"   # (a literal setting here would itself be refused: this file ships)
    cache.write_text(f"{var}:STRING=4242\n")
    (kit / "docs" / "notes.md").write_text("Graded with `--seed 4242`.\n")
    (kit / "grader" / "tilelab-autograder.json").write_text('{"seed": "999"}\n')
    _git(kit, "add", "-A")
    rel = release.make(tmp_path / "student", root=kit)
    assert "docs/notes.md contains the grading seed" in rel.problems
    assert any(p.startswith("grader/tilelab-autograder.json sets a grading seed") for p in rel.problems)


def test_the_gradescope_zip_does_not_hold_itself(kit):
    z = _autograder_zip(kit, kit / "autograder.zip")
    _autograder_zip(kit, z)   # again, over the first: that one must not go inside
    names = zipfile.ZipFile(z).namelist()
    assert not [n for n in names if n.endswith(".zip")], names


def test_the_readme_is_for_students(out):
    text = (out / "README.md").read_text()
    assert text != (ROOT / "README.md").read_text()
    assert "./tilelab setup" in text and "cmake --workflow --preset default" in text
    assert "solutions/" not in text and "instructor.md" not in text
    for s in spec.load_all(ROOT):
        assert f"](assignments/{s.id}/README.md)" in text and f"`starter/{s.id}/matmul.cu`" in text
    assert "--backend emu" in text and "docs/emulator.md" in text


def test_no_shipped_page_names_what_the_release_leaves_out(out):
    assert release.missing_references(out) == []
    page = out / "docs" / "extra.md"
    page.write_text("See [the guide](instructor.md) and `solutions/<stage>/matmul.cu`.\n")
    try:
        found = release.missing_references(out)
        assert any("instructor.md" in f for f in found) and any("solutions/" in f for f in found), found
    finally:
        page.unlink()


def test_instructor_passages_are_left_out():
    text = "a\n<!-- instructor -->\nsecret `grader/tests/submissions/x`\n<!-- /instructor -->\nb\n"
    assert release.strip_instructor(text) == "a\nb\n"


def test_the_presets_run_progress_in_the_workflow_and_strict_checks_for_students(out):
    doc = {p["name"]: p.get("cacheVariables", {}) for p in json.loads((out / "CMakePresets.json").read_text())["configurePresets"]}
    assert doc["default"]["TILELAB_STARTER_PROGRESS"] == "ON"
    assert doc["student"]["TILELAB_STARTER_PROGRESS"] == "OFF"


def test_a_kit_inside_another_checkout_is_walked_not_read_from_that_checkout(tmp_path):
    # A release made in a kit's build tree (kit.release does so) is no git checkout of its own:
    # asking git there listed the enclosing repository's (none), and its Gradescope zip held no kit.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("/build/\n")
    kit = tmp_path / "build" / "student"
    (kit / "grader").mkdir(parents=True)
    (kit / "grader" / "cli.py").write_text("print()\n")
    assert release.source_files(kit) == ["grader/cli.py"]


def test_the_instructor_picks_the_bare_starter_level(tmp_path):
    rel = release.make(tmp_path / "bare", starter_level="bare")
    assert rel.ok, rel.problems
    text = (rel.out / "starter" / "02-tiled" / "matmul.cu").read_text()
    assert "bare level" in text and "Mds[ty][tx]" not in text.split("TODO (2)")[1].split("\n")[0]
    assert text != (ROOT / "starter" / "02-tiled" / "matmul.cu").read_text()


def test_no_answer_key_ships(out):
    assert not list(out.rglob("questions-key.toml"))
    assert (out / "assignments" / "02-tiled" / "questions.toml").exists()


def test_the_zip_carries_the_configured_starter_level(kit, tmp_path):
    z = tmp_path / "ag.zip"
    autograder.make_zip(z, autograder.AutograderConfig(starter_level="bare"), root=kit)
    with zipfile.ZipFile(z) as f:
        assert "bare level" in f.read("tilelab/starter/01-basic/matmul.cu").decode()
        assert f.read("tilelab/solutions/01-basic/questions-key.toml")   # the autograder grades the questions


def test_the_experiments_are_not_shipped(out):
    """grader/experiments: measurement notebooks whose kernels are solutions (explore-06)."""
    assert (ROOT / "grader" / "experiments" / "explore-06" / "run.sh").is_file()
    assert not (out / "grader" / "experiments").exists()
