"""Every stage.toml loads and follows the rules of the design; malformed specs are clear errors."""

import pytest

from tilelab import ROOT
from tilelab.specs import spec


def test_all_stages_load():
    stages = spec.load_all(ROOT)
    assert [s.id for s in stages] == sorted(s.id for s in stages)
    assert stages and stages[0].id == "01-basic"


@pytest.mark.parametrize("stage", spec.load_all(ROOT), ids=lambda s: s.id)
def test_datasets_follow_the_design(stage):
    names = {d.name for d in stage.datasets}
    assert stage.performance.dataset in names
    assert any(d.distribution == "integer" for d in stage.datasets), "one integer-exact dataset"
    # The smallest shape the stage allows (1, or the one tile a 02-tiled width must be a multiple of).
    assert any(min(d.J, d.K, d.L) == stage.width_multiple for d in stage.datasets), "a degenerate shape"
    assert all(d.distribution != "integer" or d.K < 2**18 for d in stage.datasets)
    sizes = {max(d.J, d.K, d.L) for d in stage.datasets}
    if stage.width_multiple == 1:
        assert {15, 17} & sizes or {31, 33} & sizes, "sizes straddle a tile multiple"
    assert stage.points.total > 0


def _write(tmp_path, text):
    p = tmp_path / "stage.toml"
    p.write_text(text)
    return p


GOOD = """
[stage]
id = "99-x"
title = "t"
api = "square"
[[dataset]]
name = "a"
width = 4
distribution = "normal"
seed = 1
[performance]
dataset = "a"
full_credit_ratio = 0.9
zero_credit_ratio = 0.5
[points]
public = 1
hidden = 0
host_function = 0
performance = 1
"""


def test_good_spec_loads(tmp_path):
    s = spec.load(_write(tmp_path, GOOD))
    assert s.dataset("a").J == 4


@pytest.mark.parametrize("old, new, msg", [
    ('api = "square"', 'api = "cube"', "'api' must be one of"),
    ("width = 4", "width = 0", "sizes must be >= 1"),
    ('distribution = "normal"', 'distribution = "ones"', "'distribution' must be one of"),
    ('dataset = "a"\nfull', 'dataset = "zz"\nfull', "'zz' is not defined"),
    ("full_credit_ratio = 0.9", "full_credit_ratio = 0.1", "zero_credit_ratio < full_credit_ratio"),
    ("seed = 1", "", "missing key 'seed'"),
    ("[stage]", "[stage", "not valid TOML"),
    ("performance = 1", 'performance = 1\nunearnable = "drop"', "'unearnable' must be one of"),
    ("performance = 1", 'performance = 1\nsafety_penalty = "all"', "'safety_penalty' must be"),
    ("performance = 1", "performance = 1\nsafety_penalty = -2", "'safety_penalty' must be"),
    ("performance = 1", "performance = 1\nsafety_penality = 2", "unknown key"),
    ("performance = 1", "performance = 1\nquestions = -1", "'questions' must be"),
    ('api = "square"', 'api = "square"\nthreads = "tile"', "'threads' must be one of"),
    # gridDim.y is at most 65,535 blocks: 65,535 x 16 rows is the most a dataset may have
    ("width = 4", "width = 1048561", "more than 65535 blocks"),
    ("[points]", "[hidden]\nrule = 'r'\ncount = 1\nmin = 1\nmax = 1048561\n[points]", "past the 1048560 rows"),
])
def test_bad_spec_is_a_clear_error(tmp_path, old, new, msg):
    with pytest.raises(spec.SpecError, match=msg):
        spec.load(_write(tmp_path, GOOD.replace(old, new, 1)))


@pytest.mark.parametrize("line, unearnable, penalty", [
    ("", "exclude", None),
    ('unearnable = "keep"\nsafety_penalty = "dataset"', "keep", None),
    ("safety_penalty = 2.5", "exclude", 2.5),
    ("safety_penalty = 0", "exclude", 0.0),
])
def test_point_rules_load_with_their_defaults(tmp_path, line, unearnable, penalty):
    s = spec.load(_write(tmp_path, GOOD.replace("performance = 1", "performance = 1\n" + line, 1)))
    assert (s.points.unearnable, s.points.safety_penalty) == (unearnable, penalty)


HIDDEN = '\n[hidden]\nrule = "r"\ncount = 2\nmin = 1\nmax = 100\n'


