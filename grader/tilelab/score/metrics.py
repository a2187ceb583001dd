"""The numbers every output shows for a check, derived from its runner result in one place:
error, time, GFLOP/s, % of reference, % of cuBLAS, and the kernel's resources. The one record of a
speed: the reports, the plots, `tilelab bench` and `benchtable` all read a result through of_result."""

from __future__ import annotations

import functools

from dataclasses import dataclass

from ..run.result import Result, spans
from .scores import CheckScore


@dataclass
class Metrics:
    error: str = ""                     # "1.2e-06" (relative Frobenius) or "17/289 wrong"
    median_ms: float | None = None
    gflops: float | None = None
    reference_gflops: float | None = None
    cublas_gflops: float | None = None
    previous_gflops: float | None = None
    pct_of_reference: float | None = None
    pct_of_cublas: float | None = None
    pct_of_peak: float | None = None
    registers: int | None = None
    shared_bytes: int | None = None
    blocks_per_sm: int | None = None
    binding_limit: str = ""
    shape: str = ""


def of(c: CheckScore) -> Metrics:
    return of_result(c.result)


def of_result(r: "Result | None") -> Metrics:
    m = Metrics()
    if r is None:
        return m
    if k := r.kernel:
        if k.passed:
            m.error = f"{k.rel_fro_error:.1e}" if k.rel_fro_error is not None else ""
        else:
            m.error = f"{'?' if k.wrong is None else k.wrong}/{'?' if k.checked is None else k.checked} wrong"
    m.shape = r.shape_text
    if t := r.timing:
        mine = t.impls.get(r.impl)
        if mine:
            m.median_ms, m.gflops, m.pct_of_peak = mine.median_ms, mine.gflops, mine.pct_of_peak
        m.reference_gflops, m.cublas_gflops = t.gflops("reference"), t.gflops("cublas")
        m.previous_gflops = t.gflops("previous")
        if t.ratio_to_reference is not None:
            m.pct_of_reference = 100 * t.ratio_to_reference
        if t.ratio_to_cublas is not None:
            m.pct_of_cublas = 100 * t.ratio_to_cublas
    if launch := r.launch:
        m.registers, m.shared_bytes = launch.registers_per_thread, launch.shared_bytes
        if occ := launch.occupancy:
            m.blocks_per_sm, m.binding_limit = occ.active_blocks_per_sm, occ.binding_limit
    return m


def fmt(v: float | None, spec: str = ".0f", suffix: str = "") -> str:
    return "" if v is None else f"{v:{spec}}{suffix}"


def first_wrong_lines(c: CheckScore, limit: int = 5) -> list[str]:
    """The first wrong elements, e.g. 'P[0][3] expected 1.5, got nan (allowed error 2e-05)'."""
    lines = []
    who = {"kernel": "launch_matmul", "host": "matmul_host", "fresh_inputs": "fresh inputs"}
    for part, rep in (c.result.comparisons.items() if c.result else ()):
        if rep.passed:
            continue
        lines.append(f"{who[part]}: {rep.wrong} of {rep.checked} elements wrong ({rep.not_finite} NaN/Inf)")
        for w in rep.first_wrong[:limit]:
            withheld = "values drawn for this grade" if part == "fresh_inputs" else "the values of a hidden dataset"
            lines.append(f"  P[{w.row}][{w.col}] wrong ({withheld} are not shown)"
                         if rep.values_withheld else
                         f"  P[{w.row}][{w.col}] expected {_show(w.expected)}, got {_show(w.actual)} "
                         f"(allowed error {w.allowed or 0:.2g})")
        if rep.wrong_rows:
            lines.append("  wrong rows: " + spans(rep.wrong_rows))
        if rep.wrong_cols:
            lines.append("  wrong columns: " + spans(rep.wrong_cols))
        if rep.wrong_tile_count:
            lines.append(f"  wrong tiles ({rep.tile}x{rep.tile}): {rep.wrong_tile_count}")
    return lines


