"""What one implementation x stage leaves in a build tree, and removing it before the next build.

A scratch tree (build/grade-submission-*, a batch student's tree on resume, Gradescope's prepared
/autograder/build) is reused from one submission to the next. Nothing an earlier build left may be
read as this one's: wipe() removes every per-implementation artifact of a stage -- the objects
compiled from its matmul.cu, their dependency files, assembler listings and preprocessed units (with
the compiler's .s), the rewritten emulator source, nvcc's back end's facts (backend-facts/), the
runners, results, CTest's cost data and the stage's logs -- before it is built; the kit's own objects (core
library, emulator runtime, adapters, reference solutions) stay, so only the student's file is
recompiled. fresh_objects() then lists only objects written after the build began (a marker file's
time, on the same file system), so a leftover that escaped the wipe is still never scanned.
"""

from __future__ import annotations

import re
from pathlib import Path

MARKER = ".build-started"


def _ids(impl: str, stage: str) -> tuple[str, str]:
    return re.sub(r"[^A-Za-z0-9_]", "_", impl), re.sub(r"[^A-Za-z0-9_]", "_", stage)


def student_objects(build: Path, impl: str, stage: str) -> list[Path]:
    """The objects compiled from <impl>/<stage>/matmul.cu (not the kit's adapter or runner): on the
    GPU backend .../matmul.cu.o, on the emulator the rewritten .../run-<impl>-<stage>.cpp.o."""
    iid, sid = _ids(impl, stage)
    emu_name = f"run-{impl}-{stage}.cpp.o"
    found = []
    for d in (build / "CMakeFiles").glob(f"*{iid}*{sid}*"):
        found += [o for o in d.rglob("*.o") if "matmul" in o.name or o.name == emu_name]
    return sorted(set(found))


def depfile(obj: Path) -> Path:
    """The compiler's dependency file CMake writes beside an object (-MD -MF <obj>.d)."""
    return obj.with_name(obj.name + ".d")


def listing(obj: Path) -> Path:
    """The assembler's listing of a student object (tilelab_assembly_listing: -Wa,-aln=), in the
    folder of its target (CMakeFiles/<target>.dir), however deep CMake put the object in it; beside
    the object where it has no such folder (test_allowlist.py's compiles)."""
    for d in Path(obj).parents:
        if d.name.endswith(".dir"):
            return d / "assembly.lst"
        if d.name == "CMakeFiles":
            break
    return Path(obj).parent / "assembly.lst"


def preprocessed(obj: Path) -> Path:
    """The translation unit the compiler compiled, preprocessed, beside a student object
    (tilelab_assembly_listing: -save-temps=obj): g++ and nvcc name it after the object (matmul.cu.ii
    for matmul.cu.o), clang after the source (matmul.ii). The compiler's .s is written beside it."""
    named, by_source = _save_temps(obj, ".ii")
    return named if named.exists() or not by_source.exists() else by_source


def _save_temps(obj: Path, suffix: str) -> tuple[Path, Path]:
    """Where -save-temps=obj puts an object's file of `suffix`: g++'s name, clang's name."""
    obj = Path(obj)
    return obj.with_suffix(suffix), obj.with_name(obj.name.split(".")[0] + suffix)


def per_stage_files(build: Path, impl: str, stage: str, results: Path, logs: Path) -> list[Path]:
    """Every file of a previous build of impl x stage that a new one must not find."""
    files = []
    for obj in student_objects(build, impl, stage):
        files += [obj, depfile(obj), listing(obj)]
        files += [f for suffix in (".ii", ".s", ".bc") for f in _save_temps(obj, suffix)]
    files += (build / "runners").glob(f"run-{impl}-{stage}-*")
    files += [build / "generated" / "emu" / f"run-{impl}-{stage}.cpp"]
    files += (build / "backend-facts").glob(f"run-{impl}-{stage}.json")        # nvcc's back end's facts
    files += [build / "backend-facts" / f"run-{impl}-{stage}.d" / f for f in ("k.cubin", "ptxas.log")]   # what it read
    files += results.glob(f"{impl}.{stage}.*")                     # JSON results, sanitizer logs
    files += results.glob(f"junit-{impl}-{stage}-*.xml")
    files += [logs / f"build-{stage}.log", *logs.glob(f"ctest-{stage}-*.log")]
    # CTest orders a run by the times it measured before: a hang of the previous submission would
    # change which checks this one runs first (and which are cut short after a hang).
    files += [build / "Testing" / "Temporary" / "CTestCostData.txt"]
    return [f for f in files if f.exists() or f.is_symlink()]


def wipe(build: Path, impl: str, stage: str, results: Path, logs: Path) -> float:
    """Remove what per_stage_files lists, then mark the start of the new build; returns the
    marker's modification time (what fresh_objects compares with)."""
    for f in per_stage_files(build, impl, stage, results, logs):
        f.unlink(missing_ok=True)
    marker = build / "CMakeFiles" / f"{MARKER}-{impl}-{stage}"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    return marker.stat().st_mtime


def fresh_objects(build: Path, impl: str, stage: str, since: float) -> list[Path]:
    """The student objects written at or after `since` (wipe's return value)."""
    out = []
    for o in student_objects(build, impl, stage):
        try:
            if o.stat().st_mtime >= since:
                out.append(o)
        except OSError:
            continue
    return out
