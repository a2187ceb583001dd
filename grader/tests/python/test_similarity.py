"""Similarity: disguised copies (identifiers renamed, statements reordered, comments and layout
changed) rank above every pair of independent correct kernels of the same stage, and the starter
everyone was handed counts for nothing (grader/tests/similarity/: indep-* are independent correct
02-tiled kernels written other ways; copy-of-X is a disguised copy of indep-X)."""

import shutil
from pathlib import Path

from tilelab import ROOT
from tilelab.commands import similarity

DATA = Path(__file__).resolve().parents[1] / "similarity"


def test_every_disguised_copy_ranks_above_every_independent_pair(tmp_path):
    res = similarity.compare(DATA, "02-tiled")
    assert len(res.files) == 8 and len(res.pairs) == 28

    def copied(p):
        return {p.a, p.b} == {p.a if p.a.startswith("copy-of-") else p.b,
                              "indep-" + (p.a if p.a.startswith("copy-of-") else p.b)[len("copy-of-"):]}
    copies = [p for p in res.pairs if copied(p)]
    others = [p for p in res.pairs if not copied(p)]
    assert len(copies) == 3
    assert min(p.score for p in copies) > max(p.score for p in others) + 0.2, similarity.table_lines(res, 10)
    assert res.pairs[:3] == sorted(copies, key=lambda p: -p.score)

    index = similarity.write_html(res, tmp_path)
    assert "copy-of-pointers" in index.read_text()
    page = (tmp_path / res.pairs[0].page).read_text()
    assert page.count("<mark>") >= 1 and "indep-pointers" in page


def test_the_starter_is_boilerplate(tmp_path):
    for n in ("ann", "ben"):
        (tmp_path / n / "02-tiled").mkdir(parents=True)
        shutil.copy(ROOT / "starter" / "02-tiled" / "matmul.cu", tmp_path / n / "02-tiled" / "matmul.cu")
    (tmp_path / "cyd").mkdir()   # hands in nothing for the stage
    res = similarity.compare(tmp_path, "02-tiled")
    assert [round(p.score, 3) for p in res.pairs] == [0.0] and res.missing == ["cyd"]


def test_batch_similarity_writes_a_page_per_stage(tmp_path, monkeypatch):
    from tilelab import cli
    from tilelab.commands import batch
    from tilelab.grading import classbatch

    monkeypatch.setattr(batch, "run_batch", lambda subs, opts, **kw: classbatch.BatchSummary(gradebook=tmp_path / "g.csv"))
    assert cli.main(["batch", str(DATA), "--out", str(tmp_path), "--backend", "emu", "--stage", "02-tiled",
                     "--similarity"]) == 0
    text = (tmp_path / "similarity" / "02-tiled" / "index.html").read_text()
    assert text.index("copy-of-pointers") < text.index("indep-helper")
