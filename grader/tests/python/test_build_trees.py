"""A grading tree (tree.Tree.configure: `grade`, `check`, `batch`, the autograder) configures only
what grades: none of the kit's own tests, no mutants, no differential variants (TILELAB_SELF_TESTS
is on in the test presets only). Configured again with the same arguments, it is not configured
anew: CMake's own up-to-date check runs instead. One real configure (seconds, no compile)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.grading import options
from tilelab.specs import spec
from tilelab.specs.codegen import _cost_size
from tilelab.run.tree import CHECK_TARGET, Tree, _cached_generator

pytestmark = pytest.mark.skipif(not shutil.which("cmake"), reason="needs cmake")


def test_a_grading_tree_holds_only_what_grades(tmp_path):
    tree = Tree(tmp_path / "b")
    ran = tree.configure(list(options.SHARED_IMPLS), backend="emu")
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
    again = tree.configure(list(options.SHARED_IMPLS), backend="emu")
    check = CHECK_TARGET[tree.generator]
    assert again.ok and check in (tree.logs / "configure.log").read_text()
    # Other arguments: configured anew.
    other = tree.configure(["starter"], backend="emu")
    log = (tree.logs / "configure.log").read_text()
    assert other.ok and check not in log and "-DTILELAB_IMPLS=starter " in log
    assert not [t.name for t in tree.tests() if t.name.startswith("solution.")]


@pytest.mark.skipif(not shutil.which("ninja"), reason="ninja is not installed")
def test_a_tree_made_with_make_is_configured_again_with_ninja_and_keeps_its_depfiles(tmp_path):
    """A kit updated from make to Ninja finds grading trees that make built: CMake cannot switch a
    tree's generator in place, so the tree is configured afresh. Ninja deletes a compiler's depfile
    unless asked to keep it, and the include check reads the depfile: it must be there.
    Built through the same Tree.build_targets as a grade, but only the object the include check
    reads (the submission's emulator object, with the rewriter that makes its source): a whole
    runner would compile the judge, the runtime and the core, ~46 compiles instead of 13, and
    that adds nothing to what is asserted here (CI time, docs/performance.md "Test time")."""
    old = Tree(tmp_path / "b", generator="Unix Makefiles")
    assert old.configure(["starter"], backend="emu").ok
    assert _cached_generator(old.build) == "Unix Makefiles"
    new = Tree(tmp_path / "b", generator="Ninja")
    ran = new.configure(["starter"], backend="emu")
    assert ran.ok, ran.output[-3000:]
    assert _cached_generator(new.build) == "Ninja"
    listed = subprocess.run(["ninja", "-C", str(new.build), "-t", "targets", "all"],
                            capture_output=True, text=True, check=True).stdout
    wanted = [line.split(":")[0] for line in listed.splitlines()
              if line.split(":")[0].endswith("/run-starter-01-basic.cpp.o") and "emu_plain_run_" in line]
    assert len(wanted) == 1, wanted
    assert new.build_targets(wanted, "01-basic").ok, (new.logs / "build-01-basic.log").read_text()[-3000:]
    objs = [o for o in (new.build / "CMakeFiles").rglob("run-starter-01-basic.cpp.o")]
    assert objs and all(o.with_name(o.name + ".d").is_file() for o in objs), objs


def test_an_emulator_tree_leaves_out_the_datasets_it_never_reads(tmp_path):
    """datasets/CMakeLists.txt passes these flags where the GPU backend is off: the performance
    dataset and those above the emulator's size cap are not written; every dataset an emulator
    check reads still is (w1024, at the cap)."""
    build = Path(os.environ.get("TILELAB_BUILD_DIR", ROOT / "build" / "default"))
    exe = build / "datasets" / "tilelab-datagen"
    if not exe.exists():
        pytest.skip(f"no {exe} (CTest's kit.pytest sets TILELAB_BUILD_DIR)")
    cap = 1024
    for s in (st for st in spec.load_all(ROOT) if st.id in ("02-tiled", "06-register-tiled")):
        out = tmp_path / s.id
        subprocess.run([str(exe), "--spec", str(spec.resolved_path(build, s.id)), "--out", str(out), "--skip-tag", "perf",
                        "--max-size", str(cap)], check=True, capture_output=True)
        written = {p.name for p in out.iterdir()}
        read = {d.name for d in s.datasets if "perf" not in d.tags and _cost_size(d) <= cap}
        assert read <= written, read - written
        assert s.performance.dataset not in written
        assert not [d.name for d in s.datasets if d.name in written and d.J * d.K * d.L > (cap + 1) ** 3]
        assert any(_cost_size(d) > cap for d in s.datasets if "perf" not in d.tags) or s.id == "02-tiled"
