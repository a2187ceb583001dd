"""The starter is generated from the solution, and the committed starters have not drifted."""

import pytest

from tilelab import ROOT
from tilelab.specs import starter

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


def _code(text: str) -> list[str]:
    """The lines the compiler sees (the generator writes only whole-line // comments)."""
    return [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]


@needs_solutions
@pytest.mark.parametrize("stage", starter.stages(ROOT) if (ROOT / "solutions").exists() else [])
def test_the_bare_level_is_the_guided_code_with_one_line_goals(stage):
    """Both levels come from the one solution and differ only in their TODO comments: the compiler
    sees the same code, so the bare level fails every check the guided starter's CTest checks
    (starter.<stage>.*, run with TILELAB_STARTER_EXPECT_FAIL) show it fails."""
    sol = (ROOT / "solutions" / stage / "matmul.cu").read_text()
    guided, bare = starter.make_starter(sol, level="guided"), starter.make_starter(sol, level="bare")
    assert guided == (ROOT / "starter" / stage / "matmul.cu").read_text()
    assert _code(bare) == _code(guided)
    todos = [ln for ln in bare.splitlines() if "// TODO (" in ln]
    assert len(todos) == sol.count("// BEGIN SOLUTION")
    assert all(len(ln) <= starter.WIDTH for ln in todos)
    assert not [ln for ln in bare.splitlines() if ln.lstrip().startswith("//   ")], "a bare TODO runs past one line"
    assert bare != guided


def test_bare_level_needs_a_goal_and_guided_hides_it():
    src = "int f() {\n    // BEGIN SOLUTION: return 42, the answer\n    // GOAL: return the answer\n    return 42;\n" \
          "    // STARTER: return 0;\n    // END SOLUTION\n}\n"
    assert "// TODO (1): return the answer\n" in starter.make_starter(src, level="bare")
    guided = starter.make_starter(src)
    assert "GOAL" not in guided and "return the answer\n" not in guided and "TODO (1): return 42" in guided
    with pytest.raises(starter.MarkerError, match="GOAL"):
        starter.make_starter(src.replace("    // GOAL: return the answer\n", ""), level="bare")


def _student_with_own_01(tmp_path, *stages) -> str:
    """A student's starter folder with these stages' starters, 01-basic's replaced by their own kernel
    (returned)."""
    for s in stages:
        (tmp_path / s).mkdir()
        (tmp_path / s / "matmul.cu").write_text((ROOT / "starter" / s / "matmul.cu").read_text())
    mine = "// my own 01 kernel\n__global__ void k() {}\n"
    (tmp_path / "01-basic" / "matmul.cu").write_text(mine)
    return mine


@needs_solutions
def test_a_stage_begins_from_the_students_previous_kernel(tmp_path):
    mine = _student_with_own_01(tmp_path, "01-basic", "02-tiled")
    msg = starter.from_previous(tmp_path, "02-tiled")
    out = (tmp_path / "02-tiled" / "matmul.cu").read_text()
    assert out.endswith(mine) and "Stage 02-tiled" in out and "matmul.cu.orig" in msg
    assert (tmp_path / "02-tiled" / "matmul.cu.orig").read_text() == (ROOT / "starter" / "02-tiled" / "matmul.cu").read_text()
    with pytest.raises(starter.MarkerError, match="already begun"):
        starter.from_previous(tmp_path, "02-tiled")
    with pytest.raises(starter.MarkerError, match="after the first"):
        starter.from_previous(tmp_path, "01-basic")


@needs_solutions
def test_the_chapter_3_exercise_stage_begins_from_01_not_from_07(tmp_path):
    """08-rows-columns-matvec is numbered after 07-tensor-cores but reworks 01-basic's kernel."""
    mine = _student_with_own_01(tmp_path, "01-basic", "07-tensor-cores", "08-rows-columns-matvec")
    msg = starter.from_previous(tmp_path, "08-rows-columns-matvec")
    out = (tmp_path / "08-rows-columns-matvec" / "matmul.cu").read_text()
    assert out.endswith(mine) and "01-basic" in msg and "07-tensor-cores" not in out
    assert "another signature" in out   # 01's launch_matmul is square, 08's rectangular
