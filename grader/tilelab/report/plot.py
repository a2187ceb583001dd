"""Plots with matplotlib (Agg, no display): a submission's GFLOP/s per stage against the
reference and cuBLAS, and the bench curves. Each returns PNG bytes, or None without data."""

from __future__ import annotations

import base64
import io



def _figure():
    import matplotlib  # callers check available() first

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _png(fig, plt) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def report_png(data: list[tuple[str, float | None, float | None, float | None]], submission: str) -> bytes | None:
    """data: (stage, yours, reference, cuBLAS) GFLOP/s per stage (view.ReportView.stage_gflops), of
    the submission named in the title."""
    if not data or not available():
        return None
    plt = _figure()
    fig, ax = plt.subplots(figsize=(1.8 + 1.6 * len(data), 3.4))
    width = 0.26
    series = (("yours", 1, "#1f77b4"), ("reference", 2, "#7f7f7f"), ("cuBLAS FP32", 3, "#2ca02c"))
    for k, (label, idx, color) in enumerate(series):
        xs = [i + (k - 1) * width for i in range(len(data))]
        ys = [d[idx] or 0 for d in data]
        bars = ax.bar(xs, ys, width, label=label, color=color)
        ax.bar_label(bars, labels=[f"{y:.0f}" if y else "" for y in ys], fontsize=7, padding=2)
    ax.set_xticks(range(len(data)), [d[0] for d in data])
    ax.set_ylabel("GFLOP/s")
    # A bar's length must mean something: linear from 0 unless the speeds span a factor of 10 or
    # more (01's naive kernel against cuBLAS), then log from below the slowest.
    values = [v for d in data for v in d[1:] if v]
    if values and max(values) / min(values) >= 10:
        ax.set_yscale("log")
        ax.set_ylim(bottom=min(values) / 2)
    else:
        ax.set_ylim(0, max(values or [1]) * 1.12)
    ax.set_title(f"{submission}: speed of each stage's kernel", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, frameon=False)
    ax.grid(axis="y", alpha=0.3, which="both")
    return _png(fig, plt)


def stage_png(stage: str, perf) -> bytes | None:
    """One stage's speed: the student's kernel against the reference, the previous stage's
    reference and cuBLAS FP32, as far as the perf check measured them (GFLOP/s bars)."""
    t = perf.result.timing if perf is not None and perf.result else None
    if t is None or not available():
        return None
    bars = [(label, t.gflops(key)) for label, key in (("yours", perf.result.impl), ("reference", "reference"),
                                                       ("previous stage", "previous"), ("cuBLAS FP32", "cublas"))]
    bars = [(label, g) for label, g in bars if g]
    if not bars:
        return None
    plt = _figure()
    fig, ax = plt.subplots(figsize=(5.2, 0.5 + 0.45 * len(bars)))
    colours = {"yours": "#1f77b4", "reference": "#7f7f7f", "previous stage": "#bcbd22", "cuBLAS FP32": "#2ca02c"}
    ys = range(len(bars))
    b = ax.barh(list(ys), [g for _, g in bars], color=[colours[label] for label, _ in bars])
    ax.bar_label(b, labels=[f"{g:,.0f}" for _, g in bars], fontsize=8, padding=3)
    ax.set_yticks(list(ys), [label for label, _ in bars])
    ax.invert_yaxis()
    ax.set_xlabel("GFLOP/s")
    ax.set_xlim(0, max(g for _, g in bars) * 1.18)
    ax.set_title(f"{stage}: speed on {perf.dataset}", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig, plt)


def bench_png(rows: list[dict]) -> bytes | None:
    """rows: {stage, size, gflops, cublas_gflops}; one line per stage, cuBLAS dashed."""
    if not rows or not available():
        return None
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6.4, 4))
    stages = sorted({r["stage"] for r in rows})
    for st in stages:
        pts = sorted((r["size"], r["gflops"]) for r in rows if r["stage"] == st and r.get("gflops"))
        if pts:
            ax.plot(*zip(*pts), marker="o", label=st)
    cub = sorted({(r["size"], r["cublas_gflops"]) for r in rows if r.get("cublas_gflops")})
    if cub:
        best = {}
        for size, g in cub:
            best[size] = max(best.get(size, 0), g)
        ax.plot(list(best), list(best.values()), "k--", marker="s", label="cuBLAS FP32")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("size (J = K = L)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("Reference solutions against cuBLAS FP32", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _png(fig, plt)


def data_url(png: bytes | None) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode() if png else ""
