#!/usr/bin/env python3
"""The kernels of the performance model's validation (docs/performance.md, "Validation"), in ten sets:

- fitting (VARIANTS below): each stage's solution and variants of them written as find/replace
  edits (each `find` must occur exactly once), so they follow the solutions as those change; the
  model's figures were set and checked on these;
- held-out (grader/model-validation/heldout/cuda-cores-1/<name>/<stage>/matmul.cu, listed in heldout.toml): whole
  kernels as students write them, frozen before the model was changed for the fitting set's
  misses (issue #26), copied as they are;
- held-out-2 (grader/model-validation/heldout/cuda-cores-2, laid out the same way): a second set of such kernels,
  none of them in the other two sets, frozen before the model's next change, so that the changed
  model is reported on kernels it has not seen; read by the same code as held-out;
- held-out-3 (grader/model-validation/heldout/cuda-cores-3, laid out the same way): a third set of such kernels,
  none of them in the other three sets, frozen on 2026-11-26 before the model's next change;
- held-out-4 (grader/model-validation/heldout/cuda-cores-4, laid out the same way): a fourth set of such kernels,
  none of them in the other four sets, frozen on 2026-11-26 before the model's next validation;
- held-out-5 (grader/model-validation/heldout/cuda-cores-5, laid out the same way): a fifth set of such kernels,
  none of them in the other five sets, frozen on 2026-11-26 before the model's next validation;
- held-out-tc (grader/model-validation/heldout/tensor-cores-1, laid out the same way): ten 07-tensor-cores kernels
  (wmma, TF32) as students write them, frozen before the model's 07 figures are validated (issue #30);
- held-out-tc2 (grader/model-validation/heldout/tensor-cores-2, laid out the same way): ten more 07-tensor-cores
  kernels, none of them in the other seven sets, written blind (without reading the model's source,
  its measured figures or its outputs) and frozen on 2026-11-26 before the model's 07 figures are
  validated again;
- held-out-tc3 (grader/model-validation/heldout/tensor-cores-3, laid out the same way): a third set of ten
  07-tensor-cores kernels, none of them in the other eight sets, written blind the same way and
  frozen on 2026-11-27 before the model's 07 figures are validated again;
- held-out-tc4 (grader/model-validation/heldout/tensor-cores-4, laid out the same way): a fourth set of ten
  07-tensor-cores kernels, none of them in the other nine sets, written blind the same way and
  frozen on 2026-11-26 before the model's 07 figures are validated again;
- held-out-6 (grader/model-validation/heldout/cuda-cores-6, laid out the same way): 36 kernels of stages
  01-06, none of them in the other sets, written blind and frozen on 2026-11-29 before the model reads
  nvcc's back end (issue #44);
- held-out-tc5 (grader/model-validation/heldout/tensor-cores-5, laid out the same way): eleven
  07-tensor-cores kernels, written blind and frozen on 2026-11-29 for the same validation (issue #44).

    model_variants.py write OUT   # OUT/<variant>/<stage>/matmul.cu and OUT/variants.json
    model_variants.py sets        # the set names (SETS below), one a line

variants.json gives each kernel its stage, what it shows and its "set" (a name of SETS below); a
fitting variant also its "base" solution). A kernel is graded against its stage's reference solution, as a student's
kernel would be.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))
from tilelab.specs.compat import tomllib  # noqa: E402
HELDOUT_DIR = Path(__file__).resolve().parent / "heldout"   # one folder a set, named by its kernels and its order
# The validation's sets, the one list of them: the "set" of variants.json -> (the folder of its
# frozen whole kernels, heldout.toml and <name>/<stage>/matmul.cu, each read by heldout(); None for
# the fitting set's edits below) and what compare's table says of it. model_validation.py (--set,
# compare), model-validation.sh (SET, through `model_variants.py sets`) and the release tests read
# it; the release leaves every grader/model-validation/heldout/* folder out.
SETS = {
    "fitting": (None, "Fitting set (the model's figures were set and checked on these)"),
    "held-out": (HELDOUT_DIR / "cuda-cores-1", "Held-out set (frozen kernels the model was not fitted to)"),
    "held-out-2": (HELDOUT_DIR / "cuda-cores-2", "Second held-out set (frozen before the model's next change)"),
    "held-out-3": (HELDOUT_DIR / "cuda-cores-3", "Third held-out set (frozen before the model's next change)"),
    "held-out-4": (HELDOUT_DIR / "cuda-cores-4", "Fourth held-out set (frozen before the model's next validation)"),
    "held-out-5": (HELDOUT_DIR / "cuda-cores-5", "Fifth held-out set (frozen before the model's next validation)"),
    "held-out-tc": (HELDOUT_DIR / "tensor-cores-1",
                    "Tensor-core held-out set (07-tensor-cores kernels frozen before the model's 07 validation)"),
    "held-out-tc2": (HELDOUT_DIR / "tensor-cores-2", "Second tensor-core held-out set (07-tensor-cores kernels "
                     "written blind, frozen before the model's next 07 validation)"),
    "held-out-tc3": (HELDOUT_DIR / "tensor-cores-3", "Third tensor-core held-out set (07-tensor-cores kernels "
                     "written blind, frozen before the model's next 07 validation)"),
    "held-out-tc4": (HELDOUT_DIR / "tensor-cores-4", "Fourth tensor-core held-out set (07-tensor-cores kernels "
                     "written blind, frozen before the model's next 07 validation)"),
    "held-out-6": (HELDOUT_DIR / "cuda-cores-6", "Sixth held-out set (written blind, frozen before the model reads "
                   "nvcc's back end, issue #44)"),
    "held-out-tc5": (HELDOUT_DIR / "tensor-cores-5", "Fifth tensor-core held-out set (07-tensor-cores kernels written "
                     "blind, frozen before the model reads nvcc's back end, issue #44)"),
}
HELDOUT_SETS = {name: folder for name, (folder, _) in SETS.items() if folder is not None}
HELDOUT = HELDOUT_SETS["held-out"]


def title(name: str) -> str:
    """compare's heading for a set: what SETS says of it, and its folder."""
    folder, what = SETS[name]
    return what if folder is None else f"{what[:-1]}: {folder.relative_to(ROOT)})"


