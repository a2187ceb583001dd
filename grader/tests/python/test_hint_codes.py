"""Every hint code has one declaration, grader/contract.toml (issue #43, item 3): the runner names a
code only through the generated constants (tilelab::hints::k<Code>: an undeclared one does not
compile), the emulator's literal codes are all [findings]', and the reports take a code's title and
kind from the contract -- adding a code touches the contract and the code that emits it."""

import re
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.specs import codegen, contract
from tilelab.specs.contract import HINT_CODES

# Where C++ writes a hint code or an emulator finding's kind.
EMU_CODE = re.compile(r'\b(?:kind|hint_code)\s*=\s*(?:f\.(?:kind|hint_code)\s*=\s*)?"([^"]*)"|wmma_finding\("([^"]*)"')
# A literal code written into a result by the runner: it must be a generated constant instead.
RUNNER_LITERAL = re.compile(r'"hint_code"\]\s*=\s*"([^"]*)"|\{"hint_code",\s*"([^"]*)"|\breturn \{"([a-zA-Z-]+)",')


def emu_codes(text: str) -> set[str]:
    return {a or b for a, b in EMU_CODE.findall(text)}


def runner_literals(text: str) -> set[str]:
    return {"".join(m) for m in RUNNER_LITERAL.findall(text)}


def _sources(*folders: str) -> dict[Path, str]:
    return {p: p.read_text(errors="replace") for folder in folders for p in (ROOT / "grader" / folder).rglob("*")
            if p.suffix in {".cpp", ".hpp", ".h", ".cu"} and "tests" not in p.relative_to(ROOT).parts}


def test_the_emulators_codes_are_declared_in_the_findings():
    seen = {p.name: emu_codes(t) for p, t in _sources("emu").items()}
    assert set().union(*seen.values()) >= {"race-between-blocks", "wmma-misaligned", "barrier-skipped"}  # it sees them
    undeclared = {name: codes - contract.FINDING_CODES for name, codes in seen.items() if codes - contract.FINDING_CODES}
    assert not undeclared, f"declare these in grader/contract.toml [findings]: {undeclared}"


def test_the_emulators_advice_variants_have_their_text():
    """A finding's variant (tlemu::Finding::variant) picks `<code>.<variant>`'s advice: each one the
    emulator sets has a text in [findings.advice] (else the variant would change nothing)."""
    set_ = {v for t in _sources("emu").values() for v in re.findall(r'\bvariant\s*=\s*"([^"]*)"', t)}
    declared = {key.split(".", 1)[1] for key in contract.FINDING_ADVICE if "." in key}
    assert "misaligned" in set_ and set_ <= declared, (set_, declared)


def test_the_runner_writes_no_hint_code_as_a_literal():
    literal = {str(p.relative_to(ROOT)): runner_literals(t) for p, t in _sources("src", "runner", "include").items()
               if runner_literals(t)}
    assert not literal, f"name these through tilelab::hints::k<Code> (contract.toml [hints]): {literal}"


def test_the_scans_see_an_undeclared_code():
    """The two scans above are able to fail: a code the contract does not hold is found."""
    assert emu_codes('f.kind = f.hint_code = "no-such-finding";') == {"no-such-finding"}
    assert emu_codes('r.add(wmma_finding("wmma-oddity", file, line, "x"));') == {"wmma-oddity"}
    assert "no-such-finding" not in contract.FINDING_CODES
    assert runner_literals('  r["hint_code"] = "too-slow";') == {"too-slow"}
    assert runner_literals('    return {"made-up", "P is odd."};') == {"made-up"}
    assert runner_literals('  r["hint_code"] = hints::kTooSlow.code;') == set()


def test_every_code_has_its_constant_and_the_composed_ones_no_text():
    h = codegen.contract_header()
    for code, hc in HINT_CODES.items():
        name = "k" + codegen._camel(code)
        if hc.text:
            assert f"inline constexpr Hint {name}{{\"{code}\", " in h
        else:
            assert f'inline constexpr HintCode {name}{{"{code}"}};' in h
    assert len({codegen._camel(c) for c in HINT_CODES}) == len(HINT_CODES), "two codes, one C++ name"


def test_the_runners_diagnoses_use_declared_codes_only():
    """diagnose.cpp's codes, as its source names them: every one declared, none left over as text."""
    src = (ROOT / "grader/src/diagnose.cpp").read_text()
    used = set(re.findall(r"hints::k(\w+)", src))
    declared = {codegen._camel(c) for c in HINT_CODES}
    assert used and used <= declared
    assert "cudaErrorIllegalAddress" not in src   # cuda-error's texts are [[cuda_error_hints]]'


def test_a_hint_of_an_unknown_kind_stops_code_generation():
    with pytest.raises(contract.ContractError, match="kind"):
        contract._hint_code("odd", {"kind": "guess", "text": "x"})
    with pytest.raises(contract.ContractError):
        contract._hint_code("odd", {"kind": "cause", "titel": "x"})
    assert contract._hint_code("odd", {"kind": "symptom", "title": "t"}).symptom


def test_cuda_error_hints_keep_their_order_and_shared_text():
    errors = [e for e, _ in contract.CUDA_ERROR_HINTS]
    assert errors[0] == "cudaErrorIllegalAddress" and len(errors) == len(set(errors))
    by = dict(contract.CUDA_ERROR_HINTS)
    assert by["cudaErrorInvalidConfiguration"] == by["cudaErrorInvalidValue"]
    assert contract.HINTS["cuda-error"].startswith("A CUDA call or the kernel failed")
