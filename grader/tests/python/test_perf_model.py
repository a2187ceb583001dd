"""The performance check from the emulator's counts (docs/performance.md, "The model"): which basis
grades, the [performance.model] thresholds, what the student is shown, and the validation's
statistics."""

import dataclasses
import importlib.util

import pytest

from tilelab import ROOT
from tilelab.score import metrics
from tilelab.specs import spec
from tilelab.score.scoring import perf_basis, score_stage

STAGE = spec.load(ROOT / "assignments" / "02-tiled" / "stage.toml")
MODEL = STAGE.performance.model


def _model(cgma, wavefronts, ms, bound="l1-shared"):
    return {"derived": {"cgma": cgma, "shared_wavefronts_per_warp_fma": wavefronts, "coalescing_efficiency": 1.0},
            "model": {"gpu": "H100 SXM (model)", "ms": ms, "bound": bound}}


def _results(ratio, verdict="pass", basis="model"):
    r = {f"submission.02-tiled.{d.name}.emu": {"verdict": "pass"} for d in STAGE.correctness_datasets}
    r[f"submission.02-tiled.{MODEL.check_name}.perf-model"] = {
        "verdict": verdict, "stage": "02-tiled", "impl": "submission", "shape": {"J": 256, "K": 256, "L": 256},
        "timing": {"basis": basis, "ratio_to_reference": ratio,
                   "impls": {"submission": {"model": _model(1.0, 0.0, 0.1 / ratio, "l1-shared")},
                             "reference": {"model": _model(16.0, 2.0, 0.1)}}}}
    return r


def test_the_basis_is_the_gpu_on_a_gpu_and_the_model_on_the_emulator_unless_chosen():
    assert perf_basis("auto", "gpu") == "gpu"
    assert perf_basis("auto", "emu") == "model"
    assert perf_basis("model", "gpu") == "model"
    assert perf_basis("gpu", "emu") == "gpu"
    with pytest.raises(ValueError):
        perf_basis("fast", "gpu")


@pytest.mark.parametrize("ratio, points", [(1.0, 30.0), (0.9, 30.0), (0.85, 15.0), (0.8, 0.0), (0.64, 0.0)])
def test_the_modelled_ratio_grades_with_the_timed_checks_linear_rule(ratio, points):
    s = score_stage(STAGE, "submission", _results(ratio), backend="emu")
    c = s.check("perf-model")
    assert c is not None and c.max_points == STAGE.points.performance
    assert c.points == pytest.approx(points)


def test_on_the_emulator_the_performance_points_are_in_the_maximum():
    s = score_stage(STAGE, "submission", _results(1.0), backend="emu")
    assert s.max_points == pytest.approx(STAGE.points.public + STAGE.points.performance)
    assert s.points == pytest.approx(s.max_points)


def test_a_missing_or_failed_count_earns_nothing():
    s = score_stage(STAGE, "submission", {}, backend="emu")
    assert s.check("perf-model").verdict == "missing" and s.check("perf-model").points == 0
    s = score_stage(STAGE, "submission", _results(1.0, verdict="wrong"), backend="emu")
    assert s.check("perf-model").points == 0


def test_times_that_are_not_modelled_earn_nothing():
    s = score_stage(STAGE, "submission", _results(1.0, basis=None), backend="emu")
    assert s.check("perf-model").points == 0


def test_a_stage_without_a_model_is_skipped_on_the_emulator():
    bare = dataclasses.replace(STAGE, performance=dataclasses.replace(STAGE.performance, model=None))
    s = score_stage(bare, "submission", _results(1.0), backend="emu")
    assert s.check("perf-model").verdict == "skipped"
    assert s.max_points == pytest.approx(STAGE.points.public)


def test_with_the_gpu_basis_the_emulator_skips_performance_as_before():
    s = score_stage(STAGE, "submission", _results(1.0), backend="emu", basis="gpu")
    assert s.check("perf").verdict == "skipped"


def test_the_student_sees_their_counts_beside_the_references_and_the_books():
    s = score_stage(STAGE, "submission", _results(0.64), backend="emu")
    lines = metrics.model_lines(s.check("perf-model"))
    text = "\n".join(lines)
    assert "CGMA (FLOPs per float loaded): yours 1.0, reference 16.0, book 16" in text
    assert "shared wavefronts per warp FMA: yours 0.000, reference 2.000" in text
    assert "l1-shared bound" in text and MODEL.book in text


def _with_backend(results, mine, ref=None, graded_by="traffic+sass"):
    check = results[f"submission.02-tiled.{MODEL.check_name}.perf-model"]["timing"]["impls"]
    check["submission"]["model"].update(graded_by=graded_by, backend=mine)
    if ref is not None:
        check["reference"]["model"].update(graded_by=graded_by, backend=ref)
    return results


