"""Machine code of a compiled object, read with `objdump`: whether it holds a system-call
instruction (inline asm that bypasses libc, and so the allow-list), and, in an emulator build's
object, an indirect branch that does not go through the runtime's check (every build routes them
through __x86_indirect_thunk_<reg>: grader/emu/runtime/indirect_branch.cpp; an
`indirect_branch("keep")` attribute would leave one as it is)."""

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


# x86-64 indirect calls and jumps, AT&T as objdump writes them: `call *%rax`, `jmp *0x8(%rax)`,
# `notrack jmp *%rdx`, `bnd jmp *...`.
_INDIRECT = re.compile(r"^(?:\w+ )*?(?:call|jmp)q?\s+\*")


def unchecked_indirect_branches(obj: Path) -> list[str]:
    """The functions (raw symbols) of an emulator build's object that hold an indirect branch of
    their own (one the runtime's thunk does not check), each once, in the object's order."""
    found, function = [], "?"
    for line in _disassembly(obj).splitlines():
        f = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if f:
            function = f.group(1)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\t(.*)$", line)
        if m and _INDIRECT.match(m.group(2)):
            found.append(function)
    return list(dict.fromkeys(found))
