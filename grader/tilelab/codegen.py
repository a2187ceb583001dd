"""Configure-time code generation, run by CMake: turns the specs into what C++ and CMake include.

    python3 -m tilelab.codegen OUT_DIR

writes OUT_DIR/include/tilelab/exit_codes.hpp (from grader/exit_codes.toml) and
OUT_DIR/tilelab_stages.cmake (from every assignments/<stage>/stage.toml). Nothing is restated by
hand: the files are regenerated whenever a spec changes (CMAKE_CONFIGURE_DEPENDS).
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import ROOT, spec
from .exit_codes import CODES


def exit_codes_header() -> str:
    lines = [
        "// Generated from grader/exit_codes.toml by tilelab.codegen. Do not edit.",
        "#pragma once",
        "namespace tilelab {",
        "enum ExitCode : int {",
    ]
    for name, entry in CODES.items():
        camel = "".join(part.capitalize() for part in name.split("_"))
        lines.append(f"  k{camel} = {entry['code']},  // {entry['meaning']}")
    lines += ["};", "}  // namespace tilelab", ""]
    return "\n".join(lines)


def _cost_size(d: spec.Dataset) -> int:
    """The side of the cube with as many multiply-adds as J x K x L (rounded up)."""
    work = d.J * d.K * d.L
    n = round(work ** (1 / 3))
    while n ** 3 < work:
        n += 1
    return n


# A check's timeout scales with its dataset: a floor for starting the runner (and a GPU context),
# plus the dataset's multiply-adds at a rate far below what any correct kernel reaches on that
# build -- so a 32x32 product still running after seconds has hung -- capped by the stage's
# [timeouts] correct. Rates in multiply-adds per second: about a fifth of what a naive kernel
# reached on a 2-core machine under a load of 10 (emulator: plain 2.2e7, ASan 1.7e6, race 1e6),
# far below any GPU's; docs/grading.md, "Timeouts".
CHECK_FLOOR_S = {"correct": 10, "emu": 8, "emu-asan": 10, "emu-race": 10}
CHECK_RATE = {"correct": 1e8, "emu": 4e6, "emu-asan": 4e5, "emu-race": 2e5}


def check_timeout(stage: spec.Stage, d: spec.Dataset, kind: str) -> int:
    """Seconds the runner gets for one correctness check (kind: correct, emu, emu-asan, emu-race)."""
    cap = stage.timeouts.get("correct", 60)
    return int(min(cap, -(-(CHECK_FLOOR_S[kind] + d.J * d.K * d.L / CHECK_RATE[kind]) // 1)))


def _cmake_list(items) -> str:
    return '"' + ";".join(str(i) for i in items) + '"'


def stages_cmake(stages: list[spec.Stage]) -> str:
    out = ["# Generated from assignments/*/stage.toml by tilelab.codegen. Do not edit."]
    out.append(f"set(TILELAB_STAGES {_cmake_list(s.id for s in stages)})")
    out.append(f"set(TILELAB_SKIP_CODE {CODES['skipped']['code']})")
    out.append(f"set(TILELAB_SPEC_FILES {_cmake_list(s.path for s in stages)})")
    for s in stages:
        p = f"TILELAB_{s.id}"
        out.append(f"set({p}_API {s.api})")
        out.append(f"set({p}_SPEC \"{s.path}\")")
        out.append(f"set({p}_HOST {'ON' if s.host_function else 'OFF'})")
        out.append(f"set({p}_PREVIOUS \"{s.previous}\")")
        out.append(f"set({p}_DATASETS {_cmake_list(d.name for d in s.correctness_datasets)})")
        out.append(f"set({p}_PERF_DATASET {s.performance.dataset})")
        m = s.performance.model
        out.append(f"set({p}_MODEL_SHAPE {_cmake_list(m.shape) if m else ''})")
        out.append(f"set({p}_HIDDEN_COUNT {s.hidden.count if s.hidden else 0})")
        out.append(f"set({p}_TIMEOUT_CORRECT {s.timeouts.get('correct', 60)})")
        out.append(f"set({p}_TIMEOUT_PERF {s.timeouts.get('perf', 300)})")
        for d in s.datasets:
            out.append(f"set({p}_{d.name}_TAGS {_cmake_list(d.tags)})")
            # The work's cube root: what an emulated or sanitized run costs (1x2048x1 is tiny).
            out.append(f"set({p}_{d.name}_SIZE {_cost_size(d)})")
            for kind in CHECK_RATE:
                out.append(f"set({p}_{d.name}_TIMEOUT_{kind} {check_timeout(s, d, kind)})")
    return "\n".join(out) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 -m tilelab.codegen OUT_DIR", file=sys.stderr)
        return 4
    out = Path(argv[0])
    try:
        stages = spec.load_all(ROOT)
    except spec.SpecError as e:
        print(f"tilelab: {e}", file=sys.stderr)
        return 4
    _write_if_changed(out / "include" / "tilelab" / "exit_codes.hpp", exit_codes_header())
    _write_if_changed(out / "tilelab_stages.cmake", stages_cmake(stages))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
