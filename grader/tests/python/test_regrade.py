"""Regrades that mean what they say: the resume key includes the grader itself (identity.py), one
student can be regraded by name, and the gradebook says which grader and seed made each grade."""

import csv
import shutil

import pytest

import fakes
from tilelab import ROOT
from tilelab.commands import batch
from tilelab.grading import classbatch
from tilelab.run import identity

STAGE = "01-basic"


class Grader:
    def __init__(self):
        self.calls = []

    def __call__(self, go):
        self.calls.append(go.name)
        return fakes.report(go.name, verdict="pass", hidden=False)


def subs(tmp_path):
    for n in ("alice", "bob"):
        (tmp_path / "subs" / n / STAGE).mkdir(parents=True)
        (tmp_path / "subs" / n / STAGE / "matmul.cu").write_text(f"// {n}\n")
    return tmp_path / "subs"


def opts(tmp_path, **kw):
    return classbatch.BatchOptions(**(dict(out=tmp_path / "out", backend="emu", stages=[STAGE], formats=("grade",),
                                      hidden=True, seed="s3cret") | kw))


def test_a_changed_grader_regrades_everyone(tmp_path, monkeypatch):
    g = Grader()
    batch.run_batch(subs(tmp_path), opts(tmp_path), grader=g)
    batch.run_batch(tmp_path / "subs", opts(tmp_path), grader=g)
    assert sorted(g.calls) == ["alice", "bob"], "same grader: nobody is regraded"
    monkeypatch.setattr(classbatch.identity, "digest", lambda root=None: "0" * 64)   # a grader fix
    batch.run_batch(tmp_path / "subs", opts(tmp_path), grader=g)
    assert sorted(g.calls) == ["alice", "alice", "bob", "bob"]


def test_the_grader_digest_follows_its_code_and_specs_not_its_tests(tmp_path):
    kit = tmp_path / "kit"
    for part in ("grader/tilelab/score", "assignments/01-basic", "grader/tests/python"):
        (kit / part).mkdir(parents=True)
    (kit / "grader/tilelab/score/scoring.py").write_text("A = 1\n")
    (kit / "assignments/01-basic/stage.toml").write_text("x = 1\n")
    (kit / "grader/tests/python/test_x.py").write_text("\n")
    first = identity.digest(kit)
    identity.digest.cache_clear()
    (kit / "grader/tests/python/test_x.py").write_text("# changed\n")
    assert identity.digest(kit) == first
    identity.digest.cache_clear()
    (kit / "grader/tilelab/score/scoring.py").write_text("A = 2\n")
    second = identity.digest(kit)
    identity.digest.cache_clear()
    (kit / "assignments/01-basic/stage.toml").write_text("x = 2\n")
    assert len({first, second, identity.digest(kit)}) == 3
    identity.digest.cache_clear()


def test_regrade_by_name_regrades_that_student_only(tmp_path):
    g = Grader()
    batch.run_batch(subs(tmp_path), opts(tmp_path), grader=g)
    batch.run_batch(tmp_path / "subs", opts(tmp_path, regrade_names=("bob",)), grader=g)
    assert g.calls == ["alice", "bob", "bob"] or sorted(g.calls[:2]) == ["alice", "bob"] and g.calls[2:] == ["bob"]
    with pytest.raises(classbatch.BatchError, match="carol"):
        batch.run_batch(tmp_path / "subs", opts(tmp_path, regrade_names=("carol",)), grader=g)


def test_the_gradebook_records_the_grader_version_and_seed(tmp_path):
    batch.run_batch(subs(tmp_path), opts(tmp_path), grader=Grader())
    rows = list(csv.DictReader(open(tmp_path / "out" / classbatch.GRADEBOOK)))
    assert {r["grader"] for r in rows} == {identity.version()} and identity.version().startswith("g")
    assert {r["seed"] for r in rows} == {"s3cret"}