@pytest.mark.parametrize("extra, msg", [
    # [hidden]: the bounds the C++ runner used to check only at run time, and what it never did.
    (HIDDEN.replace("min = 1", "min = 0"), r"\[hidden\]: 'min' must be >= 1"),
    (HIDDEN.replace("max = 100", "max = 0"), r"\[hidden\]: 'max' must be >= 1"),
    (HIDDEN.replace("min = 1", "min = 50").replace("max = 100", "max = 40"), "needs min <= max"),
    (HIDDEN.replace("max = 100", "max = 100\nmultiple_of = 0"), "'multiple_of' must be >= 1"),
    (HIDDEN.replace("max = 100", "max = 100\nmultiple_of = 128"), "no multiple of multiple_of = 128 lies in"),
    (HIDDEN.replace("max = 100", "max = 100\nmultiple_of = 32\navoid_multiple_of = 8"), "also a multiple"),
    # No size in range qualifies (16 is the only one): drawing would never end.
    (HIDDEN.replace("min = 1", "min = 16").replace("max = 100", "max = 16\navoid_multiple_of = 8"),
     "no size can be drawn"),
    (HIDDEN.replace("max = 100", "max = 100\navoid_multiple_of = -8"), "'avoid_multiple_of' must be >= 0"),
    (HIDDEN.replace("count = 2", "count = 0"), "'count' must be >= 1"),
    (HIDDEN.replace("count = 2\n", ""), r"\[hidden\]: missing key 'count'"),
    (HIDDEN.replace("max = 100", "max = 100\ndistribution = \"gauss\""), r"\[hidden\]: 'distribution' must be one of"),
    (HIDDEN.replace("max = 100", "max = 100\nmultiple = 32"), r"\[hidden\]: unknown key\(s\) \['multiple'\]"),
    (HIDDEN.replace("max = 100", 'max = "100"'), "'max' must be int"),
    ("", None),
])
def test_hidden_rule_is_validated_when_loaded(tmp_path, extra, msg):
    path = _write(tmp_path, GOOD + extra)
    if msg is None:
        assert spec.load(path).hidden is None
        return
    with pytest.raises(spec.SpecError, match=msg):
        spec.load(path)


@pytest.mark.parametrize("old, new, msg", [
    ("zero_credit_ratio = 0.5", "zero_credit_ratio = 0.5\nmin_runs = 0", "'min_runs' must be >= 1"),
    ("zero_credit_ratio = 0.5", "zero_credit_ratio = 0.5\nmin_runs = 50\nmax_runs = 10", "min_runs <= max_runs"),
    ("zero_credit_ratio = 0.5", "zero_credit_ratio = 0.5\ntarget_rel_stderr = 0", "'target_rel_stderr' must be in"),
    ("zero_credit_ratio = 0.5", 'zero_credit_ratio = 0.5\nleaderboard = "gflops"', r"\[performance\]: unknown key"),
    # [stage]: types and unknown keys (host_function = "false" was read as true).
    ('api = "square"', 'api = "square"\nhost_function = "false"', "'host_function' must be bool"),
    ('api = "square"', 'api = "square"\nrequires_shared_memory = 1', "'requires_shared_memory' must be bool"),
    ('api = "square"', 'api = "square"\ntile = 0', "'tile' must be >= 1"),
    ('api = "square"', 'api = "square"\nwidth_multiple = 0', "'width_multiple' must be >= 1"),
    ('api = "square"', 'api = "square"\nhost_fucntion = true', r"\[stage\]: unknown key\(s\) \['host_fucntion'\]"),
    # [[dataset]]: tags, seeds, unknown keys.
    ("seed = 1", 'seed = 1\ntags = ["lrage"]', "tags must be among"),
    ("seed = 1", "seed = -1", "'seed' must be >= 0"),
    ("seed = 1", "seed = 1\nwidht = 4", r"'a': unknown key\(s\) \['widht'\]"),
    ('api = "square"', 'api = "rect"', "missing key 'shape'"),
    # [timeouts], and a table nobody reads.
    ("[points]", "[timeouts]\ncorrect = 0\n[points]", "'correct' must be >= 1"),
    ("[points]", "[timeouts]\ncompile = 10\n[points]", r"\[timeouts\]: unknown key"),
    ("[points]", "[timeout]\ncorrect = 10\n[points]", r"unknown key\(s\) \['timeout'\]"),
    ("public = 1", "public = -1", "'public' must be >= 0"),
])
def test_every_key_is_validated(tmp_path, old, new, msg):
    with pytest.raises(spec.SpecError, match=msg):
        spec.load(_write(tmp_path, GOOD.replace(old, new, 1)))


def test_defaults_are_filled_in(tmp_path):
    s = spec.load(_write(tmp_path, GOOD + HIDDEN))
    assert (s.tile, s.width_multiple, s.host_function, s.requires_shared_memory, s.previous) == (16, 1, False, False, "")
    assert s.timeouts == {"correct": 60, "perf": 300}
    assert (s.performance.basis, s.performance.min_runs, s.performance.max_runs,
            s.performance.target_rel_stderr) == ("reference", 30, 200, 0.01)
    assert (s.hidden.avoid_multiple_of, s.hidden.multiple_of, s.hidden.distribution) == (0, 1, "normal")


