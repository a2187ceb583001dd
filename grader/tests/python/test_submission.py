"""What a student hands in, as students hand it in: a bare matmul.cu for a one-stage assignment
(renamed by a browser, zipped on a Mac), a stage folder at any depth, or the wrong file; and the
grader asking for exactly the stages it grades, so the lone-file rule applies end to end."""

import zipfile

import pytest

from tilelab.grading import implementation, options
from tilelab.run import submission
from tilelab.run.sandbox import Ran
from tilelab.run.tree import Tree

CU = "__global__ void MatrixMulKernel() {}\n"


def put(root, *names):
    for n in names:
        (root / n).parent.mkdir(parents=True, exist_ok=True)
        (root / n).write_text(CU)
    return root


@pytest.mark.parametrize("files", [["matmul.cu"], ["matmul (1).cu"], ["hw/matmul.cu", "hw/README.md"],
                                   ["matmul.cu", "__MACOSX/._matmul.cu", "._matmul.cu"],
                                   ["matmul.cu", "helper.cu"]])
def test_a_lone_file_counts_for_the_one_stage_graded(tmp_path, files):
    put(tmp_path / "s", *files)
    m = submission.materialize(tmp_path / "s", tmp_path / "o", ["02-tiled"])
    assert m.stages == ["02-tiled"] and (tmp_path / "o" / "02-tiled" / "matmul.cu").read_text() == CU


def test_a_linked_answers_file_is_not_followed(tmp_path):
    """answers.toml travels with matmul.cu only as a file of the submission: a link to another
    student's answers (or to any file of the grading machine) is left behind, with a note."""
    (tmp_path / "bob" / "02-tiled").mkdir(parents=True)
    (tmp_path / "bob" / "02-tiled" / "answers.toml").write_text('[answers]\nq1 = 42\n')
    put(tmp_path / "s", "02-tiled/matmul.cu")
    (tmp_path / "s" / "02-tiled" / "answers.toml").symlink_to(tmp_path / "bob" / "02-tiled" / "answers.toml")
    m = submission.materialize(tmp_path / "s", tmp_path / "o", ["02-tiled"])
    assert m.stages == ["02-tiled"] and not (tmp_path / "o" / "02-tiled" / "answers.toml").exists()
    assert any("answers.toml is a link" in n for n in m.notes)


def test_a_file_in_another_stage_folder_is_refused_with_the_reason(tmp_path):
    put(tmp_path / "s", "01-basic/matmul.cu")
    m = submission.materialize(tmp_path / "s", tmp_path / "o", ["02-tiled"])
    assert m.stages == [] and "01-basic/matmul.cu" in m.notes[0] and "02-tiled/matmul.cu" in m.notes[0]


def test_a_lone_file_with_several_stages_graded_says_where_it_should_go(tmp_path):
    put(tmp_path / "s", "matmul.cu")
    m = submission.materialize(tmp_path / "s", tmp_path / "o", ["01-basic", "02-tiled"])
    assert m.stages == [] and "not in a stage folder" in m.notes[0] and "01-basic/matmul.cu" in m.notes[0]


def test_two_candidates_are_named_not_guessed(tmp_path):
    put(tmp_path / "s", "a/matmul.cu", "b/matmul.cu")
    m = submission.materialize(tmp_path / "s", tmp_path / "o", ["02-tiled"])
    assert m.stages == [] and "a/matmul.cu" in m.notes[0] and "b/matmul.cu" in m.notes[0]


def test_an_empty_handin_lists_what_it_holds(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "matmul.txt").write_text("x")
    m = submission.materialize(tmp_path / "s", tmp_path / "o", ["02-tiled"])
    assert m.stages == [] and "matmul.txt" in m.notes[0]


def test_a_zip_of_a_nested_folder(tmp_path):
    with zipfile.ZipFile(tmp_path / "s.zip", "w") as z:
        z.writestr("alice-hw3/starter/02-tiled/matmul.cu", CU)
        z.writestr("__MACOSX/alice-hw3/starter/02-tiled/._matmul.cu", "junk")
    assert submission.materialize(tmp_path / "s.zip", tmp_path / "o", ["02-tiled"]).stages == ["02-tiled"]


def test_grading_one_stage_takes_a_bare_file(tmp_path, monkeypatch):
    """implementation.grade materializes only the stages asked for, so the lone-file rule applies (it was
    handed every stage, and a bare matmul.cu was 'no <stage>/matmul.cu found')."""
    seen = {}

    def configure(self, impls, sub, seed, backend, timeout=900, kit=None):
        seen["files"] = sorted(str(p.relative_to(sub)) for p in sub.rglob("*.cu"))
        return Ran(1, 0.0, output="stopped here by the test")
    monkeypatch.setattr(Tree, "configure", configure)
    put(tmp_path / "s", "matmul.cu")
    r = implementation.grade(options.GradeOptions(stages=["02-tiled"], submission=tmp_path / "s", backend="emu",
                                     build_dir=tmp_path / "b"))
    assert r.status == "error" and "configuring the build failed" in r.message, r.message
    assert seen["files"] == ["02-tiled/matmul.cu"]


def test_a_relative_build_folder_is_used_by_its_absolute_path(tmp_path, monkeypatch):
    """Compiler messages name the student's file by absolute path; the scratch prefix is cut from
    them only when the build folder is spelled the same way (a relative --out or --build-dir gave
    '/work/01-basic/matmul.cu', a path that does not exist)."""
    seen = {}

    def configure(self, impls, sub, seed, backend, timeout=900, kit=None):
        seen["build"], seen["sub"] = self.build, sub
        return Ran(1, 0.0, output="stopped here by the test")
    monkeypatch.setattr(Tree, "configure", configure)
    monkeypatch.chdir(tmp_path)
    put(tmp_path / "s", "02-tiled/matmul.cu")
    implementation.grade(options.GradeOptions(stages=["02-tiled"], submission=tmp_path / "s", backend="emu", build_dir="b"))
    assert seen["build"] == tmp_path / "b" and seen["sub"] == tmp_path / "b" / "submission-src"
