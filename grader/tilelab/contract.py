"""The kit's shared names, read from grader/contract.toml (their one definition): the runner's exit
codes, the `tilelab` commands' own exit codes, the JSON schema names and the fixed hint texts.
The C++ side includes the header tilelab.codegen generates from the same file."""

import tomllib
from enum import IntEnum
from pathlib import Path

TOML = Path(__file__).resolve().parents[1] / "contract.toml"

with open(TOML, "rb") as _f:
    _DOC = tomllib.load(_f)

CODES: dict[str, dict] = _DOC["codes"]
COMMAND_CODES: dict[str, dict] = _DOC["command_codes"]
SCHEMAS: dict[str, str] = _DOC["schemas"]
HINTS: dict[str, str] = _DOC["hints"]

ExitCode = IntEnum("ExitCode", {name.upper(): e["code"] for name, e in CODES.items()})
CommandCode = IntEnum("CommandCode", {name.upper(): e["code"] for name, e in COMMAND_CODES.items()})
MEANING = {entry["code"]: entry["meaning"] for entry in CODES.values()}


def verdict_name(code: int) -> str:
    """'pass', 'wrong', … for a runner exit code; 'crash' for anything undefined (a signal)."""
    for name, entry in CODES.items():
        if entry["code"] == code:
            return name
    return "crash"


def hint(code: str) -> dict[str, str]:
    """The result fields of a fixed hint: {"hint_code": code, "hint": its text}."""
    return {"hint_code": code, "hint": HINTS[code]}
