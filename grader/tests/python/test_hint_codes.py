"""Every hint code has one declaration, grader/contract.toml (issue #43, item 3): the runner names a
code only through the generated constants (tilelab::hints::k<Code>: an undeclared one does not
compile), the emulator its findings' codes and variants likewise (tilelab::findings::k<Code>,
tilelab::finding_variants::k<Variant>, from [findings]), and the reports take a code's title and
kind from the contract -- adding a code touches the contract and the code that emits it."""

import re
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.specs import codegen, contract
from tilelab.specs.contract import HINT_CODES

# Where C++ writes a hint code or an emulator finding's kind.
EMU_CODE = re.compile(r'\b(?:kind|hint_code)\s*=\s*(?:f\.(?:kind|hint_code)\s*=\s*)?"([^"]*)"|wmma_finding\("([^"]*)"')
# Where C++ writes a finding's advice variant as a literal.
EMU_VARIANT = re.compile(r'\bvariant\s*=\s*"([^"]*)"')
# A literal code written into a result by the runner: it must be a generated constant instead.
RUNNER_LITERAL = re.compile(r'"hint_code"\]\s*=\s*"([^"]*)"|\{"hint_code",\s*"([^"]*)"|\breturn \{"([a-zA-Z-]+)",')


def emu_codes(text: str) -> set[str]:
    return {a or b for a, b in EMU_CODE.findall(text)}


def runner_literals(text: str) -> set[str]:
    return {"".join(m) for m in RUNNER_LITERAL.findall(text)}


def _sources(*folders: str) -> dict[Path, str]:
    return {p: p.read_text(errors="replace") for folder in folders for p in (ROOT / "grader" / folder).rglob("*")
            if p.suffix in {".cpp", ".hpp", ".h", ".cu"} and "tests" not in p.relative_to(ROOT).parts}


def test_the_emulator_names_its_codes_only_through_the_generated_constants():
    """The runtime writes no finding code or variant as a string literal: it names each through
    tilelab::findings::k<Code> and tilelab::finding_variants::k<Variant> (codegen.findings_header,
    from [findings]), so one that is not declared does not compile."""
    sources = _sources("emu")
    literal = {p.name: found for p, t in sources.items() if (found := emu_codes(t) | set(EMU_VARIANT.findall(t)))}
    assert not literal, f"name these through tilelab::findings / finding_variants: {literal}"
    codes = {c for t in sources.values() for c in re.findall(r"\bfindings::k(\w+)", t)}
    variants = {v for t in sources.values() for v in re.findall(r"\bfinding_variants::k(\w+)", t)}
    assert {"RaceBetweenBlocks", "WmmaMisaligned", "BarrierSkipped"} <= codes and "Misaligned" in variants  # it sees them
    assert codes <= {codegen._camel(c) for c in contract.FINDING_CODES}
    assert variants <= {codegen._camel(v) for v in contract.FINDING_VARIANTS}


def test_every_finding_code_and_variant_has_its_constant():
    """findings.hpp declares one constant per code and variant of [findings], and a variant is one
    whose advice has a text (else setting it would change nothing)."""
    h = codegen.findings_header()
    for code in contract.FINDING_CODES:
        assert f'inline constexpr const char k{codegen._camel(code)}[] = "{code}";' in h
    for variant in contract.FINDING_VARIANTS:
        assert f'inline constexpr const char k{codegen._camel(variant)}[] = "{variant}";' in h
        assert any(key.endswith("." + variant) for key in contract.FINDING_ADVICE)
    assert {"misaligned", "warning"} <= contract.FINDING_VARIANTS
    assert len({codegen._camel(c) for c in contract.FINDING_CODES}) == len(contract.FINDING_CODES), "two codes, one C++ name"


def test_the_runner_writes_no_hint_code_as_a_literal():
    literal = {str(p.relative_to(ROOT)): runner_literals(t) for p, t in _sources("src", "runner", "include").items()
               if runner_literals(t)}
    assert not literal, f"name these through tilelab::hints::k<Code> (contract.toml [hints]): {literal}"


def test_the_scans_see_an_undeclared_code():
    """The scans above are able to fail: a literal code, variant or hint code is found."""
    assert emu_codes('f.kind = f.hint_code = "no-such-finding";') == {"no-such-finding"}
    assert emu_codes("f.kind = f.hint_code = tilelab::findings::kRace;") == set()
    assert EMU_VARIANT.findall('if (odd) f.variant = "misaligned";') == ["misaligned"]
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
