#!/usr/bin/env python3
"""Kernel variants for the differential check of the emulator against the GPU (issue #13, item 4;
docs/emulator.md, "Differential check").

Writes, for each of 02-tiled, 03-boundary and 04-rectangular, one .cu file holding every variant
of that stage, each in its own namespace `v<id>` with its own compile-time tile width, kernel and
launch, and a `launch_matmul` that runs the variant named by the environment variable
TILELAB_VARIANT. One file per stage keeps the build at three compiles per backend; every variant
is still a complete kernel as a student would write it. Also writes manifest.json:

    {"variants": [{"id": "v017", "stage": "03-boundary", "good": true, "bug": null,
                   "options": {...}}, ...]}

Good variants are correct kernels written other ways (tile widths, block shapes, index orders,
guards, min/max/ternaries in bounds, phase counts, dynamic shared memory, __ldg, float4 loads,
fmaf); bad variants carry one bug each (a barrier removed or moved into a guard, a missing else,
an unguarded store, phases rounded down, a tile loop one too long, a swapped index; and the safety
bugs of issue #26 item 5: a load of M or N whose guard misses a bound and reads past the end of
the matrix while every result stays right, and a split-K launch whose two halves store their
partial sums to P with plain stores, a race between blocks).

    variants.py --out DIR
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

STAGES = {
    # stage: (square API, tile widths, float4 loads allowed: every Width a multiple of 4)
    "02-tiled": (True, [8, 16, 32], True),
    "03-boundary": (True, [4, 8, 16, 32], False),
    "04-rectangular": (False, [4, 8, 16, 32], False),
}
GOOD_PER_STAGE = 30
# Options of a good variant; a variant takes option i of each axis by a stride (see good_options),
# so every value of every axis appears.
AXES = {
    "index": ["xy", "yx-grid", "linear-block"],
    "load": ["if-else", "ternary", "min-clamp", "ldg"],
    "phases": ["ceil", "minus-one", "float-ceil", "max-dims"],
    "accum": ["plus", "fmaf", "unroll"],
    "store": ["and", "max"],
    "smem": ["static", "dynamic"],
}
BUGS = ["no-barrier-1", "no-barrier-2", "barrier-in-guard", "no-else", "unguarded-store",
        "phases-rounded-down", "k-off-by-one", "swapped-n-index"]
# Bugs added later (issue #26, item 5): numbered after every variant above, so that the ids the
# GPU runs recorded in docs/emulator.md keep naming the same kernels.
#   m-load-past-end: M's load tests the column but not the row; the threads below P's last row
#     read past the end of M (the bugs' tile width 16 divides no J of 03/04's datasets);
#   n-load-past-end: N's load tests the row but not the column; the threads right of P's last
#     column read the next row of N, and on N's last row past its end (no L of 03/04's datasets is
#     a multiple of 16). Only those threads use what they read and their P element is never stored:
#     every result is right on both backends, and only the ASan build and memcheck see the reads;
#   split-k-no-atomics: grid.z = 2, each half of the blocks runs half of the phases and stores its
#     partial sum to P with a plain store: two blocks store different values to every element.
ADDED_BUGS = ["m-load-past-end", "n-load-past-end", "split-k-no-atomics"]
# Bugs a stage cannot show: every Width of 02 is a multiple of every tile width.
NOT_IN = {"02-tiled": {"no-else", "unguarded-store", "phases-rounded-down", "barrier-in-guard",
                       "m-load-past-end", "n-load-past-end"}}


def good_options(i: int, tws: list[int]) -> dict:
    strides = {"index": 1, "load": 3, "phases": 5, "accum": 7, "store": 2, "smem": 1}
    o = {axis: vals[(i * strides[axis] + i // len(vals)) % len(vals)] for axis, vals in AXES.items()}
    o["tw"] = tws[i % len(tws)]
    return o


def kernel(vid: str, stage: str, o: dict, bug: str | None) -> str:
    square, _, vec = STAGES[stage]
    tw = o["tw"]
    L = []
    w = L.append
    w(f"namespace {vid} {{  // {json.dumps(o, sort_keys=True)} bug={bug}")
    w(f"constexpr int TW = {tw};")
    w("__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {")
    if o["smem"] == "static":
        w("    __shared__ float Mds[TW][TW];")
        w("    __shared__ float Nds[TW][TW];")
    else:
        w("    extern __shared__ float smem[];")
        w("    float (*Mds)[TW] = reinterpret_cast<float (*)[TW]>(smem);")
        w("    float (*Nds)[TW] = reinterpret_cast<float (*)[TW]>(smem + TW * TW);")
    if o["index"] == "linear-block":
        w("    const int tx = threadIdx.x % TW, ty = threadIdx.x / TW;")
    else:
        w("    const int tx = threadIdx.x, ty = threadIdx.y;")
    if o["index"] == "yx-grid":  # blockIdx.x walks the rows, blockIdx.y the columns
        w("    const int Row = blockIdx.x * TW + ty;")
        w("    const int Col = blockIdx.y * TW + tx;")
    else:
        w("    const int Row = blockIdx.y * TW + ty;")
        w("    const int Col = blockIdx.x * TW + tx;")
    phases = {"ceil": "(K + TW - 1) / TW", "minus-one": "(K - 1) / TW + 1",
              "float-ceil": "(int)ceilf((float)K / TW)", "max-dims": "(max(max(J, K), L) + TW - 1) / TW"}[o["phases"]]
    if bug == "phases-rounded-down":
        phases = "K / TW"
    w("    float Pvalue = 0.0f;")
    if bug == "split-k-no-atomics":  # blockIdx.z = 0 runs the first half of the phases, 1 the rest
        w(f"    const int nph = {phases}, half = (nph + 1) / 2, z = blockIdx.z;")
        w("    for (int ph = z * half; ph < min(nph, (z + 1) * half); ++ph) {")
    else:
        w(f"    for (int ph = 0; ph < {phases}; ++ph) {{")
    w("        const int mc = ph * TW + tx, nr = ph * TW + ty;")
    mi, ni = "Row * K + mc", ("(ph * TW + tx) * L + Col" if bug == "swapped-n-index" else "nr * L + Col")
    mg = "mc < K" if bug == "m-load-past-end" else "Row < J && mc < K"
    ng = "nr < K" if bug == "n-load-past-end" else "nr < K && Col < L"
    ld = o["load"]
    if bug == "no-else":
        w(f"        if ({mg}) Mds[ty][tx] = M[{mi}];")
        w(f"        if ({ng}) Nds[ty][tx] = N[{ni}];")
    elif ld == "if-else":
        w(f"        if ({mg}) Mds[ty][tx] = M[{mi}];")
        w("        else Mds[ty][tx] = 0.0f;")
        w(f"        if ({ng}) Nds[ty][tx] = N[{ni}];")
        w("        else Nds[ty][tx] = 0.0f;")
    elif ld == "ternary":
        w(f"        Mds[ty][tx] = ({mg}) ? M[{mi}] : 0.0f;")
        w(f"        Nds[ty][tx] = ({ng}) ? N[{ni}] : 0.0f;")
    elif ld == "min-clamp":  # a clamped, always-valid index, and the value zeroed outside
        w(f"        Mds[ty][tx] = M[min(Row, J - 1) * K + min(mc, K - 1)] * (({mg}) ? 1.0f : 0.0f);")
        nidx = "(ph * TW + tx) * L + Col" if bug == "swapped-n-index" else "min(nr, K - 1) * L + min(Col, L - 1)"
        w(f"        Nds[ty][tx] = N[{nidx}] * (({ng}) ? 1.0f : 0.0f);" if bug != "swapped-n-index"
          else f"        Nds[ty][tx] = ({ng}) ? N[{ni}] : 0.0f;")
    else:  # ldg, and float4 loads of N where every row is 16-byte aligned
        w(f"        Mds[ty][tx] = ({mg}) ? __ldg(&M[{mi}]) : 0.0f;")
        if vec and bug is None and tw % 4 == 0:
            w("        if (tx % 4 == 0) {")
            w(f"            const float4 v = *reinterpret_cast<const float4*>(&N[{ni}]);")
            w("            Nds[ty][tx] = v.x; Nds[ty][tx + 1] = v.y; Nds[ty][tx + 2] = v.z; Nds[ty][tx + 3] = v.w;")
            w("        }")
        else:
            w(f"        Nds[ty][tx] = ({ng}) ? __ldg(&N[{ni}]) : 0.0f;")
    guard = "Row < J && Col < L" if o["store"] == "and" else "max(Row - J, Col - L) < 0"
    if bug == "barrier-in-guard":
        w(f"        if ({guard}) __syncthreads();")
    elif bug != "no-barrier-1":
        w("        __syncthreads();")
    kb = "k <= TW" if bug == "k-off-by-one" else "k < TW"
    if o["accum"] == "unroll":
        w("#pragma unroll")
    w(f"        for (int k = 0; {kb}; ++k)")
    if o["accum"] == "fmaf":
        w("            Pvalue = fmaf(Mds[ty][k], Nds[k][tx], Pvalue);")
    else:
        w("            Pvalue += Mds[ty][k] * Nds[k][tx];")
    if bug != "no-barrier-2":
        w("        __syncthreads();")
    w("    }")
    if bug == "unguarded-store":
        w("    P[Row * L + Col] = Pvalue;")
    else:
        w(f"    if ({guard}) P[Row * L + Col] = Pvalue;")
    w("}")
    w("void launch(const float* M, const float* N, float* P, int J, int K, int L) {")
    w("    const unsigned rows = (J + TW - 1) / TW, cols = (L + TW - 1) / TW;")
    w("    const dim3 block = " + ("dim3(TW * TW);" if o["index"] == "linear-block" else "dim3(TW, TW);"))
    z = ", 2" if bug == "split-k-no-atomics" else ""
    w("    const dim3 grid = " + (f"dim3(rows, cols{z});" if o["index"] == "yx-grid" else f"dim3(cols, rows{z});"))
    shm = ", 2 * TW * TW * sizeof(float)" if o["smem"] == "dynamic" else ""
    w(f"    MatrixMulKernel<<<grid, block{shm}>>>(M, N, P, J, K, L);")
    w("}")
    w(f"}}  // namespace {vid}")
    return "\n".join(L) + "\n"


def generate(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"variants": []}
    # Each stage's variants: the correct ones and those with a bug of BUGS, then ADDED_BUGS'.
    first: dict[str, list] = {}
    added: dict[str, list] = {}
    for stage, (square, tws, _) in STAGES.items():
        first[stage] = [(good_options(i, tws), None) for i in range(GOOD_PER_STAGE)]
        added[stage] = []
        for j, bug in enumerate(b for b in BUGS + ADDED_BUGS if b not in NOT_IN.get(stage, set())):
            o = good_options(j * 7 + 3, tws)
            o["tw"] = 16
            if bug == "k-off-by-one":
                o["smem"] = "static"
            if bug in ("m-load-past-end", "n-load-past-end"):  # a guarded load (min-clamp never overruns)
                o["load"] = "if-else" if bug == "m-load-past-end" else "ternary"
            (added if bug in ADDED_BUGS else first)[stage].append((o, bug))
    # Ids: every stage's first list, then every stage's added list (earlier ids stay as they were).
    ids: dict[str, list] = {stage: [] for stage in STAGES}
    n = 0
    for lists in (first, added):
        for stage, items in lists.items():
            for o, bug in items:
                vid = f"v{n:03d}"
                n += 1
                ids[stage].append((vid, o, bug))
                manifest["variants"].append({"id": vid, "stage": stage, "good": bug is None, "bug": bug,
                                             "options": o})
    for stage, (square, _, _) in STAGES.items():
        src = [f"// Generated by grader/tests/differential/variants.py: {len(ids[stage])} variants of {stage}.",
               "#include <cuda_runtime.h>", "#include <cstdlib>", ""]
        for vid, o, bug in ids[stage]:
            src.append(kernel(vid, stage, o, bug))
        sig = "int Width" if square else "int J, int K, int L"
        args = "Width, Width, Width" if square else "J, K, L"
        src.append(f"void launch_matmul(const float* M, const float* N, float* P, {sig}) {{")
        src.append('    const char* v = std::getenv("TILELAB_VARIANT");')
        src.append("    const int id = v ? std::atoi(v + (v[0] == 'v')) : -1;")
        src.append("    switch (id) {")
        for vid, _, _ in ids[stage]:
            src.append(f"        case {int(vid[1:])}: {vid}::launch(M, N, P, {args}); break;")
        src.append("        default: break;  // no variant: P stays unwritten and the check fails")
        src.append("    }")
        src.append("}")
        (out / stage).mkdir(exist_ok=True)
        path = out / stage / "matmul.cu"
        text = "\n".join(src) + "\n"
        if not path.exists() or path.read_text() != text:  # unchanged: no rebuild
            path.write_text(text)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    m = generate(ap.parse_args().out)
    good = sum(v["good"] for v in m["variants"])
    print(f"{len(m['variants'])} variants ({good} good, {len(m['variants']) - good} with a bug)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
