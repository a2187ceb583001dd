"""Builtins that read or change a stack frame, and computed goto, in the compiler's preprocessed unit of
a student object (as vector_builtins.py reads it). Every emulator build checks where the student's
calls and jumps through pointers land (grader/emu/runtime/indirect_branch.cpp), but not where a `ret`
lands: `__builtin_frame_address(0)` gives the address of the function's own return slot, and a store
there returns into bytes the function chose -- machine code inside an instruction's immediate, which
no build instruments (red team 4, 2026-11-29: hidden loads at full credit, a system call no scan saw).
`__builtin_return_address` and its kin, `__builtin_eh_return`, `__builtin_apply` and the setjmp
builtins move control or read where it goes in the same way. A computed goto (`goto *p`) jumps to an
address inside a function, which the check cannot tell from hidden bytes: refused here with its own
words rather than stopped at run time as hidden-code. No honest unit names any of them (the kit's 418
units, emulator and nvcc host ones: none), a GPU kernel can use none, and both backends refuse them,
so the two verdicts agree. docs/integrity.md, "Nothing the instrumentation cannot see".
"""

from __future__ import annotations

import re

from . import preprocessed

_BUILTIN = re.compile(r"(?<![\w$])(__builtin_(?:frame_address|return_address|extract_return_addr|frob_return_addr|"
                      r"eh_return|eh_return_data_regno|unwind_init|dwarf_cfa|dwarf_sp_column|"
                      r"init_dwarf_reg_size_table|apply|apply_args|return|setjmp|longjmp|stack_address|"
                      r"stack_save|stack_restore))(?![\w$])")
_COMPUTED_GOTO = re.compile(r"(?<![\w$])goto\s*\*")


def frame_builtins(text: str, code: str | None = None) -> list[str]:
    """What the unit's code names, each once, in the order first named: the builtins above, and
    `goto *` for a computed goto. `code`: preprocessed.code_only(text), where the caller has it."""
    code = preprocessed.code_only(text) if code is None else code
    found = dict.fromkeys(m.group(1) for m in _BUILTIN.finditer(code))
    if _COMPUTED_GOTO.search(code):
        found["goto *"] = None
    return list(found)
