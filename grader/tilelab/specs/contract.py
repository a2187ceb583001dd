"""The kit's shared names, read from grader/contract.toml (their one definition): the runner's exit
codes, the `tilelab` commands' own exit codes, the JSON schema names and the fixed hint texts.
The C++ side includes the header tilelab.specs.codegen generates from the same file."""

from enum import IntEnum
from pathlib import Path

from .compat import tomllib

TOML = Path(__file__).resolve().parents[2] / "contract.toml"

with open(TOML, "rb") as _f:
    _DOC = tomllib.load(_f)

CODES: dict[str, dict] = _DOC["codes"]
COMMAND_CODES: dict[str, dict] = _DOC["command_codes"]
SCHEMAS: dict[str, str] = _DOC["schemas"]
HINTS: dict[str, str] = _DOC["hints"]
# The emulator's findings: the order to fix them in, and each hint code's advice (its variants
# `<code>.warning`, `<code>.misaligned` included), resolved: a code `same_as` another, or with no
# advice but a fixed hint, takes that text.
FINDING_ORDER: tuple[str, ...] = tuple(_DOC["findings"]["order"])
_ADVICE = dict(_DOC["findings"]["advice"])
FINDING_ADVICE_DEFAULT: str = _ADVICE.pop("default")
FINDING_ADVICE: dict[str, str] = {
    **{code: HINTS[code] for code in FINDING_ORDER if code in HINTS and code not in _ADVICE},
    **_ADVICE,
    **{code: _ADVICE.get(other) or HINTS[other] for code, other in _DOC["findings"].get("same_as", {}).items()},
}


# compute-sanitizer's hint per tool (sanitize.py).
SANITIZER_ADVICE: dict[str, str] = _DOC["sanitizer_advice"]


def finding_advice(code: str, variant: str = "") -> str:
    """What to do about a finding: its code's advice (`variant`'s first), else the default."""
    return FINDING_ADVICE.get(f"{code}.{variant}" if variant else "") or FINDING_ADVICE.get(code) or FINDING_ADVICE_DEFAULT

ExitCode = IntEnum("ExitCode", {name.upper(): e["code"] for name, e in CODES.items()})
CommandCode = IntEnum("CommandCode", {name.upper(): e["code"] for name, e in COMMAND_CODES.items()})


def verdict_name(code: int) -> str:
    """'pass', 'wrong', … for a runner exit code; 'crash' for anything undefined (a signal)."""
    for name, entry in CODES.items():
        if entry["code"] == code:
            return name
    return "crash"


def hint(code: str) -> dict[str, str]:
    """The result fields of a fixed hint: {"hint_code": code, "hint": its text}."""
    return {"hint_code": code, "hint": HINTS[code]}