def test_the_grid_y_limit_admits_exactly_65535_tiles_of_rows(tmp_path):
    ok = GOOD.replace('api = "square"', 'api = "rect"\ntile = 16').replace("width = 4", "shape = [1048560, 1, 1]")
    assert spec.load(_write(tmp_path, ok)).dataset("a").J == 65535 * 16
    with pytest.raises(spec.SpecError, match="more than 65535 blocks"):
        spec.load(_write(tmp_path, ok.replace("1048560", "1048561")))


def test_questions_points_load_and_count_in_the_total(tmp_path):
    s = spec.load(_write(tmp_path, GOOD.replace("performance = 1", "performance = 1\nquestions = 10")))
    assert s.points.questions == 10 and s.points.total == 12


# ---- #26 item 6: the model's shape is of the stage's own class; the performance switch ----

MODEL = "[performance.model]\nshape = {shape}\nfull_credit_ratio = 0.9\nzero_credit_ratio = 0.5\n"
RECT_GOOD = GOOD.replace('api = "square"', 'api = "rect"').replace("width = 4", "shape = [3, 4, 5]")


@pytest.mark.parametrize("stage", spec.load_all(ROOT), ids=lambda s: s.id)
def test_each_stage_models_a_shape_of_its_own_class(stage):
    """A rectangular stage's modelled (and checked) product has J, K and L all different, so a
    kernel that confuses two of them -- right on every square -- cannot earn its points there."""
    m = stage.performance.model
    assert m is not None
    assert len(set(m.shape)) == (1 if stage.api == "square" else 3), m.shape


@pytest.mark.parametrize("text, shape, msg", [
    (RECT_GOOD, "[256, 256, 256]", "all different"),
    (RECT_GOOD, "[256, 192, 256]", "all different"),
    (GOOD, "[256, 192, 384]", "must be square"),
])
def test_a_model_shape_of_another_class_is_refused(tmp_path, text, shape, msg):
    with pytest.raises(spec.SpecError, match=msg):
        spec.load(_write(tmp_path, text + MODEL.format(shape=shape)))


def test_a_model_shape_of_the_stage_class_loads(tmp_path):
    assert spec.load(_write(tmp_path, RECT_GOOD + MODEL.format(shape="[256, 192, 384]"))).performance.model


def test_performance_requires_every_dataset_correct_unless_the_stage_says_otherwise(tmp_path):
    assert spec.load(_write(tmp_path, GOOD)).performance.requires_all_correct is True
    lax = GOOD.replace("zero_credit_ratio = 0.5\n", "zero_credit_ratio = 0.5\nrequires_all_correct = false\n", 1)
    assert spec.load(_write(tmp_path, lax)).performance.requires_all_correct is False
    with pytest.raises(spec.SpecError, match="requires_all_correct"):
        spec.load(_write(tmp_path, lax.replace("= false", '= "no"')))


# ---- max_global_loads_per_fma: what shared memory is for (docs/integrity.md) ----
MODEL_256 = "\n[performance.model]\nshape = [256, 256, 256]\nfull_credit_ratio = 0.9\nzero_credit_ratio = 0.8\n"


@pytest.mark.parametrize("limit, msg", [
    ("0.1875", None),                          # 1.5 x 2/16, as 02-tiled
    ("0.125", None),                           # exactly what tiles of 16 load on 256^3
    ("0.12", "below the 0.125 loads per multiply-add that tiles of 16"),
    ("2", "must be in \\(0, 2\\)"),
    ("0", "must be in \\(0, 2\\)"),
    ('"0.2"', "'max_global_loads_per_fma' must be float"),
])
def test_max_global_loads_per_fma_is_bounded_by_the_tile(tmp_path, limit, msg):
    text = GOOD.replace('api = "square"', f'api = "square"\nmax_global_loads_per_fma = {limit}', 1) + MODEL_256
    if msg is None:
        assert spec.load(_write(tmp_path, text)).max_global_loads_per_fma == float(limit)
        return
    with pytest.raises(spec.SpecError, match=msg):
        spec.load(_write(tmp_path, text))


def test_max_global_loads_per_fma_needs_the_counts_of_a_model(tmp_path):
    text = GOOD.replace('api = "square"', 'api = "square"\nmax_global_loads_per_fma = 0.2', 1)
    with pytest.raises(spec.SpecError, match="has no \\[performance.model\\]"):
        spec.load(_write(tmp_path, text))


