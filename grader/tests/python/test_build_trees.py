"""A grading tree (tree.Tree.configure: `grade`, `check`, `batch`, the autograder) configures only
what grades: none of the kit's own tests, no mutants, no differential variants (TILELAB_SELF_TESTS
is on in the test presets only). Configured again with the same arguments, it is not configured
anew: CMake's own up-to-date check runs instead. One real configure (seconds, no compile)."""

import shutil

import pytest

from tilelab import grade
from tilelab.tree import Tree

pytestmark = pytest.mark.skipif(not shutil.which("cmake"), reason="needs cmake")


def test_a_grading_tree_holds_only_what_grades(tmp_path):
    tree = Tree(tmp_path / "b")
    ran = tree.configure(list(grade.SHARED_IMPLS), backend="emu")
    assert ran.ok, ran.output[-3000:]
    names = [t.name for t in tree.tests()]
    assert any(n.startswith("starter.02-tiled.") for n in names), names[:10]
    kit = [n for n in names if n.startswith("kit.")]
    assert kit == [], kit[:10]
    targets = tree.targets()
    assert "run-starter-02-tiled-emu" in targets
    assert not [t for t in targets if t.startswith("run-kit-") or t.startswith("run-variants-")
                or t in ("tilelab_unit_tests", "tilelab_emu_tests")]
    assert not (tree.build / "kit-mutants").exists() and not (tree.build / "generated" / "variants").exists()

    # The same arguments again: no new configure, only CMake's check of its inputs.
    again = tree.configure(list(grade.SHARED_IMPLS), backend="emu")
    assert again.ok and "cmake_check_build_system" in (tree.logs / "configure.log").read_text()
    # Other arguments: configured anew.
    other = tree.configure(["starter"], backend="emu")
    log = (tree.logs / "configure.log").read_text()
    assert other.ok and "cmake_check_build_system" not in log and "-DTILELAB_IMPLS=starter " in log
    assert not [t.name for t in tree.tests() if t.name.startswith("solution.")]
