"""The runner's exit codes, read from grader/exit_codes.toml (their one definition)."""

import tomllib
from enum import IntEnum
from pathlib import Path

_TOML = Path(__file__).resolve().parents[1] / "exit_codes.toml"


def _load() -> dict[str, dict]:
    with open(_TOML, "rb") as f:
        return tomllib.load(f)["codes"]


CODES = _load()
ExitCode = IntEnum("ExitCode", {name.upper(): entry["code"] for name, entry in CODES.items()})
MEANING = {entry["code"]: entry["meaning"] for entry in CODES.values()}


def verdict_name(code: int) -> str:
    """'pass', 'wrong', … for a runner exit code; 'crash' for anything undefined (a signal)."""
    for name, entry in CODES.items():
        if entry["code"] == code:
            return name
    return "crash"
