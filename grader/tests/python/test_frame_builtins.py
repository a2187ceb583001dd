"""frame_builtins.py: the builtins that reach a stack frame's return address, and computed goto,
refused from the preprocessed unit (red team 4, 2026-11-29: a `ret` into an immediate's bytes
through `__builtin_frame_address` earned 80 of 90 points before; the honest files are scanned by
test_allowlist.py with the same scan). Seen failing: without the rule the compiled case below has no
`builtin` finding."""

from __future__ import annotations

import pytest

from test_allowlist import _scan, cc  # noqa: F401 (cc: the session's compiler fixture)
from tilelab.run import frame_builtins

STUDENT = '# 1 "/sub/04-rectangular/matmul.cu"\n'


@pytest.mark.parametrize("body, names", [
    ("void** slot = (void**)__builtin_frame_address(0) + 1; *slot = p;", ["__builtin_frame_address"]),
    ("void* r = __builtin_return_address(0); void* e = __builtin_extract_return_addr(r);",
     ["__builtin_return_address", "__builtin_extract_return_addr"]),
    ("__builtin_apply((void (*)())f, __builtin_apply_args(), 64);", ["__builtin_apply", "__builtin_apply_args"]),
    ("if (__builtin_setjmp(buf) == 0) __builtin_longjmp(buf, 1);", ["__builtin_setjmp", "__builtin_longjmp"]),
    ("static void* step[] = {&&a, &&b}; goto *step[i]; a: return 1; b: return 2;", ["goto *"]),
    ("goto\n  * target;", ["goto *"]),
])
def test_each_is_found_in_the_code(body, names):
    assert frame_builtins.frame_builtins(STUDENT + body) == names


@pytest.mark.parametrize("body", [
    'printf("__builtin_frame_address(0) and goto *p\\n");',
    "/* __builtin_return_address */ int x = 1;",
    "int my__builtin_frame_address = 0; goto done; done: x = *p;",
    "int r = a * b; if (x) goto out; out: y = *q;",
])
def test_a_name_outside_the_code_or_a_plain_goto_is_no_finding(body):
    assert frame_builtins.frame_builtins(STUDENT + body) == []


def test_a_compiled_frame_write_is_refused(cc):
    text = ("static int hidden(int x) { return x; }\n"
            "__attribute__((noinline)) int swap_return(int x) {\n"
            "  void* volatile* slot = (void* volatile*)__builtin_frame_address(0) + 1;\n"
            "  if (x < 0) *slot = (void*)&hidden;\n  return x;\n}\n")
    found = [f for f in _scan(cc.emu(text, "race")) if f.kind == "builtin"]
    assert [f.symbol for f in found] == ["__builtin_frame_address"]
    assert "return address" in found[0].reason
