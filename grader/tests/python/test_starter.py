"""The starter is generated from the solution, and the committed starters have not drifted."""

import pytest

from tilelab import ROOT, starter

needs_solutions = pytest.mark.skipif(not (ROOT / "solutions").exists(),
                                     reason="a student release has no solutions/ to compare with")


@needs_solutions
def test_committed_starters_match_their_solutions():
    drifts = starter.generate(ROOT, check=True)
    assert drifts == [], f"regenerate with ./tilelab starter: {drifts}"


@needs_solutions
def test_every_solution_has_a_starter():
    assert starter.stages(ROOT), "no solutions found"
    for stage in starter.stages(ROOT):
        assert (ROOT / "starter" / stage / "matmul.cu").exists()


def test_block_becomes_todo_and_keeps_starter_lines():
    src = "int f() {\n    // BEGIN SOLUTION: return the answer\n    return 42;\n    // STARTER: return 0;\n    // END SOLUTION\n}\n"
    out = starter.make_starter(src)
    assert "return 42" not in out
    assert "    // TODO (1): return the answer" in out
    assert "    return 0;" in out
    assert "BEGIN SOLUTION" not in out and "STARTER" not in out


@needs_solutions
def test_no_solution_code_leaks_into_any_starter():
    for stage in starter.stages(ROOT):
        sol = (ROOT / "solutions" / stage / "matmul.cu").read_text()
        st = (ROOT / "starter" / stage / "matmul.cu").read_text()
        inside = False
        for line in sol.splitlines():
            if "BEGIN SOLUTION" in line:
                inside = True
            elif "END SOLUTION" in line:
                inside = False
            elif (inside and line.strip() and "STARTER:" not in line and len(line.strip()) > 12
                  and not line.strip().startswith("#")):  # preprocessor lines (#pragma unroll) recur legitimately
                assert line not in st.splitlines(), f"{stage}: solution line in starter: {line!r}"


@pytest.mark.parametrize("src, msg", [
    ("// BEGIN SOLUTION: x\n", "never closed"),
    ("// END SOLUTION\n", "without BEGIN"),
    ("// BEGIN SOLUTION\n// END SOLUTION\n", "needs a TODO text"),
    ("// BEGIN SOLUTION: a\n// BEGIN SOLUTION: b\n", "inside the block"),
    ("int x;\n", "no BEGIN SOLUTION"),
    ("// STARTER: int y;\n", "outside a solution block"),
])
def test_marker_errors_name_the_line(src, msg):
    with pytest.raises(starter.MarkerError, match=msg):
        starter.make_starter(src)
