"""The exit codes have one definition; the generated C++ header and CMake plan agree with it."""

from tilelab import codegen, spec, ROOT
from tilelab.exit_codes import ExitCode, verdict_name


def test_exit_codes_are_the_designs():
    assert {c.name.lower(): int(c) for c in ExitCode} == {
        "pass": 0, "wrong": 1, "error": 2, "timeout": 3, "bad_input": 4, "skipped": 77}
    assert verdict_name(77) == "skipped" and verdict_name(-11) == "crash"


def test_header_defines_every_code():
    h = codegen.exit_codes_header()
    for c in ExitCode:
        assert f"= {int(c)}," in h


def test_cmake_plan_lists_every_stage_and_dataset():
    stages = spec.load_all(ROOT)
    text = codegen.stages_cmake(stages)
    for s in stages:
        assert f"set(TILELAB_{s.id}_API {s.api})" in text
        for d in s.correctness_datasets:
            assert d.name in text
    assert "set(TILELAB_SKIP_CODE 77)" in text
