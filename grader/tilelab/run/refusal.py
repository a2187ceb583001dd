"""The scan of a stage's build before anything of it runs (the engine's second step): whether
what was compiled from the student's file may be graded at all."""

from __future__ import annotations

from pathlib import Path

from . import forbidden, includes, outcome
from ..specs import spec


def refusal(build: Path, stage: spec.Stage, objects: list[Path]) -> outcome.Refused | outcome.DidNotCompile | None:
    """Why what was compiled from the student's file may not be graded, or None. Refused: an include
    outside the system and CUDA headers, a symbol outside the allow-list (grader/allowlist.toml:
    what the file may call and define, what its static initializers may call; docs/integrity.md).
    DidNotCompile: its own main() (it cannot be linked), or includes the compiler wrote no
    dependency file for. Read from this build's objects and depfiles only; scanned even when the
    link failed (a call to cuBLAS compiles, then fails to link, and the student should read
    "forbidden: cublasSgemm_v2", not a linker message)."""
    if not objects:
        return None
    if forbidden.defines_main(objects):
        return outcome.DidNotCompile(
            f"{stage.id}/matmul.cu defines main(): the grader supplies main and calls your "
            "launch_matmul itself, so a file with its own main cannot be linked into it. Remove "
            "your main (keep it in another file for your own tests) and submit the kernel and its "
            "launch code only.")
    inc = includes.check(objects, build)
    if inc.refused:
        return outcome.Refused(f"{stage.id}/matmul.cu includes files it may not: {'; '.join(inc.refused)}. "
                               "Only system, C++ and CUDA headers may be included (<cuda_runtime.h>, <cstdio>, ...); "
                               "the file must be self-contained.")
    if inc.unverifiable:
        return outcome.DidNotCompile("the grader could not check what the file includes (the compiler wrote no "
                                     f"dependency file for {', '.join(inc.unverifiable)}); tell your instructor")
    # One list for both backends; each object is judged as the build that made it (nvcc, or the
    # emulator's plain, asan or race build: forbidden.object_kind).
    found = forbidden.scan(objects, build=build)
    if found:
        return outcome.Refused("the code uses what this assignment forbids (the allow-list: docs/integrity.md): "
                               + forbidden.summary(found))
    return None
