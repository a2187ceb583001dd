"""nvcc's back end on real kernels (run/sass_facts.py), with the kit's compiler wheels (no GPU): the
stage solutions' registers, blocks per SM and hot loops, and the held-out kernels whose 64-bit
indices the traffic model cannot see (docs/performance.md, "What nvcc's back end says"). Needs the
wheels that grader/setup/install-deps.sh installs; where they are absent this module is skipped,
except under CI=true, where the set-up installs them and their absence fails (and the instructor's
kit: the student repository has neither the solutions nor the held-out kernels)."""

import os

import pytest

from tilelab import ROOT
from tilelab.run import nvcc_wheel, occupancy, sass_facts

if not (ROOT / "solutions").exists():
    pytest.skip("needs the instructor's kit (the solutions, the held-out kernels)", allow_module_level=True)
WHEEL, WHY = nvcc_wheel.find()
if WHEEL is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"the set-up installs NVIDIA's compiler wheels on CI: {WHY}")
    pytest.skip(WHY, allow_module_level=True)

HELDOUT = ROOT / "grader" / "model-validation" / "heldout"
HELDOUT6 = HELDOUT / "cuda-cores-6"
_CACHE: dict = {}


def _main(path):
    if path not in _CACHE:
        _CACHE[path] = sass_facts.of_source(path, root=WHEEL)
    facts = _CACHE[path]
    assert facts["read"], facts.get("why")
    return facts["kernels"][facts["main"]]


def _solution(stage):
    return _main(ROOT / "solutions" / stage / "matmul.cu")


def test_the_register_tiled_solution_fits_two_blocks_and_its_loop_is_multiply_adds_fed_by_lds128():
    k = _solution("06-register-tiled")
    assert k["registers"] <= 128 and k["max_threads_per_block"] == 256     # __launch_bounds__(256, 2)
    assert occupancy.blocks_per_sm(k["registers"], 256, k["static_shared_bytes"]) == (2, "registers")
    hot = k["hot_loop"]
    assert hot["ffma"] >= 512                   # 8x8 outputs a thread, the BK steps unrolled
    assert set(hot["lds_by_width"]) == {"128"}   # every shared read a float4
    assert hot["ffma"] / hot["total"] > 0.75     # walkthrough 06: 87% multiply-adds in the main loop


def test_the_basic_kernel_loads_two_floats_from_global_memory_per_multiply_add():
    hot = _solution("01-basic")["hot_loop"]
    assert hot["per_ffma"]["ldg"] == pytest.approx(2.0)
    assert hot["lds"] == 0 and hot["barrier"] == 0


def test_64_bit_indices_cost_more_integer_instructions_per_multiply_add():
    basic = _solution("01-basic")["hot_loop"]["per_ffma"]["integer"]
    int64 = _main(HELDOUT6 / "b01-int64-b32x8" / "01-basic" / "matmul.cu")["hot_loop"]["per_ffma"]["integer"]
    assert int64 > basic * 1.2, (int64, basic)
    tiled = _solution("02-tiled")["hot_loop"]["per_ffma"]["integer"]
    tiled64 = _main(HELDOUT6 / "b02-t16-int64" / "02-tiled" / "matmul.cu")["hot_loop"]["per_ffma"]["integer"]
    assert tiled64 > tiled, (tiled64, tiled)


def test_of_a_templates_instantiations_alike_the_one_with_more_registers_is_read():
    # k06-256x64: the aligned and general instantiations unroll the same loop; 127 and 130
    # registers (nvcc 13.0 and 13.5), 2 or 1 blocks of 256 threads per SM.
    facts = sass_facts.of_source(HELDOUT / "cuda-cores-3" / "k06-256x64" / "06-register-tiled" / "matmul.cu", root=WHEEL)
    regs = sorted(k["registers"] for k in facts["kernels"].values())
    assert len(regs) == 2 and regs[0] < regs[1]
    assert facts["kernels"][facts["main"]]["registers"] == regs[1]


def test_a_double_sum_is_found_by_its_dfma():
    hot = _main(HELDOUT / "cuda-cores-5" / "v01-double-acc" / "01-basic" / "matmul.cu")["hot_loop"]
    assert hot["fp64"] >= hot["products"] > 0 and hot["ffma"] == 0 and hot["conversion"] > 0


def test_the_tensor_core_solutions_hot_loop_is_mma():
    k = _solution("07-tensor-cores")
    assert k["hot_loop"]["tensor"] > 0 and k["hot_loop"]["ffma"] == 0
    assert k["registers"] > 128


def test_a_kernel_on_the_kits_ptx_wrappers_is_read_as_the_gpu_runs_it():
    # 07's solution includes <tilelab/mma_ptx.cuh>: on nvcc's path as in the GPU build (without it:
    # "cannot open source file"); its hot loop is mma.sync fed by ldmatrix.
    k = _solution("07-tensor-cores")
    assert k["hot_loop"]["tensor"] > 0 and k["hot_loop"]["ffma"] == 0
    assert k["hot_loop"]["mnemonics"].get("LDSM.16.M88.4", 0) > 0


def test_a_file_nvcc_refuses_and_a_missing_wheel_give_facts_that_say_why(tmp_path):
    bad = tmp_path / "matmul.cu"
    bad.write_text("__global__ void k(float* p) { p[0] = undeclared; }\n")
    facts = sass_facts.of_source(bad, root=WHEEL)
    assert not facts["read"] and "nvcc did not compile" in facts["why"] and "undeclared" in facts["why"]
    facts = sass_facts.of_source(bad, root=tmp_path / "nowhere")
    assert not facts["read"]
    out = tmp_path / "facts.json"
    assert sass_facts.main(["--wheel", str(tmp_path / "nowhere"), "--cubin", str(tmp_path / "none.cubin"),
                            "--out", str(out)]) == 0 and '"read": false' in out.read_text()
