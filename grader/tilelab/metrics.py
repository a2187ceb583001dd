"""The numbers every output shows for a check, derived from its runner result in one place:
error, time, GFLOP/s, % of reference, % of cuBLAS, and the kernel's resources."""

from __future__ import annotations

from dataclasses import dataclass

from .scoring import CheckScore


def _num(v) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if v in ("nan", "inf", "-inf"):
        return float(v)
    return None


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
    r = c.result or {}
    m = Metrics()
    k = r.get("kernel") or {}
    if k:
        if k.get("pass"):
            e = _num(k.get("rel_fro_error"))
            m.error = f"{e:.1e}" if e is not None else ""
        else:
            m.error = f"{k.get('wrong', '?')}/{k.get('checked', '?')} wrong"
    s = r.get("shape") or {}
    if s:
        m.shape = f"{s.get('J')}x{s.get('K')}x{s.get('L')}"
    t = r.get("timing") or {}
    impls = t.get("impls") or {}
    mine = impls.get(r.get("impl", ""), {})
    m.median_ms, m.gflops, m.pct_of_peak = mine.get("median_ms"), mine.get("gflops"), mine.get("pct_of_peak")
    m.reference_gflops = impls.get("reference", {}).get("gflops")
    m.cublas_gflops = impls.get("cublas", {}).get("gflops")
    m.previous_gflops = impls.get("previous", {}).get("gflops")
    if t.get("ratio_to_reference") is not None:
        m.pct_of_reference = 100 * t["ratio_to_reference"]
    if t.get("ratio_to_cublas") is not None:
        m.pct_of_cublas = 100 * t["ratio_to_cublas"]
    launch = r.get("launch") or {}
    kern = launch.get("kernel") or {}
    m.registers = kern.get("registers_per_thread")
    if "static_shared_bytes" in kern:
        m.shared_bytes = kern["static_shared_bytes"] + launch.get("dynamic_shared_bytes", 0)
    occ = launch.get("occupancy") or {}
    m.blocks_per_sm, m.binding_limit = occ.get("active_blocks_per_sm"), occ.get("binding_limit", "")
    return m


def fmt(v: float | None, spec: str = ".0f", suffix: str = "") -> str:
    return "" if v is None else f"{v:{spec}}{suffix}"


def first_wrong_lines(c: CheckScore, limit: int = 5) -> list[str]:
    """The first wrong elements, e.g. 'P[0][3] expected 1.5, got nan (allowed error 2e-05)'."""
    r = c.result or {}
    lines = []
    for part in ("kernel", "host", "fresh_inputs"):
        rep = r.get(part) or {}
        if rep.get("pass", True):
            continue
        who = {"kernel": "launch_matmul", "host": "matmul_host", "fresh_inputs": "fresh inputs"}[part]
        lines.append(f"{who}: {rep.get('wrong')} of {rep.get('checked')} elements wrong "
                     f"({rep.get('not_finite', 0)} NaN/Inf)")
        for w in rep.get("first_wrong", [])[:limit]:
            lines.append(f"  P[{w.get('row')}][{w.get('col')}] expected {w.get('expected')}, got "
                         f"{w.get('actual')} (allowed error {_num(w.get('allowed')) or 0:.2g})")
        rows, cols = rep.get("wrong_rows") or [], rep.get("wrong_cols") or []
        if rows:
            lines.append("  wrong rows: " + ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in rows[:6]))
        if cols:
            lines.append("  wrong columns: " + ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in cols[:6]))
        if rep.get("wrong_tile_count"):
            lines.append(f"  wrong tiles ({rep.get('tile')}x{rep.get('tile')}): {rep['wrong_tile_count']}")
    return lines


# The figures of the performance model (docs/performance.md, "The model") shown beside each other:
# (label, key in "derived" or "model", format).
MODEL_FIGURES = (("CGMA (FLOPs per float loaded)", "cgma", ".1f"),
                 ("global sectors per warp FMA", "global_sectors_per_warp_fma", ".3f"),
                 ("shared wavefronts per warp FMA", "shared_wavefronts_per_warp_fma", ".3f"),
                 ("L1 wavefronts (global) per warp FMA", "l1_wavefronts_per_warp_fma", ".3f"),
                 ("coalescing efficiency", "coalescing_efficiency", ".0%"),
                 ("barriers per block", "barriers_per_block", ".0f"),
                 ("occupancy (launch + shared memory)", "occupancy", ".0%"))


def model_lines(c: CheckScore, book: str = "", book_cgma: float | None = None) -> list[str]:
    """The counts of a perf-model check, the student's beside the reference's and the book's
    prediction (e.g. 'CGMA: yours 1.0, reference 16.0, book 16'), and the modelled times; [] for
    any other check."""
    r = c.result or {}
    t = r.get("timing") or {}
    if t.get("basis") != "model":
        return []
    impls = t.get("impls") or {}
    mine = (impls.get(r.get("impl", "")) or {}).get("model") or {}
    ref = (impls.get("reference") or {}).get("model") or {}
    if not mine:
        return []
    lines = []
    for label, key, spec in MODEL_FIGURES:
        a, b = (mine.get("derived") or {}).get(key), (ref.get("derived") or {}).get(key)
        if a is None:
            continue
        line = f"{label}: yours {a:{spec}}" + (f", reference {b:{spec}}" if b is not None else "")
        if key == "cgma" and book_cgma is not None:
            line += f", book {book_cgma:g}"
        lines.append(line)
    mm, rm = mine.get("model") or {}, ref.get("model") or {}
    if mm:
        lines.append(f"modelled on {mm.get('gpu', 'the reference GPU')} at {fmt_shape(r)}: yours "
                     f"{mm.get('ms', 0):.4f} ms ({mm.get('bound')} bound)"
                     + (f", reference {rm.get('ms', 0):.4f} ms ({rm.get('bound')} bound)" if rm else ""))
    if book:
        lines.append(f"the book: {book}")
    return lines


def fmt_shape(r: dict) -> str:
    s = r.get("shape") or {}
    return f"{s.get('J')}x{s.get('K')}x{s.get('L')}" if s else "?"


def book_of(c: CheckScore | None) -> tuple[str, float | None]:
    """The book's prediction for the stage of check c ([performance.model] book, book_cgma)."""
    from . import spec  # here: spec is not needed by the other figures
    stage = ((c.result if c else None) or {}).get("stage")
    try:
        m = {s.id: s for s in spec.load_all()}[stage].performance.model if stage else None
    except (KeyError, spec.SpecError, OSError):
        m = None
    return (m.book, m.book_cgma) if m else ("", None)