def _backend(registers, blocks, lds128, lds32):
    ffma = 16
    hot = {"ffma": ffma, "lds": lds128 + lds32, "lds_by_width": {w: n for w, n in (("32", lds32), ("128", lds128)) if n}, "integer": 4,
           "total": 50, "per_ffma": {"lds": (lds128 + lds32) / ffma, "integer": 4 / ffma, "total": 50 / ffma}}
    return {"read": True, "nvcc": "nvcc 13.5 (V13.5.37)", "registers_per_thread": registers, "blocks_per_sm": blocks,
            "binding_limit": "registers", "spill_store_bytes": 0, "spill_load_bytes": 0, "hot_loop": hot}


def test_the_student_sees_what_nvccs_back_end_made_of_their_kernel_beside_the_reference():
    results = _with_backend(_results(0.64), _backend(40, 6, 0, 32), _backend(32, 8, 4, 16))
    s = score_stage(STAGE, "submission", results, backend="emu")
    text = "\n".join(metrics.model_lines(s.check("perf-model")))
    assert "model: traffic+sass" in text and "nvcc 13.5" in text
    assert "registers per thread (ptxas): yours 40, reference 32" in text
    assert "blocks per SM (registers, shared memory, threads): yours 6, reference 8; registers bind" in text
    assert "main loop, one pass: yours 16 FFMA, 32 shared loads (LDS 32), 4 integer: 50 instructions, 3.12 per FFMA (32% FFMA)" in text
    assert "main loop, one pass: reference 16 FFMA, 20 shared loads (LDS 16, LDS.128 4)" in text
    # Shown, not graded: the points are the traffic model's whatever the back end says.
    assert s.check("perf-model").points == score_stage(STAGE, "submission", _results(0.64), backend="emu").check("perf-model").points


def test_without_the_back_end_the_figures_say_the_model_is_the_traffic_models_and_why():
    why = "NVIDIA's compiler wheels were not found when this grading tree was configured"
    results = _with_backend(_results(0.64), {"read": False, "why": why}, graded_by="traffic")
    text = "\n".join(metrics.model_lines(score_stage(STAGE, "submission", results, backend="emu").check("perf-model")))
    assert f"model: traffic (the emulator's counts alone: {why})" in text
    assert "registers per thread" not in text


def test_a_grid_that_leaves_sms_idle_at_the_timed_shape_is_shown_with_its_factor():
    results = _results(0.007)
    impls = results[f"submission.02-tiled.{MODEL.check_name}.perf-model"]["timing"]["impls"]
    impls["submission"]["model"]["timed_grid"] = {"shape": {"J": 4096, "K": 4096, "L": 4096}, "observed": True,
                                                  "grid": [1, 1, 1], "block": [256, 1, 1], "blocks": 1,
                                                  "sms_busy": 1, "factor": 132}
    impls["reference"]["model"]["timed_grid"] = {"observed": True, "blocks": 65536, "sms_busy": 132, "factor": 1}
    text = "\n".join(metrics.model_lines(score_stage(STAGE, "submission", results, backend="emu").check("perf-model")))
    assert "grid at the timed shape 4096x4096x4096: yours 1 block(s) ([1, 1, 1]), 1 of the GPU's SMs busy: every " \
           "SM-side time x 132" in text
    full = "\n".join(metrics.model_lines(score_stage(STAGE, "submission", _results(1.0), backend="emu").check("perf-model")))
    assert "grid at the timed shape" not in full


def test_every_stage_has_a_model_with_sane_thresholds():
    for st in spec.load_all():
        m = st.performance.model
        assert m is not None, st.id
        assert 0 <= m.zero_credit_ratio < m.full_credit_ratio <= 1
        # Large enough to measure: every dimension >= 64, but for the 1 of a matrix-vector product
        # (08's model is J x K times a K x 1 vector).
        big = [n for n in m.shape if n != 1]
        assert len(big) >= len(m.shape) - 1 and all(n >= 64 for n in big), (st.id, m.shape)


@pytest.mark.parametrize("table, error", [
    ({"shape": [256, 256], "full_credit_ratio": 0.9, "zero_credit_ratio": 0.5}, "shape"),
    ({"shape": [256, 256, 0], "full_credit_ratio": 0.9, "zero_credit_ratio": 0.5}, "shape"),
    ({"shape": [256] * 3, "full_credit_ratio": 0.5, "zero_credit_ratio": 0.9}, "zero_credit_ratio"),
    ({"shape": [256] * 3, "full_credit_ratio": 0.9, "zero_credit_ratio": 0.5, "bok": "x"}, "unknown"),
    ({"shape": [256] * 3, "zero_credit_ratio": 0.5}, "full_credit_ratio"),
])
def test_a_bad_model_table_is_a_clear_spec_error(table, error):
    with pytest.raises(spec.SpecError, match=error):
        spec._model(table, "square", "stage.toml [performance.model]")