# The figures of the performance model (docs/performance.md, "The model") shown beside each other:
# (label, key in "derived" or "model", format).
MODEL_FIGURES = (("CGMA (FLOPs per float loaded)", "cgma", ".1f"),
                 ("global sectors per warp FMA", "global_sectors_per_warp_fma", ".3f"),
                 ("shared wavefronts per warp FMA", "shared_wavefronts_per_warp_fma", ".3f"),
                 ("L1 wavefronts (global) per warp FMA", "l1_wavefronts_per_warp_fma", ".3f"),
                 ("coalescing efficiency", "coalescing_efficiency", ".0%"),
                 ("barriers per block", "barriers_per_block", ".0f"),
                 ("occupancy (launch, shared memory, ptxas's registers where read)", "occupancy", ".0%"),
                 # stage 07 (kernels with mma_sync only): phases whose loads the warp waits for
                 ("exposed phases per block (tiles stored before the next mma_sync)", "exposed_phases_per_block", ".0f"),
                 ("blocks per SM of the tensor cores' chain (registers: ptxas's, else fragments + 56)",
                  "tensor_blocks_per_sm", ".0f"),
                 ("local memory requests (spills) per warp FMA", "local_requests_per_warp_fma", ".3f"))


def model_lines(c: CheckScore | None, brief: bool = False) -> list[str]:
    """The counts of a perf-model check, the student's beside the reference's and the book's
    prediction (e.g. 'CGMA: yours 1.0, reference 16.0, book 16'), and the modelled times; [] for
    any other check. brief: the CGMA and the modelled times only (the terminal without its table)."""
    r = c.result if c is not None else None
    t = r.timing if r is not None else None
    if t is None or t.basis != "model":
        return []
    mine = t.impls[r.impl].model if r.impl in t.impls else None
    ref = t.impls["reference"].model if "reference" in t.impls else None
    if not mine:
        return []
    book, book_cgma = _book(r.stage)
    lines = []
    for label, key, spec in MODEL_FIGURES:
        a, b = mine.derived.get(key), ref.derived.get(key) if ref else None
        if a is None or brief and key != "cgma":
            continue
        line = f"{label}: yours {a:{spec}}" + (f", reference {b:{spec}}" if b is not None else "")
        if key == "cgma" and book_cgma is not None:
            line += f", book {book_cgma:g}"
        lines.append(line)
    lines += backend_lines(mine, ref)
    lines += grid_lines(mine)
    mm, rm = mine.model, ref.model if ref else {}
    if mm:
        lines.append(f"modelled on {mm.get('gpu', 'the reference GPU')} at {r.shape_text or '?'}: yours "
                     f"{mm.get('ms', 0):.4f} ms ({mm.get('bound')} bound)"
                     + (f", reference {rm.get('ms', 0):.4f} ms ({rm.get('bound')} bound)" if rm else ""))
    if book and not brief:
        lines.append(f"the book: {book}")
    return lines


def grid_lines(mine) -> list[str]:
    """The grid of the kernel's product at the timed shape, where it leaves SMs idle (the model's
    times charged by the SMs it keeps busy: docs/performance.md, "The grid at the timed shape"); []
    where it keeps every SM busy."""
    g = mine.timed_grid or {}
    if not g or g.get("factor", 1) <= 1:
        return []
    s = g.get("shape") or {}
    shape = "x".join(str(s.get(k, "?")) for k in "JKL")
    if not g.get("observed"):
        return [f"grid at the timed shape {shape}: its launch was not seen, so it is charged as one block: every "
                f"SM-side time x {g['factor']:.0f}"]
    return [f"grid at the timed shape {shape}: yours {g.get('blocks', 0):.0f} block(s) ({g.get('grid')}), "
            f"{g.get('sms_busy', 0):.0f} of the GPU's SMs busy: every SM-side time x {g['factor']:.3g} "
            "(a grid that grows with P keeps them all busy)"]


