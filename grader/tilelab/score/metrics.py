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
            lines.append(f"  P[{w.row}][{w.col}] wrong (the values of a hidden dataset are not shown)"
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
                 ("occupancy (launch + shared memory)", "occupancy", ".0%"),
                 # stage 07 (kernels with mma_sync only): phases whose loads the warp waits for
                 ("exposed phases per block (tiles stored before the next mma_sync)", "exposed_phases_per_block", ".0f"),
                 ("blocks per SM within 65536 registers (fragments + 56 a thread)", "tensor_blocks_per_sm", ".0f"))


def model_lines(c: CheckScore | None, brief: bool = False) -> list[str]:
    """The counts of a perf-model check, the student's beside the reference's and the book's
    prediction (e.g. 'CGMA: yours 1.0, reference 16.0, book 16'), and the modelled times; [] for
    any other check. brief: the CGMA and the modelled times only (the terminal without its table)."""
    r = c.result if c is not None else None
    t = r.timing if r is not None else None
    if t is None or t.basis != "model":
        return []
    mine = t.impls[r.impl].model if r.impl in t.impls else {}
    ref = t.impls["reference"].model if "reference" in t.impls else {}
    if not mine:
        return []
    book, book_cgma = _book(r.stage)
    lines = []
    for label, key, spec in MODEL_FIGURES:
        a, b = (mine.get("derived") or {}).get(key), (ref.get("derived") or {}).get(key)
        if a is None or brief and key != "cgma":
            continue
        line = f"{label}: yours {a:{spec}}" + (f", reference {b:{spec}}" if b is not None else "")
        if key == "cgma" and book_cgma is not None:
            line += f", book {book_cgma:g}"
        lines.append(line)
    mm, rm = mine.get("model") or {}, ref.get("model") or {}
    if mm:
        lines.append(f"modelled on {mm.get('gpu', 'the reference GPU')} at {r.shape_text or '?'}: yours "
                     f"{mm.get('ms', 0):.4f} ms ({mm.get('bound')} bound)"
                     + (f", reference {rm.get('ms', 0):.4f} ms ({rm.get('bound')} bound)" if rm else ""))
    if book and not brief:
        lines.append(f"the book: {book}")
    return lines


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