# The 06 reference places a thread's two 4-wide strips of rows and of columns half a block tile
# apart, at the literal offset 64, with 16 threads across: these edits write the same code for any
# BM, BN, TM, TN (multiples of 4, (BM / TM) * (BN / TN) = THREADS), so its macros can be changed.
GENERIC_STRIPS_06 = [
    ("const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;",
     "const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);"),
    ("""    *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Mds[k][ty * 4]);
    *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Mds[k][64 + ty * 4]);
    *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Nds[k][tx * 4]);
    *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Nds[k][64 + tx * 4]);""",
     """#pragma unroll
    for (int s = 0; s < TM / 4; ++s)
        *reinterpret_cast<float4*>(&a[4 * s]) = *reinterpret_cast<const float4*>(&Mds[k][s * (BM * 4 / TM) + ty * 4]);
#pragma unroll
    for (int s = 0; s < TN / 4; ++s)
        *reinterpret_cast<float4*>(&b[4 * s]) = *reinterpret_cast<const float4*>(&Nds[k][s * (BN * 4 / TN) + tx * 4]);"""),
    ("const int row = bm + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));",
     "const int row = bm + (i / 4) * (BM * 4 / TM) + ty * 4 + i % 4;"),
    ("for (int half = 0; half < 2; ++half) {", "for (int half = 0; half < TN / 4; ++half) {"),
    ("const int col = bn + half * 64 + tx * 4;", "const int col = bn + half * (BN * 4 / TN) + tx * 4;"),
]