# The classes of the hot loop's mix a student is shown, in the words of walkthrough 06 section 6
# (run/sass.py's classes), with the SASS opcode that names a load or store's width (LDS.128).
LOOP_FIGURES = (("shared loads", "lds", "LDS"), ("global loads", "ldg", "LDG"), ("shared stores", "sts", "STS"),
                ("global stores", "stg", "STG"), ("integer", "integer", ""), ("uniform", "uniform", ""),
                ("moves", "move", ""), ("other FP32", "fp32_other", ""), ("FP64", "fp64", ""),
                ("conversions", "conversion", ""), ("local loads (spills)", "ldl", "LDL"),
                ("local stores (spills)", "stl", "STL"), ("branches", "branch", ""), ("barriers", "barrier", ""),
                ("tensor-core MMA", "tensor", ""))


def backend_lines(mine, ref) -> list[str]:
    """What nvcc's back end says of the kernel (registers, blocks per SM, the hot loop's mix), beside
    the reference's, and which model graded; [] for a result without it."""
    if not mine.graded_by:
        return []
    b, rb = mine.backend, ref.backend if ref else None
    if not b or not b.read:
        why = b.why if b and b.why else "nvcc's back end was not read"
        return [f"model: {mine.graded_by} (the emulator's counts alone: {why})"]
    lines = [f"model: {mine.graded_by} (the emulator's counts, and the SASS {b.nvcc or 'nvcc'} makes of your file "
             "for sm_90: its registers and spills are charged)"]
    other = rb if rb and rb.read else None

    def pair(label, a, r):
        return f"{label}: yours {a}" + (f", reference {r}" if other and r is not None else "")
    lines.append(pair("registers per thread (ptxas)", b.registers_per_thread, other.registers_per_thread if other else None))
    if b.spill_store_bytes or b.spill_load_bytes:
        lines.append(f"spilled registers: {b.spill_store_bytes} bytes stored, {b.spill_load_bytes} loaded per thread "
                     "(local memory: a large loss when the multiply-add loop's values spill)")
    if b.blocks_per_sm is not None:
        lines.append(pair("blocks per SM (registers, shared memory, threads)", b.blocks_per_sm,
                          other.blocks_per_sm if other else None)
                     + (f"; {b.binding_limit.replace('_', ' ')} bind" if b.binding_limit else ""))
    lines.append(f"main loop, one pass: yours {_loop_mix(b.hot_loop)}")
    if other:
        lines.append(f"main loop, one pass: reference {_loop_mix(other.hot_loop)}")
    return lines


def _loop_mix(hot: dict) -> str:
    """'16 FFMA, 20 shared loads (LDS.128 4, LDS 16), 4 integer, ...: 50 instructions, 3.12 per FFMA
    (32% FFMA)'."""
    if not hot:
        return "no loop of multiply-adds found"
    parts = [f"{hot['ffma']} FFMA"] if hot.get("ffma") else []
    for label, key, op in LOOP_FIGURES:
        if hot.get(key):
            widths = hot.get(f"{key}_by_width") or {}
            how = ", ".join(f"{op}{'' if w == '32' else '.' + w} {n}" for w, n in widths.items()) if op else ""
            parts.append(f"{hot[key]} {label}" + (f" ({how})" if how else ""))
    total = hot.get("total", 0)
    share = f", {total / hot['ffma']:.2f} per FFMA ({hot['ffma'] / total:.0%} FFMA)" if hot.get("ffma") and total else ""
    return ", ".join(parts) + f": {total} instructions{share}"


@functools.lru_cache(maxsize=None)
def _book(stage: str) -> tuple[str, float | None]:
    """The book's prediction for a stage ([performance.model] book, book_cgma), read once per stage."""
    from ..specs import spec  # here: spec is not needed by the other figures
    try:
        m = {s.id: s for s in spec.load_all()}[stage].performance.model if stage else None
    except (KeyError, spec.SpecError, OSError):
        m = None
    return (m.book, m.book_cgma) if m else ("", None)


def _show(v: float | None) -> str:
    """A number as the runner wrote it: 1.5, nan, inf."""
    if v is None:
        return "?"
    return "nan" if v != v else ("inf" if v > 0 else "-inf") if abs(v) == float("inf") else repr(v)
