"""The per-pipe candidate's SASS reading (grader/model-validation/loop_deps.py): which registers an
instruction writes and reads, and one warp's in-order issue with its dependences, on hand-written
lines and on the checked-in SASS of tiled-16.cu (data/sass/)."""

import sys
from pathlib import Path

GRADER = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(GRADER / "model-validation"))
import loop_deps  # noqa: E402

from tilelab.run import sass  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "sass"


def body(*lines: str) -> list:
    text = ".text._Zk:\n" + "\n".join(f"        /*{16 * i:04x}*/   {line} ;" for i, line in enumerate(lines))
    return sass.functions(text)[0].instructions


def test_wide_loads_write_and_wide_stores_read_every_register():
    lds, sts, ffma = body("LDS.128 R8, [R2+0x100]", "STS.128 [R3], R12", "FFMA R20, R8, R11, R20")
    assert loop_deps.operands(lds) == ([8, 9, 10, 11], [2])
    assert loop_deps.operands(sts) == ([], [3, 12, 13, 14, 15])
    assert loop_deps.operands(ffma) == ([20], [8, 11, 20])


def test_an_lds_read_at_once_costs_its_latency_and_one_read_later_does_not():
    fillers = [f"FFMA R{30 + i}, R{30 + i}, R{30 + i}, R{30 + i}" for i in range(40)]
    at_once = body("LDS R8, [R2]", "FFMA R20, R8, R8, R20", *fillers)
    later = body("LDS R8, [R2]", *fillers, "FFMA R20, R8, R8, R20")
    assert loop_deps.clocks(at_once, lds=30, ldg=500) >= 30 + len(fillers)
    assert loop_deps.clocks(later, lds=30, ldg=500) == len(later)


def test_the_tiled_kernels_hot_loop_is_its_phase_and_exposes_its_loads():
    f = loop_deps.features((DATA / "tiled-16.sass").read_text(), None)
    # nvcc unrolled the phase loop by 4: 4 phases of 16 products, 8 barriers, a pass.
    assert (f["products"], f["barriers"], f["nested"]) == (64, 8, 0)
    assert f["phase_is_hot"] and f["phases_per_pass"] == 4
    assert f["phase_exposed"]["800"] > f["phase_exposed"]["250"] > 0   # the tile's LDG -> STS in the phase
    assert f["clocks"]["23,500"] > f["instructions"]
