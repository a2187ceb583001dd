"""Reading nvcc's back end without NVIDIA's tools (run/sass.py, run/kernel_resources.py,
run/occupancy.py): the parser on checked-in text that the wheels' nvdisasm, ptxas and cuobjdump
printed for sm_90 (data/sass/: two kernels written for it, tiled-16.cu and rolled-k.cu, and the 06
solution's ptxas report and .nv.info), and sm_90's occupancy rules on the walkthroughs' figures (the
cases in data/occupancy-cases.json, which the judge's C++ is tested on too)."""

import json
from pathlib import Path

import pytest

from tilelab.run import kernel_resources, occupancy, sass

DATA = Path(__file__).resolve().parent / "data" / "sass"


def _only(name):
    fns = sass.functions((DATA / name).read_text())
    assert len(fns) == 1
    return fns[0]


def test_a_tiled_kernels_hot_loop_is_its_step_loop_with_the_k_loop_unrolled():
    fn = _only("tiled-16.sass")
    assert fn.name == "_Z12TiledProductPKfS0_Pfi"
    hot = sass.loop_facts(fn)
    # nvcc unrolled the step loop (s < n; s += 16) 4 times: a pass is 4 steps of 16x16 tiles, each 16
    # FFMA, the A tile's row read 4 k at a time (LDS.128: aligned, unrolled), the B tile's column one
    # float at a time, two barriers and one load and store of each tile.
    assert (hot["ffma"], hot["barrier"], hot["ldg"], hot["sts"]) == (64, 8, 8, 8)
    assert hot["lds_by_width"] == {"32": 64, "128": 16}
    assert hot["nested"] == 0 and hot["loops"] == 2      # the other: the trap loop after EXIT
    assert hot["per_ffma"]["lds"] == pytest.approx(80 / 64)
    assert hot["per_ffma"]["total"] == pytest.approx(hot["total"] / 64)
    assert sum(hot[k] for k in sass.CLASSES) == hot["total"]
    assert hot["mnemonics"]["LDS.128"] == 16


def test_a_k_loop_left_rolled_is_the_hot_loop_not_the_phase_loop_around_it():
    fn = _only("rolled-k.sass")
    loops = fn.loops()
    outer = [lp for lp in loops if lp.nested]
    assert len(outer) == 1 and outer[0].own_products == 0
    hot = fn.hot_loop()
    assert hot is not None and hot.nested == 0 and hot.head > outer[0].head and hot.tail < outer[0].tail
    facts = sass.loop_facts(fn)
    assert (facts["ffma"], facts["lds"], facts["barrier"], facts["ldg"]) == (1, 2, 0, 0)


def test_instructions_are_classed_by_opcode_and_loads_by_width():
    ins = {m: sass.Instruction(0, m, "", False) for m in
           ("FFMA", "IMAD.WIDE.U32", "UIADD3", "LDG.E.128.CONSTANT", "LDS.64", "LDSM.16.M88.X4", "HMMA.1688.F32.TF32",
            "HFMA2.MMA", "BAR.SYNC.DEFER_BLOCKING", "DFMA", "I2FP.F32.S32", "STL.64", "S2R")}
    assert {m: i.kind for m, i in ins.items()} == {
        "FFMA": "ffma", "IMAD.WIDE.U32": "integer", "UIADD3": "uniform", "LDG.E.128.CONSTANT": "ldg", "LDS.64": "lds",
        "LDSM.16.M88.X4": "lds", "HMMA.1688.F32.TF32": "tensor", "HFMA2.MMA": "other", "BAR.SYNC.DEFER_BLOCKING": "barrier",
        "DFMA": "fp64", "I2FP.F32.S32": "conversion", "STL.64": "stl", "S2R": "move"}
    assert [ins[m].width for m in ("LDG.E.128.CONSTANT", "LDS.64", "LDSM.16.M88.X4", "STL.64", "FFMA")] == [128, 64, 128, 64, 0]


def test_ptxas_report_gives_registers_spills_and_shared_memory_per_kernel():
    report = kernel_resources.ptxas_report((DATA / "06-register-tiled.ptxas").read_text())
    aligned, general = report["_Z15MatrixMulKernelILb1EEvPKfS1_Pfiii"], report["_Z15MatrixMulKernelILb0EEvPKfS1_Pfiii"]
    assert aligned == {"arch": "sm_90", "stack_frame_bytes": 16, "spill_store_bytes": 16, "spill_load_bytes": 24,
                       "registers": 128, "static_shared_bytes": 33280, "barriers": 1}
    assert (general["registers"], general["spill_store_bytes"]) == (127, 0)


def test_launch_bounds_are_read_from_the_cubins_info():
    bounds = kernel_resources.max_threads((DATA / "06-register-tiled.elf.txt").read_text())
    assert bounds == {"_Z15MatrixMulKernelILb0EEvPKfS1_Pfiii": 256, "_Z15MatrixMulKernelILb1EEvPKfS1_Pfiii": 256}


# The cases the judge's C++ (grader/runner/occupancy.cpp, tests/cpp/test_occupancy.cpp) is tested on too.
OCCUPANCY_CASES = json.loads((DATA.parent / "occupancy-cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", OCCUPANCY_CASES, ids=lambda c: f"{c['registers']}r-{c['threads']}t-{c['shared_bytes']}B")
def test_blocks_per_sm_follow_sm90s_occupancy_rules(case):
    assert occupancy.blocks_per_sm(case["registers"], case["threads"], case["shared_bytes"]) == \
        (case["blocks_per_sm"], case["binding_limit"])
