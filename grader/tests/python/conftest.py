import os
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
    runtimes, runner main), so the second compiles only its own files."""
    return tmp_path_factory.mktemp("grading-tree") / "b"