def _validation():
    path = ROOT / "grader" / "model-validation" / "model_validation.py"
    mod = importlib.util.spec_from_file_location("model_validation", path)
    m = importlib.util.module_from_spec(mod)
    mod.loader.exec_module(m)
    return m


def test_the_validations_rank_correlation_and_bands():
    v = _validation()
    assert v.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert v.spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert v.spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)
    assert [v.band(f) for f in (0.0, 0.5, 1.0)] == ["none", "partial", "full"]


@pytest.mark.parametrize("ratio, back, ok", [(1.0, 1.52, True), (0.95, 1.52, True), (0.85, 1.52, False),
                                             (1.0, 1.1, False), (1.0, None, False)])
def test_kit_model_asserts_full_credit_and_none_for_the_previous_kernel(tmp_path, ratio, back, ok):
    """kit.model.02-tiled: the solution at full credit, the basic kernel (CGMA 1 < 16) at none."""
    r = {"verdict": "pass", "message": "", "impl": "solution",
         "timing": {"basis": "model", "ratio_to_reference": ratio, "ratio_to_previous": back,
                    # the counted global loads per multiply-add (stage.toml max_global_loads_per_fma)
                    "impls": {"solution": {"global_loads_per_fma": 0.125},
                              "previous": {"global_loads_per_fma": 2.0}}}}
    f = tmp_path / "r.json"
    f.write_text(__import__("json").dumps(r))
    assert (_validation().assert_grades(f, "02-tiled") == 0) == ok


def test_the_validation_reports_the_fitting_and_held_out_sets_apart(tmp_path, capsys):
    """compare: one table and summary per set (issue #26: the fitting set, the five held-out sets and
    the four tensor-core held-out sets of issue #30); exit 0 only when every set meets the targets."""
    v = _validation()
    assert v.SETS == tuple(v.model_variants.SETS)
    assert v.SETS[:2] == ("fitting", "held-out") and "held-out-tc4" in v.SETS

    def rows(ratios, which):
        return {f"{which}:{i}": {"stage": "02-tiled", "set": which, "what": "x", "verdict": "pass",
                                 "ratio_to_reference": r} for i, r in enumerate(ratios)}

    # each set's four ratios, a little different from the others'
    emu = {}
    for i, which in enumerate(v.SETS):
        emu.update(rows([0.4 + 0.01 * i, 0.7 + 0.01 * i, 0.95 + 0.01 * i, 1.1 + 0.01 * i], which))
    gpu = {n: {"ratio_to_reference": e["ratio_to_reference"]} for n, e in emu.items()}
    md = tmp_path / "t.md"
    assert v.compare(emu, gpu, md) == 0
    out = capsys.readouterr().out
    for heading in ("Fitting set", "Held-out set", "Second held-out set", "Third held-out set", "Fourth held-out set",
                    "Fifth held-out set", "Tensor-core held-out set", "Second tensor-core held-out set",
                    "Third tensor-core held-out set", "Fourth tensor-core held-out set"):
        assert heading in out
    assert out.count("targets met") == len(v.SETS) + 1
    assert md.read_text().strip() == out.strip()
    gpu["held-out:2"]["ratio_to_reference"] = 0.85  # full credit modelled, partial measured
    assert v.compare(emu, gpu, None) == 1
    assert v.compare(emu, gpu, None, "fitting") == 0
    for which in v.SETS[2:]:  # every later set is judged on its own
        assert v.compare(emu, gpu, None, which) == 0, which
        gpu[f"{which}:2"]["ratio_to_reference"] = 0.85
        assert v.compare(emu, gpu, None, which) == 1, which
    # A set with no kernels to compare does not meet the targets: a file written before the second
    # held-out set fails `all`, not the sets it has.
    same = {n: {"ratio_to_reference": e["ratio_to_reference"]} for n, e in emu.items()}
    older = {n: e for n, e in emu.items() if e["set"] in ("fitting", "held-out")}
    assert v.compare(older, same, None) == 1
    assert v.compare(older, same, None, "fitting") == 0 and v.compare(older, same, None, "held-out") == 0
    assert v.compare({n: e for n, e in emu.items() if e["set"] == "fitting"}, gpu, None) == 1
    assert [n for n in emu if v.set_of(emu[n]) == "held-out"] == [f"held-out:{i}" for i in range(4)]
