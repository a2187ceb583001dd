"""The emulator suite's own machinery (issue #13): the Windows-saved mutant really is saved as a
Windows editor saves it, and the differential check's variants are as many and as varied as
docs/emulator.md says."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

GRADER = Path(__file__).resolve().parents[2]
# The known-bad suite and the differential variants are instructor material: not in the student
# repository (tilelab release), where this module is skipped.
pytestmark = pytest.mark.skipif(not (GRADER.parent / "solutions").exists(), reason="needs the instructor's kit")


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def test_windows_mutant_has_bom_and_crlf(tmp_path):
    mutate = load(GRADER / "tests" / "submissions" / "mutate.py")
    found = {n: (s, m) for n, s, m in mutate.mutants()}
    stage, m = found["02-windows-crlf"]
    text = mutate.apply("02-windows-crlf", stage, m)
    assert text.startswith("\ufeff")
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    # Written as bytes: the line ends survive the write.
    assert mutate.write(tmp_path) == 0
    data = (tmp_path / "02-windows-crlf" / stage / "matmul.cu").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\r\n") == data.count(b"\n")


def test_variants_count_and_axes(tmp_path):
    variants = load(GRADER / "tests" / "differential" / "variants.py")
    m = variants.generate(tmp_path)["variants"]
    assert len(m) >= 100
    wmma = variants.WMMA_STAGE
    good = [v for v in m if v["good"] and v["stage"] != wmma]
    for axis, values in variants.AXES.items():
        assert {v["options"][axis] for v in good} == set(values), axis
    assert {v["bug"] for v in m if not v["good"]} == set(variants.BUGS + variants.ADDED_BUGS) | {
        b for b, _ in variants.WMMA_BUGS}
    # the added bugs' variants come after every other of 02-04, and 07's after them all, so the ids
    # docs/emulator.md names hold
    num = lambda v: int(v["id"][1:])  # noqa: E731
    first = [num(v) for v in m if v["stage"] != wmma and v["bug"] not in variants.ADDED_BUGS]
    added = [num(v) for v in m if v["stage"] != wmma and v["bug"] in variants.ADDED_BUGS]
    tc = [num(v) for v in m if v["stage"] == wmma]
    assert first == list(range(len(first))) and max(first) < min(added) and max(added) < min(tc)
    assert tc == list(range(len(m) - len(tc), len(m)))
    ids = [v["id"] for v in m]
    assert len(set(ids)) == len(ids)
    for stage in variants.STAGES:
        src = (tmp_path / stage / "matmul.cu").read_text()
        assert src.count("__global__ void MatrixMulKernel") == sum(v["stage"] == stage for v in m)
    src = (tmp_path / wmma / "matmul.cu").read_text()
    assert src.count("MatrixMulKernel(const float* M") == len(tc)
    # 07's correct kernels: 1-8 warps, warp tiles from 1x1 to 4x4 fragments, every phase depth,
    # padded and unpadded tiles, each TF32 conversion, both buffering schemes, every store
    good = [v["options"] for v in m if v["good"] and v["stage"] == wmma]
    assert {o["warps"][0] * o["warps"][1] for o in good} == {1, 2, 4, 8}
    assert {tuple(o["frags"]) for o in good} >= {(1, 1), (4, 4)}
    staged = [o for o in good if o["src"] == "smem"]
    assert {o["bk"] for o in staged} == {8, 16, 32} and {o["pad"] for o in staged} >= {0, 4}
    assert {o["buf"] for o in staged} == {"single", "prefetch"} and {o["load"] for o in staged} == {"scalar", "vec4"}
    assert {o["tf32"] for o in good} == {"stage", "frag", "none"} and {o["src"] for o in good} == {"smem", "global"}
    assert {o["store"] for o in good} == {"edge-scratch", "all-scratch", "scratch-colmajor"}
    json.dumps(m)


def test_wmma_variants_datasets():
    """07's half-inputs bug shows only on the wide distribution (inputs past 65504): a wide dataset
    is among 07's; the first, which the race and asan builds run, has edges in every dimension and
    K past one phase of 16, so a missing barrier and a layout that reads past the tile matter."""
    variants = load(GRADER / "tests" / "differential" / "variants.py")
    differential = load(GRADER / "tests" / "differential" / "differential.py")
    names = differential.DATASETS[variants.WMMA_STAGE]
    assert any(n.endswith("-wide") for n in names)
    J, K, L = map(int, names[0].split("-")[0].split("x"))
    assert J % 16 and L % 16 and K > 16
    for bug, _ in variants.WMMA_BUGS:
        assert bug in differential.EMU_CATCH, bug


def test_load_past_end_variants_read_past_the_end(tmp_path):
    """m-load-past-end and n-load-past-end read past the end of M or N on the dataset the asan
    build and memcheck run (the first of the stage): some row of the last tile row lies past J, or
    some column of the last tile column past L, and the variant's load has a guard to drop."""
    variants = load(GRADER / "tests" / "differential" / "variants.py")
    differential = load(GRADER / "tests" / "differential" / "differential.py")
    m = variants.generate(tmp_path)["variants"]
    seen = set()
    for v in m:
        if v["bug"] not in ("m-load-past-end", "n-load-past-end"):
            continue
        name = differential.DATASETS[v["stage"]][0].split("-")[0]
        J, K, L = [int(name[1:])] * 3 if name.startswith("w") else map(int, name.split("x"))
        tw = v["options"]["tw"]
        assert (J if v["bug"] == "m-load-past-end" else L) % tw != 0, (v["id"], name)
        assert v["options"]["load"] != "min-clamp"     # a clamped index never overruns
        seen.add((v["stage"], v["bug"]))
    assert seen == {(s, b) for s in ("03-boundary", "04-rectangular") for b in ("m-load-past-end", "n-load-past-end")}
