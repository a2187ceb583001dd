"""Pictures of where P was wrong, from the runner's `wrong_map` (docs/grading.md): for a stage,
its smallest wrong dataset, drawn with the tile grid over it, so that a boundary strip, a missing
last phase, a transposed index or a race's speckle are recognised at a glance.

`png` draws it for the HTML report (matplotlib); `terminal_lines` draws it in characters for the
terminal, only where P is small enough to show element by element."""

from __future__ import annotations

from . import plot
from ..run.result import Comparison
from ..score.scores import CheckScore, StageScore

LEGEND = {"0": "right", "1": "wrong", "2": "never written (NaN)"}
COLOURS = {"0": (0.86, 0.95, 0.87), "1": (0.86, 0.15, 0.15), "2": (0.25, 0.25, 0.25)}
CHARS = {"0": ".", "1": "X", "2": "?"}
TERMINAL_WIDTH = 64         # the widest map (characters, tile edges included) drawn in the terminal


def _map_of(c: CheckScore) -> Comparison | None:
    k = c.result.kernel if c.result else None
    return k if k is not None and not k.passed and k.wrong_map is not None and c.result.shape else None


def smallest_wrong(s: StageScore, at_least: int = 1) -> CheckScore | None:
    """The check of the smallest dataset whose P was wrong and mapped, preferring shapes whose rows
    and columns are both at least at_least (a 1 x 1 product shows nothing)."""
    cands = [c for c in s.checks if _map_of(c) is not None]
    wide = [c for c in cands if min(c.result.shape[0], c.result.shape[2]) >= at_least]
    return min(wide or cands, key=lambda c: (c.result.size, c.name), default=None)


def caption(c: CheckScore) -> str:
    k = _map_of(c)
    J, _, L = c.result.shape
    scale = ("" if k.wrong_map.cell_rows == k.wrong_map.cell_cols == 1
             else f"; each cell {k.wrong_map.cell_rows} x {k.wrong_map.cell_cols} elements")
    return (f"{c.dataset} ({c.check}): P is {J} x {L}, {k.wrong} of {k.checked} elements wrong"
            f"{scale}; lines: the {k.tile} x {k.tile} tiles")


def png(c: CheckScore) -> bytes | None:
    """The map of P for one check: wrong cells red, never-written grey, tile edges drawn over it."""
    k = _map_of(c)
    if k is None or not plot.available():
        return None
    m = k.wrong_map
    J, _, L = c.result.shape
    plt = plot._figure()
    from matplotlib.patches import Patch

    rows, cols = m.shape
    img = [[COLOURS[ch] for ch in row] for row in m.cells]
    side = 4.2
    fig, ax = plt.subplots(figsize=(side * min(2.0, max(0.6, L / max(J, 1))) + 1.4, side))
    ax.imshow(img, extent=(0, cols * m.cell_cols, rows * m.cell_rows, 0), interpolation="nearest", aspect="auto")
    ax.set_xlim(0, L)
    ax.set_ylim(J, 0)
    tile = k.tile or 16
    for x in range(tile, L, tile):
        ax.axvline(x, color="#1f4e99", lw=1.0, alpha=0.8)
    for y in range(tile, J, tile):
        ax.axhline(y, color="#1f4e99", lw=1.0, alpha=0.8)
    ax.set_xlabel("column of P (Col)")
    ax.set_ylabel("row of P (Row)")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    used = sorted({ch for row in m.cells for ch in row})
    ax.legend(handles=[Patch(color=COLOURS[ch], label=LEGEND[ch]) for ch in used]
              + [Patch(facecolor="none", edgecolor="#1f4e99", label=f"{tile} x {tile} tiles")],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=4, fontsize=8, frameon=False)
    ax.set_title(f"{c.dataset}: {k.wrong} of {k.checked} elements wrong", fontsize=10, pad=28)
    return plot._png(fig, plt)


def terminal_lines(s: StageScore, budget: int = 24) -> list[str]:
    """The smallest wrong dataset's map in characters ('.' right, 'X' wrong, '?' never written;
    '|' and '-' the tile edges), when P is drawn element by element in at most TERMINAL_WIDTH
    characters and budget lines."""
    c = smallest_wrong(s, at_least=2)
    k = _map_of(c) if c else None
    if k is None or k.wrong_map.cell_rows != 1 or k.wrong_map.cell_cols != 1:
        return []
    J, _, L = c.result.shape
    tile = k.tile or 16
    if J + (J - 1) // tile + 1 > budget or L + (L - 1) // tile > TERMINAL_WIDTH:
        return []
    out = [f"{c.dataset} ({c.check}), P {J} x {L}: X wrong, ? never written, . right; | - edges of the "
           f"{tile} x {tile} tiles"]
    for i, row in enumerate(k.wrong_map.cells):
        if i and i % tile == 0:
            out.append("-" * (L + (L - 1) // tile))
        out.append("".join(("|" if j and j % tile == 0 else "") + CHARS[ch] for j, ch in enumerate(row)))
    return out
