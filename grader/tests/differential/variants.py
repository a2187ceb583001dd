#!/usr/bin/env python3
"""Kernel variants for the differential check of the emulator against the GPU (issue #13, item 4;
docs/emulator.md, "Differential check").

Writes, for each of 02-tiled, 03-boundary, 04-rectangular and 07-tensor-cores, one .cu file
holding every variant of that stage, each in its own namespace `v<id>` with its own compile-time
tile sizes, kernel and launch, and a `launch_matmul` that runs the variant named by the environment
variable TILELAB_VARIANT. One file per stage keeps the build at four compiles per backend; every
variant is still a complete kernel as a student would write it. Also writes manifest.json:

    {"variants": [{"id": "v017", "stage": "03-boundary", "good": true, "bug": null,
                   "options": {...}}, ...]}

Good variants are correct kernels written other ways (tile widths, block shapes, index orders,
guards, min/max/ternaries in bounds, phase counts, dynamic shared memory, __ldg, float4 loads,
fmaf); bad variants carry one bug each (a barrier removed or moved into a guard, a missing else,
an unguarded store, phases rounded down, a tile loop one too long, a swapped index; and the safety
bugs of issue #26 item 5: a load of M or N whose guard misses a bound and reads past the end of
the matrix while every result stays right, and a split-K launch whose two halves store their
partial sums to P with plain stores, a race between blocks). 07's are wmma TF32 kernels (issue #30;
WMMA_GOOD, WMMA_BUGS), numbered after all of those.

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


# ---- 07-tensor-cores: wmma TF32 kernels (issue #30) ----
# Numbered after every variant of 02-04 (and after ADDED_BUGS'), so that the ids recorded in
# docs/emulator.md keep naming the same kernels. One kernel generator, options:
#   warps: (rows, columns) of warps in a block; frags: (FM, FN) 16 x 16 accumulator fragments a warp;
#   bk: depth of a staged phase (8, 16, 32); pad: floats added to each staged row (ldm stays a
#   multiple of 4); tf32: "stage" (__float_to_tf32 as the tiles are stored to shared memory), "frag"
#   (on the fragment's x[] after load_matrix_sync) or "none" (the tensor cores truncate);
#   buf: "single" (stage, barrier, multiply, barrier) or "prefetch" (the next phase's tiles loaded
#   into registers while the current buffer is multiplied, two buffers, one barrier a phase);
#   load: "scalar" (one float a thread and step) or "vec4" (float4 segments, 16-byte loads when K
#   and L are multiples of 4);
#   src: "smem" (staged tiles) or "global" (fragments loaded straight from M and N where the whole
#   fragment lies inside and ldm is a multiple of 4, else through a per-warp scratch, zero outside);
#   store: "edge-scratch" (store_matrix_sync straight to P where the fragment lies inside and L is a
#   multiple of 4, the edge ones through a per-warp scratch), "all-scratch" (every fragment through
#   it) or "scratch-colmajor" (through it, stored mem_col_major and read transposed).
WMMA_STAGE = "07-tensor-cores"
_W = dict(warps=(1, 1), frags=(1, 1), bk=16, pad=4, tf32="stage", buf="single", load="scalar",
          src="smem", store="edge-scratch")


def _global(**kw) -> dict:
    """A kernel of fragments loaded from global memory: no staged phases (bk, pad, buf, load)."""
    o = {k: v for k, v in _W.items() if k not in ("bk", "pad", "buf", "load")}
    return dict(o, src="global", **kw)


WMMA_GOOD = [
    dict(_W, warps=(1, 1), frags=(1, 1), bk=8, pad=0, tf32="none", store="all-scratch"),
    dict(_W, warps=(2, 1), frags=(2, 2), bk=16, pad=4, tf32="stage"),
    dict(_W, warps=(2, 2), frags=(4, 4), bk=16, pad=4, tf32="stage", buf="prefetch", load="vec4"),
    dict(_W, warps=(4, 2), frags=(1, 2), bk=32, pad=0, tf32="frag", store="scratch-colmajor"),
    dict(_W, warps=(1, 4), frags=(2, 1), bk=8, pad=4, tf32="none", buf="prefetch"),
    dict(_W, warps=(1, 2), frags=(1, 4), bk=32, pad=8, tf32="stage", buf="prefetch", load="vec4",
         store="all-scratch"),
    dict(_W, warps=(2, 4), frags=(2, 2), bk=16, pad=0, tf32="frag", load="vec4"),
    dict(_W, warps=(1, 1), frags=(4, 4), bk=16, pad=4, tf32="stage", buf="prefetch"),
    dict(_W, warps=(4, 1), frags=(1, 1), bk=32, pad=4, tf32="none", load="vec4", store="scratch-colmajor"),
    _global(warps=(2, 2), frags=(2, 2), tf32="frag"),
    _global(warps=(1, 1), frags=(1, 1), tf32="none", store="all-scratch"),
    dict(_W, warps=(2, 4), frags=(1, 1), bk=8, pad=4, tf32="stage", buf="prefetch"),
    dict(_W, warps=(2, 2), frags=(4, 2), bk=16, pad=8, tf32="frag", buf="prefetch", store="scratch-colmajor"),
]
# One bug each, on a correct kernel of the list's options:
#   no-barrier-1: no barrier between staging the tiles and load_matrix_sync (single buffer);
#   wrong-ldm: M's fragments loaded with ldm BK where the staged rows are BK + pad apart;
#   phases-rounded-down: K / BK phases, the last, partial phase of K dropped (double buffered);
#   grid-rounded-down: the grid (L / BN, J / BM): the edge tiles of P dropped (none at all, an
#     empty grid, where L < BN or J < BM);
#   layout-mismatch: N's fragments declared col_major on the row-major staged tile: they read 16
#     rows from each k-step on, past the end of the tile in the last one;
#   half-inputs: __half tiles and m16n16k16 fragments: right within half's range, Inf past 65504
#     on the wide dataset.
WMMA_BUGS = [
    ("no-barrier-1", dict(_W, warps=(2, 2), frags=(1, 1), bk=16, pad=4)),
    ("wrong-ldm", dict(_W, warps=(2, 1), frags=(2, 2), bk=16, pad=4, tf32="none", store="all-scratch")),
    ("phases-rounded-down", dict(_W, warps=(2, 2), frags=(2, 2), bk=16, pad=4, buf="prefetch", load="vec4")),
    ("grid-rounded-down", dict(_W, warps=(2, 2), frags=(1, 1), bk=8, pad=0, tf32="none", store="all-scratch")),
    ("layout-mismatch", dict(_W, warps=(1, 2), frags=(1, 1), bk=16, pad=4)),
    ("half-inputs", dict(_W, warps=(2, 2), frags=(1, 1), bk=16, pad=8, tf32="none", store="all-scratch")),
]
STATIC_SHARED_MAX = 48 * 1024  # bytes: nvcc's limit for static __shared__ arrays


def wmma_kernel(vid: str, o: dict, bug: str | None) -> str:
    """A 07 variant: a complete wmma kernel and its launch in namespace vid."""
    half = bug == "half-inputs"
    elem, ks = ("__half", 16) if half else ("float", 8)
    frag_t = "__half" if half else "wmma::precision::tf32"
    (wy, wx), (fm, fn) = o["warps"], o["frags"]
    smem = o["src"] == "smem"
    bk, pad = o.get("bk", 8), o.get("pad", 0)
    prefetch, vec = o.get("buf") == "prefetch", o.get("load") == "vec4"
    nb = 2 if prefetch else 1
    bm, bn = wy * fm * 16, wx * fn * 16
    if smem:
        es = 2 if half else 4
        smem_bytes = es * nb * (bm * (bk + pad) + bk * (bn + pad)) + 4 * wy * wx * 256
    else:
        smem_bytes = 4 * wy * wx * (128 + 128 + 256)
    assert smem_bytes <= STATIC_SHARED_MAX, (vid, o, smem_bytes)
    assert bk % ks == 0 and (bk + pad) % (8 if half else 4) == 0, (vid, o)
    if half:
        cvt = "__float2half({})"
    else:
        cvt = "wmma::__float_to_tf32({})" if o["tf32"] == "stage" else "{}"
    L = []
    w = L.append
    w(f"namespace {vid} {{  // {json.dumps(o, sort_keys=True)} bug={bug}")
    w(f"constexpr int WY = {wy}, WX = {wx}, FM = {fm}, FN = {fn};  // warps, and fragments a warp")
    w("constexpr int WARPS = WY * WX, THREADS = 32 * WARPS, BM = WY * FM * 16, BN = WX * FN * 16;")
    if smem:
        w(f"constexpr int BK = {bk}, PAD = {pad}, LDA = BK + PAD, LDB = BN + PAD;  // the staged rows' lengths")
    w(f"typedef wmma::fragment<wmma::matrix_a, 16, 16, {ks}, {frag_t}, wmma::row_major> FragA;")
    lay_b = "col_major" if bug == "layout-mismatch" else "row_major"
    w(f"typedef wmma::fragment<wmma::matrix_b, 16, 16, {ks}, {frag_t}, wmma::{lay_b}> FragB;")
    w(f"typedef wmma::fragment<wmma::accumulator, 16, 16, {ks}, float> FragC;")

    def to_tf32(frag: str) -> None:
        if o["tf32"] == "frag" and not half:
            w(f"            for (int t = 0; t < {frag}.num_elements; ++t) "
              f"{frag}.x[t] = wmma::__float_to_tf32({frag}.x[t]);")

    if smem:
        # one phase's tiles from shared memory into the warp's accumulators
        w("__device__ __forceinline__ void multiply(FragC (&acc)[FM][FN], const " + elem +
          " (*As)[LDA], const " + elem + " (*Bs)[LDB], int wm, int wn) {")
        w(f"    for (int kk = 0; kk < BK; kk += {ks}) {{")
        w("        FragA a[FM];")
        w("        FragB b[FN];")
        w("        for (int i = 0; i < FM; ++i) {")
        lda = "BK" if bug == "wrong-ldm" else "LDA"
        w(f"            wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], {lda});")
        to_tf32("a[i]")
        w("        }")
        w("        for (int j = 0; j < FN; ++j) {")
        w("            wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], LDB);")
        to_tf32("b[j]")
        w("        }")
        w("        for (int i = 0; i < FM; ++i)")
        w("            for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);")
        w("    }")
        w("}")
    if vec:
        w("// Four elements of row r of a rows x cols matrix from column c on, 0 outside; VEC: cols % 4 == 0,")
        w("// so a segment lies wholly inside or wholly outside: one 16-byte load.")
        w("template <bool VEC>")
        w("__device__ __forceinline__ float4 load4(const float* A, int rows, int cols, int r, int c) {")
        w("    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);")
        w("    if (VEC) {")
        w("        if (r < rows && c < cols) v = *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);")
        w("    } else if (r < rows) {")
        w("        if (c < cols) v.x = A[(size_t)r * cols + c];")
        w("        if (c + 1 < cols) v.y = A[(size_t)r * cols + c + 1];")
        w("        if (c + 2 < cols) v.z = A[(size_t)r * cols + c + 2];")
        w("        if (c + 3 < cols) v.w = A[(size_t)r * cols + c + 3];")
        w("    }")
        w("    return v;")
        w("}")
        if o["tf32"] == "stage":
            w("__device__ __forceinline__ float4 cvt4(float4 v) {")
            w("    return make_float4(wmma::__float_to_tf32(v.x), wmma::__float_to_tf32(v.y), "
              "wmma::__float_to_tf32(v.z), wmma::__float_to_tf32(v.w));")
            w("}")
            c4 = "cvt4({})"
        else:
            c4 = "{}"
    if prefetch:  # this thread's share of a phase's tiles, in registers
        u = 4 if vec else 1
        w(f"constexpr int LA = (BM * BK / {u} + THREADS - 1) / THREADS, LB = (BK * BN / {u} + THREADS - 1) / THREADS;")
        t = "float4" if vec else "float"
        w(f"struct Staged {{ {t} a[LA], b[LB]; }};")
    w("template <bool VEC>")
    w("__global__ void __launch_bounds__(THREADS) "
      "MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {")
    if smem:
        ab = "[2]" if prefetch else ""
        w(f"    __shared__ __align__(32) {elem} As{ab}[BM][LDA];")
        w(f"    __shared__ __align__(32) {elem} Bs{ab}[BK][LDB];")
    else:
        w("    __shared__ __align__(32) float Sa[WARPS][16 * 8];  // a fragment that does not lie inside M")
        w("    __shared__ __align__(32) float Sb[WARPS][8 * 16];")
    w("    __shared__ __align__(32) float Cs[WARPS][16 * 16];  // each warp's edge fragment")
    w("    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;")
    w("    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;")
    w("    const int wm = (warp / WX) * FM * 16, wn = (warp % WX) * FN * 16;")
    w("    FragC acc[FM][FN];")
    w("    for (int i = 0; i < FM; ++i)")
    w("        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);")
    phases = "K / BK" if bug == "phases-rounded-down" else "(K + BK - 1) / BK"

    def tiles(k0: str) -> list[dict]:
        """M's and N's tiles of the phase from k0 on: shared array, registers, sizes, matrix, origin."""
        return [dict(sh="As", reg="a", n="LA", rows="BM", cols="BK", mat="M", mr="J", mc="K", r0="bm", c0=k0),
                dict(sh="Bs", reg="b", n="LB", rows="BK", cols="BN", mat="N", mr="K", mc="L", r0=k0, c0="bn")]

    def element(t: dict, idx: str) -> str:
        """Element (r, c) of tile t (or its float4 segment), 0 outside the matrix and where idx fails."""
        if vec:
            v = f"load4<VEC>({t['mat']}, {t['mr']}, {t['mc']}, {t['r0']} + r, {t['c0']} + c)"
            return f"{idx} ? {v} : make_float4(0.0f, 0.0f, 0.0f, 0.0f)" if idx else v
        guard = " && ".join(([idx] if idx else []) + [f"{t['r0']} + r < {t['mr']}", f"{t['c0']} + c < {t['mc']}"])
        return f"({guard}) ? {t['mat']}[(size_t)({t['r0']} + r) * {t['mc']} + {t['c0']} + c] : 0.0f"

    def split(t: dict, e: str) -> str:
        """(r, c) of element (or float4 segment) e of tile t."""
        return (f"r = {e} / ({t['cols']} / 4), c = {e} % ({t['cols']} / 4) * 4" if vec
                else f"r = {e} / {t['cols']}, c = {e} % {t['cols']}")

    size = lambda t: f"{t['rows']} * {t['cols']}" + (" / 4" if vec else "")  # noqa: E731
    conv = lambda x: c4.format(x) if vec else cvt.format(x)  # noqa: E731

    def put(t: dict, at: str, v: str) -> str:
        """The store of value v (a float, or a float4 segment) at element `at` of tile t's buffer."""
        dst = f"{t['sh']}{at}"
        return f"*reinterpret_cast<float4*>(&{dst}) = {conv(v)};" if vec else f"{dst} = {conv(v)};"

    def per_tile(indent: str, k0: str, regs: bool, stmt) -> None:
        """A loop over M's and N's tiles of the phase from k0 on, with (r, c) of element (or segment) e:
        over this thread's registers (regs), else over the tile; its one statement stmt(tile)."""
        for t in tiles(k0):
            if regs:
                w(f"{indent}for (int l = 0; l < {t['n']}; ++l) {{")
                w(f"{indent}    const int e = tid + l * THREADS, {split(t, 'e')};")
            else:
                w(f"{indent}for (int e = tid; e < {size(t)}; e += THREADS) {{")
                w(f"{indent}    const int {split(t, 'e')};")
            w(f"{indent}    {stmt(t)}")
            w(f"{indent}}}")

    if not smem:
        # fragments straight from M and N where legal, else through the warp's scratch
        w("    for (int k0 = 0; k0 < K; k0 += 8) {")
        w("        FragA a[FM];")
        w("        FragB b[FN];")
        w("        for (int i = 0; i < FM; ++i) {")
        w("            const int row = bm + wm + 16 * i;")
        w("            if (K % 4 == 0 && row + 16 <= J && k0 + 8 <= K) {")
        w("                wmma::load_matrix_sync(a[i], &M[(size_t)row * K + k0], K);")
        w("            } else {")
        w("                __syncwarp();  // the scratch's last load_matrix_sync is done")
        w("                for (int e = lane; e < 16 * 8; e += 32) {")
        w("                    const int r = row + e / 8, c = k0 + e % 8;")
        w("                    Sa[warp][e] = (r < J && c < K) ? M[(size_t)r * K + c] : 0.0f;")
        w("                }")
        w("                __syncwarp();")
        w("                wmma::load_matrix_sync(a[i], Sa[warp], 8);")
        w("            }")
        to_tf32("a[i]")
        w("        }")
        w("        for (int j = 0; j < FN; ++j) {")
        w("            const int col = bn + wn + 16 * j;")
        w("            if (L % 4 == 0 && col + 16 <= L && k0 + 8 <= K) {")
        w("                wmma::load_matrix_sync(b[j], &N[(size_t)k0 * L + col], L);")
        w("            } else {")
        w("                __syncwarp();")
        w("                for (int e = lane; e < 8 * 16; e += 32) {")
        w("                    const int r = k0 + e / 16, c = col + e % 16;")
        w("                    Sb[warp][e] = (r < K && c < L) ? N[(size_t)r * L + c] : 0.0f;")
        w("                }")
        w("                __syncwarp();")
        w("                wmma::load_matrix_sync(b[j], Sb[warp], 16);")
        w("            }")
        to_tf32("b[j]")
        w("        }")
        w("        for (int i = 0; i < FM; ++i)")
        w("            for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);")
        w("    }")
    elif not prefetch:
        w(f"    for (int ph = 0; ph < {phases}; ++ph) {{")
        per_tile("        ", "ph * BK", False, lambda t: put(t, "[r][c]", element(t, "")))
        if bug != "no-barrier-1":
            w("        __syncthreads();")
        w("        multiply(acc, As, Bs, wm, wn);")
        w("        __syncthreads();")
        w("    }")
    else:
        w(f"    const int phases = {phases};")
        w("    Staged s;")
        # the loads of a phase into s (registers), and s into buffer `buf`
        def load_regs(indent: str, k0: str) -> None:
            per_tile(indent, k0, True, lambda t: f"s.{t['reg']}[l] = {element(t, f'e < {size(t)}')};")

        def store_regs(indent: str, buf: str) -> None:
            per_tile(indent, "", True,
                     lambda t: f"if (e < {size(t)}) " + put(t, f"[{buf}][r][c]", f"s.{t['reg']}[l]"))

        load_regs("    ", "0")
        store_regs("    ", "0")
        w("    __syncthreads();")
        w("    for (int ph = 0; ph < phases - 1; ++ph) {")
        w("        const int cur = ph % 2;")
        load_regs("        ", "(ph + 1) * BK")
        w("        multiply(acc, As[cur], Bs[cur], wm, wn);")
        w("        // the other buffer was last read in the previous phase, before its barrier")
        store_regs("        ", "1 - cur")
        w("        __syncthreads();")
        w("    }")
        last = "multiply(acc, As[(phases - 1) % 2], Bs[(phases - 1) % 2], wm, wn);"
        w(f"    if (phases > 0) {last}" if bug == "phases-rounded-down" else f"    {last}")  # K < BK: no phase
    # the store of the accumulators
    w("    for (int i = 0; i < FM; ++i)")
    w("        for (int j = 0; j < FN; ++j) {")
    w("            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;")
    w("            if (row >= J || col >= L) continue;  // the same for the whole warp")
    if o["store"] == "edge-scratch":
        w("            if (L % 4 == 0 && row + 16 <= J && col + 16 <= L) {")
        w("                wmma::store_matrix_sync(&P[(size_t)row * L + col], acc[i][j], L, wmma::mem_row_major);")
        w("                continue;")
        w("            }")
    colm = o["store"] == "scratch-colmajor"
    w(f"            wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_{'col' if colm else 'row'}_major);")
    w("            __syncwarp();")
    w("            for (int e = lane; e < 16 * 16; e += 32) {")
    w("                const int r = row + e / 16, c = col + e % 16;")
    at = "e % 16 * 16 + e / 16" if colm else "e"
    w(f"                if (r < J && c < L) P[(size_t)r * L + c] = Cs[warp][{at}];")
    w("            }")
    w("            __syncwarp();  // read before the next fragment overwrites it")
    w("        }")
    w("}")
    w("void launch(const float* M, const float* N, float* P, int J, int K, int L) {")
    if bug == "grid-rounded-down":
        w("    const dim3 grid(L / BN, J / BM);")
    else:
        w("    const dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);")
    w("    if (K % 4 == 0 && L % 4 == 0)")
    w("        MatrixMulKernel<true><<<grid, THREADS>>>(M, N, P, J, K, L);")
    w("    else")
    w("        MatrixMulKernel<false><<<grid, THREADS>>>(M, N, P, J, K, L);")
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
    # 07's after them all (its good kernels, then its bugs).
    wmma = {WMMA_STAGE: [(o, None) for o in WMMA_GOOD] + [(o, bug) for bug, o in WMMA_BUGS]}
    ids[WMMA_STAGE] = []
    for lists in (first, added, wmma):
        for stage, items in lists.items():
            for o, bug in items:
                vid = f"v{n:03d}"
                n += 1
                ids[stage].append((vid, o, bug))
                manifest["variants"].append({"id": vid, "stage": stage, "good": bug is None, "bug": bug,
                                             "options": o})
    for stage in ids:
        square = STAGES[stage][0] if stage in STAGES else False
        head = ["#include <cuda_runtime.h>", "#include <cstdlib>"]
        if stage == WMMA_STAGE:
            head += ["#include <cuda_fp16.h>", "#include <mma.h>", "", "using namespace nvcuda;"]
        src = [f"// Generated by grader/tests/differential/variants.py: {len(ids[stage])} variants of {stage}.",
               *head, ""]
        for vid, o, bug in ids[stage]:
            src.append(wmma_kernel(vid, o, bug) if stage == WMMA_STAGE else kernel(vid, stage, o, bug))
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
