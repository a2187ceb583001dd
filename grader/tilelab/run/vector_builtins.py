"""The x86 vector builtins in the compiler's preprocessed unit of a student object (artifacts.preprocessed,
as preprocessed.py reads it): `__builtin_ia32_*` (what <immintrin.h>, <x86intrin.h> and their parts
define every intrinsic with) and clang's `__builtin_nontemporal_load` / `_store`. g++ compiles such a call
to the instruction itself, not to a memory reference, so the instrumentation of the race, count and trace
builds (grader/emu/runtime/instrument.hpp) never sees what it loads or stores: a gather, a masked or
non-temporal move, lddqu or movntdqa reads M and N past the count build (attack3-atomic-hidden-loads)
and host memory past the race build (attack3-atomic-host-product). A GPU has none of them, and no honest
unit names one: the emulator's builds do not pass -march, so no header the kit allows reaches the
intrinsic headers (<random> includes <pmmintrin.h> only under __SSE3__), nor does nvcc's host pass.
docs/integrity.md, "Nothing the instrumentation cannot see".

The rule reads every identifier of the unit, whoever wrote it, after the preprocessor (a macro or `##`
cannot hide one), in the code only (preprocessed.code_only: a literal, a comment or a line marker that
names a builtin is no finding).
"""

from __future__ import annotations

import bisect
import re

from . import preprocessed

_BUILTIN = re.compile(r"(?<![\w$])(__builtin_ia32_\w+|__builtin_nontemporal_(?:load|store))(?![\w$])")
# A line marker (`# 12 "file" ...`): which file the lines after it come from (for the message only).
_MARKER = re.compile(r'^#\s*(?:line\s+)?\d+\s+"((?:[^"\\]|\\.)*)"', re.MULTILINE)


def vector_builtins(text: str, code: str | None = None) -> list[tuple[str, str]]:
    """The x86 vector builtins the unit names, each once, in the order first named, with the file the
    line markers say the first is in (an intrinsic header, or the student's file); empty for honest
    code and every header the kit allows. `code`: preprocessed.code_only(text), where the caller
    has it already."""
    markers = [(m.end(), m.group(1)) for m in _MARKER.finditer(text)]
    starts = [p for p, _ in markers]
    found: dict[str, str] = {}
    for m in _BUILTIN.finditer(preprocessed.code_only(text) if code is None else code):
        if m.group(1) not in found:
            i = bisect.bisect_right(starts, m.start()) - 1
            found[m.group(1)] = markers[i][1] if i >= 0 else ""
    return list(found.items())


def shown(found: list[tuple[str, str]]) -> str:
    """What a finding names: the builtins the student's file names itself (any file but a system
    header's), else the headers that hold them (`immintrin.h`: the one to stop including)."""
    own = [name for name, file in found if not file.startswith("/usr/")]
    if own:
        return ", ".join(own[:3]) + (f" and {len(own) - 3} more" if len(own) > 3 else "")
    files = list(dict.fromkeys(file.rsplit("/", 1)[-1] for _, file in found))
    return f"{len(found)} __builtin_ia32_* of " + ", ".join(f"<{f}>" for f in files[:3]) + \
        (f" and {len(files) - 3} more headers" if len(files) > 3 else "")
