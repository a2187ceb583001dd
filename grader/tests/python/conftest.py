import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # grader/, for `import tilelab`
sys.path.insert(0, str(Path(__file__).resolve().parent))      # fakes.py


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a real build and run (minutes); runs only with TILELAB_SLOW=1")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TILELAB_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow end-to-end test: set TILELAB_SLOW=1 (CTest: kit.pytest.slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def grading_tree(tmp_path_factory):
    """One grading tree for the slow tests that build one (test_check, test_e2e): configured for
    each with its own arguments, it keeps the objects they share (core, datasets, emulator
    runtimes, runner main), so the second compiles only its own files.
    Under CTest (TILELAB_BUILD_DIR set: the kit's build tree) it lies beside that tree, at the
    same depth below the checkout, as a grade's own trees do (build/grade-*): its compiles are
    then the same commands as the kit's build made, relative to the checkout (CCACHE_BASEDIR), and
    CI's compiler cache (.ci/run) has them; in a temporary folder every one is compiled again."""
    kit_build = os.environ.get("TILELAB_BUILD_DIR")
    if kit_build and Path(kit_build).parent.is_dir():
        tree = Path(kit_build).parent / "pytest-grading-tree"
        shutil.rmtree(tree, ignore_errors=True)   # fresh each session, as a temporary folder is
        return tree
    return tmp_path_factory.mktemp("grading-tree") / "b"
