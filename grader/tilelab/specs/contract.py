"""The kit's shared names, read from grader/contract.toml (their one definition): the runner's exit
codes, the `tilelab` commands' own exit codes, the JSON schema names and every hint code (its kind,
title and any fixed text). The C++ side includes the header tilelab.specs.codegen generates from the
same file. A contract that breaks its own rules (a hint of an unknown kind, an unknown field) raises
ContractError on import, so code generation fails with it."""

from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from .compat import tomllib

TOML = Path(__file__).resolve().parents[2] / "contract.toml"

with open(TOML, "rb") as _f:
    _DOC = tomllib.load(_f)

CODES: dict[str, dict] = _DOC["codes"]
COMMAND_CODES: dict[str, dict] = _DOC["command_codes"]
SCHEMAS: dict[str, str] = _DOC["schemas"]
GPU_LOCK: str = _DOC["gpu_lock"]["path"]   # the GPU's lock between processes (gpu_lock.hpp)


class ContractError(ValueError):
    """grader/contract.toml breaks one of its own rules."""


# A hint code's kind: "cause" names the bug, "symptom" only describes what P looks like (the
# reports list a wrong result's causes before its symptoms).
HINT_KINDS = ("cause", "symptom")


@dataclass(frozen=True)
class HintCode:
    """One [hints] entry: a `hint_code` a result may hold."""
    code: str
    kind: str
    title: str = ""     # what the reports call a wrong result with it; "" -- they show its message
    text: str = ""      # its hint where the text is fixed; "" -- composed where it is emitted

    @property
    def symptom(self) -> bool:
        return self.kind == "symptom"


def _hint_code(code: str, entry: dict) -> HintCode:
    unknown = set(entry) - {"kind", "title", "text"}
    if unknown or entry.get("kind") not in HINT_KINDS:
        raise ContractError(f"{TOML.name} [hints] {code}: needs kind = one of {HINT_KINDS}, and only "
                            f"kind, title and text (got {sorted(entry)})")
    return HintCode(code, **entry)


HINT_CODES: dict[str, HintCode] = {code: _hint_code(code, e) for code, e in _DOC["hints"].items()}
# The fixed hint texts by code.
HINTS: dict[str, str] = {code: h.text for code, h in HINT_CODES.items() if h.text}
# cuda-error's hint by the CUDA error a message names, (error, text) in the order they are tried.
CUDA_ERROR_HINTS: tuple[tuple[str, str], ...] = tuple(
    (error, e["text"]) for e in _DOC["cuda_error_hints"] for error in e["errors"])
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


# Every hint code an emulator finding may carry (and every finding kind): those [findings] orders,
# advises or gives another's text.
FINDING_CODES: frozenset[str] = frozenset(
    {*FINDING_ORDER, *(c.split(".")[0] for c in _ADVICE), *_DOC["findings"].get("same_as", {})})
# The variants that refine a finding's advice (`<code>.<variant>` in [findings.advice]: warning,
# misaligned): the emulator sets one on a finding, the runner picks its text.
FINDING_VARIANTS: frozenset[str] = frozenset(c.split(".", 1)[1] for c in _ADVICE if "." in c)

# compute-sanitizer's hint per tool (sanitize.py).
SANITIZER_ADVICE: dict[str, str] = _DOC["sanitizer_advice"]

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
