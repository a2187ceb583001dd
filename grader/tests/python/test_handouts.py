"""The handouts' generated parts (tilelab.commands.handouts) agree with questions.toml, and the
walkthroughs' Fig. 4.15 note agrees with the figure as typed in (issue #42, item 8)."""

import re

import pytest

from tilelab import ROOT
from tilelab.commands import handouts
from tilelab.score import quiz
from tilelab.specs.compat import tomllib

STAGES = [d for d in sorted((ROOT / "assignments").iterdir()) if quiz.load_questions(d)]


def test_no_handout_drifted():
    assert [(str(d.path), d.reason) for d in handouts.generate(ROOT, check=True)] == []


@pytest.mark.parametrize("stage_dir", STAGES, ids=lambda d: d.name)
def test_count_is_questions_toml(stage_dir):
    text = (stage_dir / "README.md").read_text()
    n = len(tomllib.loads((stage_dir / "questions.toml").read_text())["question"])
    counts = [int(x) for x in re.findall(r"\b(\d+) questions?\b", text)]
    assert counts and set(counts) == {n}, (stage_dir.name, counts, n)
    assert "two students' answers differ" not in text


@pytest.mark.parametrize("stage_dir", STAGES, ids=lambda d: d.name)
def test_predict_then_measure_named(stage_dir):
    text = (stage_dir / "README.md").read_text()
    for q in quiz.load_questions(stage_dir):
        assert (f"(`{q.id}`) is *predict, then measure*" in text) == bool(q.measure), q.id


def test_fixed_questions_are_named(tmp_path):
    q = quiz.Question(id="same", kind="number", text="x", draw={"W": 16})
    varied = quiz.Question(id="varied", kind="number", text="x", draw={"W": {"min": 1, "max": 9}})
    text = handouts.paragraph("00-x", [varied, q])
    assert "Question 2 (`same`) is the same for everyone." in text
    assert "(`varied`)" not in text


def test_render_replaces_only_its_parts(tmp_path):
    stage = tmp_path / "assignments" / "01-basic"
    stage.mkdir(parents=True)
    src = ROOT / "assignments" / "01-basic"
    for f in ("stage.toml", "questions.toml"):
        (stage / f).write_text((src / f).read_text())
    (stage / "README.md").write_text("intro\n| questions | 3 | the 2 questions of x |\n\n"
                                     f"{handouts.BEGIN}\nold\n{handouts.END}\nend\n")
    assert [d.path.name for d in handouts.generate(tmp_path)] == ["README.md"]
    text = (stage / "README.md").read_text()
    n = len(quiz.load_questions(stage))
    assert text.startswith("intro\n| questions | 10 | the %d questions of `assignments/01-basic/" % n)
    assert text.endswith(f"{handouts.END}\nend\n") and "\nold\n" not in text
    assert handouts.generate(tmp_path, check=True) == []


def test_fig_4_15_note_names_the_corrected_cell():
    """Walkthrough 02 says the book misprints thread0,1's load N0,1 -> Nds1,0; the figure as typed in
    (and the trace of the book's kernel) has the corrected N0,1 -> Nds0,1, and so does the table the
    walkthrough shows."""
    fig = tomllib.loads((ROOT / "grader/tests/python/data/trace/pmpp-fig-4.15.toml").read_text())
    row = next(r for r in fig["row"] if r["thread"] == "thread0,1")
    assert "N0,1 → Nds0,1" in row["phase0"]
    cells = [c for r in fig["row"] for p in ("phase0", "phase1") for c in r[p]]
    assert "N0,1 → Nds1,0" not in cells
    walk = (ROOT / "docs/walkthrough/02-tiled.md").read_text()
    assert "thread0,1's phase-1 load, printed `N0,1 → Nds1,0`" in walk
    table = walk[walk.index("│ thread0,1 │"):]
    assert table.splitlines()[1].split("│")[2].strip() == "N0,1 → Nds0,1"
