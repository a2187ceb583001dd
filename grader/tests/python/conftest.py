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