# name: (stage, base solution stage, [(find, replace), ...], what it shows)
VARIANTS: dict[str, tuple[str, str, list[tuple[str, str]], str]] = {
    "01-solution": ("01-basic", "01-basic", [], "the basic kernel (coalesced: Col from threadIdx.x)"),
    "01-swapped": ("01-basic", "01-basic", [
        ("int Row = blockIdx.y * blockDim.y + threadIdx.y;\n    int Col = blockIdx.x * blockDim.x + threadIdx.x;",
         "int Row = blockIdx.x * blockDim.x + threadIdx.x;\n    int Col = blockIdx.y * blockDim.y + threadIdx.y;")],
        "rows and columns swapped: a warp reads 32 rows of M and writes down a column of P (uncoalesced)"),
    # The two misses of the first held-out run (issue #26): wide blocks modelled at partial credit
    # that earned full credit on the H100.
    "01-1d256": ("01-basic", "01-basic", [
        ("int Row = blockIdx.y * blockDim.y + threadIdx.y;\n    int Col = blockIdx.x * blockDim.x + threadIdx.x;",
         "int Row = blockIdx.y;\n    int Col = blockIdx.x * 256 + threadIdx.x;"),
        ("dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);\n    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);",
         "dim3 dimBlock(256);\n    dim3 dimGrid((Width + 255) / 256, Width);")],
        "1-D blocks of 256 threads, one row of P per block row (Row = blockIdx.y, Col = blockIdx.x*256 + threadIdx.x)"),
    "01-b32x8": ("01-basic", "01-basic", [
        ("dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);\n    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);",
         "dim3 dimBlock(32, 8);\n    dim3 dimGrid((Width + 31) / 32, (Width + 7) / 8);")],
        "32x8 blocks"),
    "02-basic": ("02-tiled", "01-basic", [], "the basic kernel submitted for 02-tiled"),
    "02-tile4": ("02-tiled", "02-tiled", [("#define TILE_WIDTH 16", "#define TILE_WIDTH 4")],
                 "4x4 tiles (half-warp blocks: tests the latency term, which was fitted on 8x8)"),
    "02-tile8": ("02-tiled", "02-tiled", [("#define TILE_WIDTH 16", "#define TILE_WIDTH 8")], "8x8 tiles"),
    "02-solution": ("02-tiled", "02-tiled", [], "16x16 tiles (the reference)"),
    "02-tile32": ("02-tiled", "02-tiled", [("#define TILE_WIDTH 16", "#define TILE_WIDTH 32")], "32x32 tiles"),
    "03-solution": ("03-boundary", "03-boundary", [], "tiles with bounds tests"),
    "04-solution": ("04-rectangular", "04-rectangular", [], "rectangular tiled kernel"),
    "05-coarse1": ("05-coarsened", "05-coarsened", [("#define COARSE_FACTOR 4", "#define COARSE_FACTOR 1")],
                   "coarsening factor 1 (the 04 kernel with 32x32 tiles)"),
    "05-coarse2": ("05-coarsened", "05-coarsened", [("#define COARSE_FACTOR 4", "#define COARSE_FACTOR 2")],
                   "coarsening factor 2"),
    "05-solution": ("05-coarsened", "05-coarsened", [], "coarsening factor 4 (the reference)"),
    "05-coarse8": ("05-coarsened", "05-coarsened", [("#define COARSE_FACTOR 4", "#define COARSE_FACTOR 8")],
                   "coarsening factor 8"),
    "06-solution": ("06-register-tiled", "06-register-tiled", [], "128x128 block tiles, 8x8 register tiles"),
    "06-generic": ("06-register-tiled", "06-register-tiled", GENERIC_STRIPS_06,
                   "the reference with the strips placed from the macros (checks those edits: ~1.00)"),
    "06-tm8tn4": ("06-register-tiled", "06-register-tiled", [
        *GENERIC_STRIPS_06, ("#define BN 128 ", "#define BN 64  "), ("#define TN 8 ", "#define TN 4 ")],
        "128x64 block tiles, 8x4 register tiles"),
    "06-tm4tn4": ("06-register-tiled", "06-register-tiled", [
        *GENERIC_STRIPS_06, ("#define BM 128 ", "#define BM 64  "), ("#define BN 128 ", "#define BN 64  "),
        ("#define TM 8 ", "#define TM 4 "), ("#define TN 8 ", "#define TN 4 ")],
        "64x64 block tiles, 4x4 register tiles"),
    "06-prev05": ("06-register-tiled", "05-coarsened", [], "the 05 kernel submitted for 06"),
    # 07's one fitted figure, the tensor-core rate (perf_model.hpp), is set from these two.
    "07-solution": ("07-tensor-cores", "07-tensor-cores", [], "4 warps of 64x64 (4x4 fragments), BK 16, double-buffered (the reference)"),
    "07-prev06": ("07-tensor-cores", "06-register-tiled", [],
                  "the 06 kernel submitted for 07: float32 CUDA cores, no tensor cores"),
}


def source(name: str) -> str:
    stage, base, edits, _ = VARIANTS[name]
    text = (ROOT / "solutions" / base / "matmul.cu").read_text()
    for find, replace in edits:
        if text.count(find) != 1:
            raise SystemExit(f"model_variants: variant {name}: {find!r} occurs {text.count(find)} times in "
                             f"solutions/{base}/matmul.cu (must be once); update VARIANTS")
        text = text.replace(find, replace)
    return text


def heldout(folder: Path = HELDOUT) -> dict[str, dict]:
    """A held-out set's folder (HELDOUT_SETS): its heldout.toml, name -> {"stage", "what"}; each
    name's <stage>/matmul.cu must exist."""
    with open(folder / "heldout.toml", "rb") as f:
        table = tomllib.load(f)
    for name, v in table.items():
        if name in VARIANTS:
            raise SystemExit(f"model_variants: held-out kernel {name} has a fitting variant's name")
        if not (folder / name / v["stage"] / "matmul.cu").is_file():
            raise SystemExit(f"model_variants: held-out kernel {name}: no {name}/{v['stage']}/matmul.cu "
                             f"in {folder}")
    return table


def _put(f: Path, text: str) -> None:
    f.parent.mkdir(parents=True, exist_ok=True)
    if not f.exists() or f.read_text() != text:  # unchanged files keep their time: no rebuild
        f.write_text(text)


def write(out: Path) -> None:
    manifest = {}
    for name, (stage, base, edits, what) in VARIANTS.items():
        _put(out / name / stage / "matmul.cu", source(name))
        manifest[name] = {"stage": stage, "base": base, "what": what, "set": "fitting"}
    for which, folder in HELDOUT_SETS.items():
        for name, v in heldout(folder).items():
            if name in manifest:
                raise SystemExit(f"model_variants: {which} kernel {name} has the name of a "
                                 f"{manifest[name]['set']} kernel")
            _put(out / name / v["stage"] / "matmul.cu", (folder / name / v["stage"] / "matmul.cu").read_text())
            manifest[name] = {"stage": v["stage"], "what": v["what"], "set": which}
    (out / "variants.json").write_text(json.dumps(manifest, indent=1) + "\n")


def main(argv: list[str]) -> int:
    if argv == ["sets"]:  # the set names, one a line (model-validation.sh checks SET against them)
        print("\n".join(SETS))
        return 0
    if len(argv) != 2 or argv[0] != "write":
        print(__doc__, file=sys.stderr)
        return 2
    write(Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