def test_the_stages_that_require_shared_memory_limit_the_loads_to_one_and_a_half_times_their_tiles():
    for s in spec.load_all():
        if s.requires_shared_memory:
            assert s.max_global_loads_per_fma == 1.5 * 2 / s.tile, s.id
        assert s.max_global_loads_per_fma is None or s.requires_shared_memory, s.id


# ---- [sanitizer]: the datasets compute-sanitizer's checks run on (issue #40, item 3) ----

@pytest.mark.parametrize("stage", spec.load_all(ROOT), ids=lambda s: s.id)
def test_the_sanitizer_datasets_have_edge_threads_where_the_stage_allows_them(stage):
    """Each tool's datasets are correctness datasets. In a stage that allows any size, J and L are
    odd on every one -- a multiple of no (power-of-two) tile width -- so edge block rows and columns
    exist, and the first has an odd K too (a partial last phase); a stage whose widths are multiples
    of a tile keeps them legal (spec.py's width_multiple check)."""
    from tilelab.run.sanitize import MEMCHECK_PADDING
    for tool in spec.SANITIZER_TOOLS:
        names = stage.sanitizer.datasets_for(tool)
        assert names, f"{stage.id}: no {tool} dataset"
        for n in names:
            d = stage.dataset(n)
            assert "perf" not in d.tags
            if stage.width_multiple == 1:
                assert d.J % 2 and d.L % 2, f"{stage.id} {tool} {n}: J and L must be odd (edge block rows and columns)"
            # memcheck sees a read past the last row only inside its padding: a tile's rows past it fit.
            assert (stage.tile - 1) * max(d.K, d.L) * 4 < MEMCHECK_PADDING
        first = stage.dataset(names[0])
        if stage.width_multiple == 1:
            assert first.K % 2, f"{stage.id} {tool} {names[0]}: K must be odd (a partial last phase)"


def test_sanitizer_defaults_prefer_odd_sizes_and_racecheck_small_ones(tmp_path):
    text = GOOD.replace('api = "square"', 'api = "square"\ntile = 16').replace(
        'name = "a"\nwidth = 4', 'name = "a"\nwidth = 128') + """
[[dataset]]
name = "b"
width = 129
distribution = "normal"
seed = 2
[[dataset]]
name = "c"
width = 1001
distribution = "normal"
seed = 3
"""
    s = spec.load(_write(tmp_path, text))
    assert s.sanitizer == spec.Sanitizer(("b",), ("b",))
    s = spec.load(_write(tmp_path, text + '[sanitizer]\ndatasets = ["c"]\n'))
    assert s.sanitizer == spec.Sanitizer(("c",), ("b",))    # 1001 is too large for racecheck


@pytest.mark.parametrize("table, msg", [
    ('datasets = ["zz"]', "'zz' is not a correctness dataset"),
    ("datasets = []", "'datasets' names no dataset"),
    ('datasets = ["a", "a"]', "names a dataset twice"),
    ('racecheck = ["big"]', "too large for racecheck"),
    ('racecheck = ["a"]\nmemcheck = ["a"]', r"\[sanitizer\]: unknown key\(s\) \['memcheck'\]"),
])
def test_the_sanitizer_table_is_validated(tmp_path, table, msg):
    text = GOOD + '[[dataset]]\nname = "big"\nwidth = 300\ndistribution = "normal"\nseed = 9\n'
    with pytest.raises(spec.SpecError, match=msg):
        spec.load(_write(tmp_path, text + "[sanitizer]\n" + table + "\n"))


def test_docs_grading_shows_the_sanitizer_datasets():
    """docs/grading.md's table between its sanitizer-datasets markers is the specs' (regenerate with
    the one-liner under it)."""
    import re

    from tilelab.specs import codegen
    doc = (ROOT / "docs" / "grading.md").read_text()
    m = re.search(r"<!-- sanitizer-datasets:begin -->\n(.*?)<!-- sanitizer-datasets:end -->", doc, re.S)
    assert m, "docs/grading.md lacks the sanitizer-datasets markers"
    assert m.group(1) == codegen.sanitizer_markdown(spec.load_all(ROOT))


def test_begins_from_must_name_a_stage(tmp_path):
    # [stage] begins_from: where `./tilelab starter --from-previous` begins (08 from 01's kernel).
    assert {s.id: s.begins_from for s in spec.load_all()}["08-rows-columns-matvec"] == "01-basic"
    d = tmp_path / "assignments" / "99-x"
    d.mkdir(parents=True)
    (d / "stage.toml").write_text(GOOD.replace('api = "square"', 'api = "square"\nbegins_from = "00-nope"', 1))
    with pytest.raises(spec.SpecError, match="begins_from stage '00-nope' does not exist"):
        spec.load_all(tmp_path)
