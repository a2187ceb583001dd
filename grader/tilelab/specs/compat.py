"""What the kit needs of a Python newer than its floor, 3.9 (Debian 11's python3 is 3.9.2), in one
place: `tomllib` is the standard library's from 3.11, else the `tomli` package, which has the same
API (load, loads, TOMLDecodeError). Every other module takes `tomllib` from here, never directly
(grader/tests/python/test_compat.py checks it)."""

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:   # pragma: no cover (the floor's Pythons)
    import tomli as tomllib

__all__ = ["tomllib"]
