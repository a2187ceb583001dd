"""The contract (grader/contract.toml) and the specs have one definition each; what codegen
generates for CMake and C++ agrees with them."""

import json
import re

from tilelab import ROOT
from tilelab.specs import codegen, contract, spec
from tilelab.specs.contract import ExitCode, verdict_name


def test_exit_codes_are_the_designs():
    assert {c.name.lower(): int(c) for c in ExitCode} == {
        "pass": 0, "wrong": 1, "error": 2, "timeout": 3, "bad_input": 4, "skipped": 77}
    assert verdict_name(77) == "skipped" and verdict_name(-11) == "crash"


def test_header_defines_every_code_schema_and_hint():
    h = codegen.contract_header()
    for c in ExitCode:
        assert f"= {int(c)}," in h and f'case {int(c)}: return "{c.name.lower()}";' in h
    for name, value in contract.SCHEMAS.items():
        assert f'k{name.capitalize()}Schema = "{value}";' in h
    for code, text in contract.HINTS.items():
        assert f'{json.dumps(code)}, {json.dumps(text)}' in h


def test_cmake_plan_lists_every_stage_and_dataset(tmp_path):
    stages = spec.load_all(ROOT)
    text = codegen.stages_cmake(stages, tmp_path)
    for s in stages:
        assert f"set(TILELAB_{s.id}_API {s.api})" in text
        assert f'set(TILELAB_{s.id}_SPEC "{spec.resolved_path(tmp_path, s.id)}")' in text
        for d in s.correctness_datasets:
            assert d.name in text
    assert "set(TILELAB_SKIP_CODE 77)" in text


def test_resolved_specs_hold_every_key_with_defaults(tmp_path):
    out = tmp_path / "generated"
    assert codegen.main([str(out)]) == 0
    stages = spec.load_all(ROOT)
    for s in stages:
        doc = json.loads(spec.resolved_path(tmp_path, s.id).read_text())
        assert doc["schema"] == contract.SCHEMAS["spec"] and doc["id"] == s.id
        assert set(doc["performance"]) == {"dataset", "full_credit_ratio", "zero_credit_ratio", "basis",
                                           "min_runs", "max_runs", "target_rel_stderr", "model",
                                           "requires_all_correct"}
        assert set(doc["timeouts"]) == {"correct", "perf"}
        assert [d["name"] for d in doc["datasets"]] == [d.name for d in s.datasets]
        assert all(len(d["shape"]) == 3 for d in doc["datasets"])
        if s.hidden:
            assert set(doc["hidden"]) == {"rule", "count", "min", "max", "avoid_multiple_of", "multiple_of",
                                          "distribution"}
    assert (out / "include" / "tilelab" / "contract.hpp").read_text() == codegen.contract_header()


def test_codegen_refuses_an_out_dir_the_grader_cannot_find(tmp_path):
    assert codegen.main([str(tmp_path / "elsewhere")]) == ExitCode.BAD_INPUT


def test_each_contract_name_is_written_once_in_the_kit_sources():
    """A schema id, a fixed hint text or a hint code's title written outside grader/contract.toml
    is a second definition. Test data, the known-bad submissions (which forge results on purpose) and
    generated files are not definitions."""
    sources = [p for p in (ROOT / "grader").rglob("*")
               if (p.suffix in {".py", ".cpp", ".hpp", ".h", ".cu", ".cmake", ".toml", ".in", ".sh"}
                   or p.name == "CMakeLists.txt")
               and not {"data", "submissions", "__pycache__"} & set(p.relative_to(ROOT).parts)]
    needles = (list(contract.SCHEMAS.values()) + [t[:60] for t in contract.HINTS.values()]
               + [t[:60] for _, t in contract.CUDA_ERROR_HINTS])
    for needle in needles:
        where = [str(p.relative_to(ROOT)) for p in sources if p.is_file() and needle in p.read_text(errors="replace")]
        assert where == ["grader/contract.toml"], (needle, where)
    # A title is what a report shows: the tests may expect it, no other part may write it.
    kit = [p for p in sources if "tests" not in p.relative_to(ROOT).parts and p.is_file()]
    for title in (f'"{h.title}"' for h in contract.HINT_CODES.values() if h.title):
        where = [str(p.relative_to(ROOT)) for p in kit if title in p.read_text(errors="replace")]
        assert where == ["grader/contract.toml"], (title, where)
    assert not re.search(r"tilelab\.(result|grade|bench|spec)/\d", (ROOT / "grader/tilelab/run/ctest_results.py").read_text())
