"""Machine code of a compiled object, read with `objdump`: whether it holds a system-call
instruction (inline asm that bypasses libc, and so the allow-list)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from .symbols import run_tool


@functools.lru_cache(maxsize=32)
def _objdump_d(path: str, mtime: float, size: int) -> str:
    return run_tool("objdump", "-d", "-r", "-w", "--no-show-raw-insn", path)


def _disassembly(obj: Path) -> str:
    st = Path(obj).stat()
    return _objdump_d(str(obj), st.st_mtime, st.st_size)


def raw_syscalls(obj: Path) -> bool:
    """Whether the machine code holds a system-call instruction (inline asm bypassing libc)."""
    for line in _disassembly(obj).splitlines():
        m = re.match(r"^\s+[0-9a-f]+:\t(.*)$", line)
        if m and re.match(r"^(?:\w+ )*?(syscall|sysenter|int\s+\$0x80)\s*(?:$|\t)", m.group(1)):
            return True
    return False
