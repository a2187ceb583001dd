"""The Python floor, 3.9 (Debian 11's python3 is 3.9.2; README.md, "Requirements"), kept on every
Python the kit runs on: each .py file under grader/ parses as 3.9, uses nothing of a newer
standard library that would fail only when run on 3.9, and takes `tomllib` (3.11) only from
tilelab.specs.compat, the one place that falls back to the `tomli` package."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.specs import compat

FLOOR = (3, 9)
GRADER = ROOT / "grader"
COMPAT = GRADER / "tilelab" / "specs" / "compat.py"

# Newer than 3.9, by what names them: an imported module or name, an attribute, a call's keyword.
NEWER_IMPORTS = {
    "tomllib": "3.11 (take it from tilelab.specs.compat)",
    "itertools.pairwise": "3.10", "datetime.UTC": "3.11", "enum.StrEnum": "3.11",
    "enum.verify": "3.11", "typing.Self": "3.11", "typing.TypeAlias": "3.10",
    "typing.ParamSpec": "3.10", "typing.Concatenate": "3.10", "typing.TypeGuard": "3.10",
    "typing.Never": "3.11", "typing.LiteralString": "3.11", "typing.NotRequired": "3.11",
    "typing.Required": "3.11", "typing.assert_never": "3.11", "typing.reveal_type": "3.11",
    "typing.dataclass_transform": "3.11", "typing.override": "3.12", "typing.TypeIs": "3.13",
    "contextlib.chdir": "3.11", "contextlib.aclosing": "3.10", "hashlib.file_digest": "3.11",
    "itertools.batched": "3.12", "asyncio.TaskGroup": "3.11", "asyncio.timeout": "3.11",
    "dataclasses.KW_ONLY": "3.10", "statistics.correlation": "3.10",
    "statistics.linear_regression": "3.10", "math.cbrt": "3.11", "math.exp2": "3.11",
    "logging.getLevelNamesMapping": "3.11",
}
NEWER_NAMES = {"ExceptionGroup": "3.11", "BaseExceptionGroup": "3.11", "aiter": "3.10", "anext": "3.10",
               "EncodingWarning": "3.10"}
NEWER_METHODS = {"bit_count": "3.10", "hardlink_to": "3.10", "add_note": "3.11", "is_junction": "3.12",
                 "with_segments": "3.12", "process_cpu_count": "3.13"}
NEWER_KEYWORDS = {  # call -> keyword (any call whose last name is the first)
    ("zip", "strict"): "3.10", ("dataclass", "slots"): "3.10", ("dataclass", "kw_only"): "3.10",
    ("dataclass", "match_args"): "3.10", ("field", "kw_only"): "3.10", ("run", "process_group"): "3.11",
    ("Popen", "process_group"): "3.11", ("TemporaryDirectory", "ignore_cleanup_errors"): "3.10",
    ("TemporaryDirectory", "delete"): "3.12", ("NamedTemporaryFile", "delete_on_close"): "3.12",
    ("rmtree", "onexc"): "3.12", ("relative_to", "walk_up"): "3.12", ("glob", "root_dir"): "3.10",
    ("iglob", "root_dir"): "3.10", ("bisect", "key"): "3.10", ("bisect_left", "key"): "3.10",
    ("bisect_right", "key"): "3.10", ("insort", "key"): "3.10", ("extractall", "filter"): "3.12",
    ("extract", "filter"): "3.12",
}
BUILTIN_TYPES = {"int", "float", "complex", "str", "bytes", "bool", "list", "dict", "tuple", "set", "frozenset",
                 "type", "object"}


def _sources() -> list[Path]:
    return sorted(p for p in GRADER.rglob("*.py") if "__pycache__" not in p.parts)


def _is_type(node: ast.AST) -> bool:
    """`int`, `None`, `dict[str, int]`, `int | None`: a type as an expression (not a flag)."""
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Name):
        return node.id in BUILTIN_TYPES
    if isinstance(node, ast.Subscript):
        return _is_type(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_type(node.left) and _is_type(node.right)
    return False


def _annotations(tree: ast.AST) -> list[ast.AST]:
    found = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.arg, ast.AnnAssign)) and n.annotation is not None:
            found.append(n.annotation)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            found.append(n.returns)
    return found


def _parenthesized_with(source: str, node: ast.With) -> bool:
    """`with (a as b, c as d):` (3.10; 3.9's own parser rejects it, while the newer parser's
    feature_version does not): the parenthesis opens right after `with` and closes after the last
    item, its `as` target included."""
    lines = source.splitlines()
    head = lines[node.lineno - 1][node.col_offset:]
    after = head[len("async "):] if head.startswith("async ") else head
    if not after[len("with"):].lstrip().startswith("("):
        return False
    last = node.items[-1]
    if len(node.items) == 1 and last.optional_vars is None:
        return False   # `with (x):`, an expression in parentheses on every Python
    end = last.optional_vars or last.context_expr
    rest = "\n".join([lines[end.end_lineno - 1][end.end_col_offset:]] + lines[end.end_lineno:end.end_lineno + 2])
    return rest.lstrip().lstrip(",").lstrip().startswith(")")


def _problems(path: Path, root: Path = ROOT) -> list[str]:
    source = path.read_text()
    where = path.relative_to(root)
    try:
        tree = ast.parse(source, str(where), feature_version=FLOOR)
    except SyntaxError as e:
        return [f"{where}:{e.lineno}: not Python {FLOOR[0]}.{FLOOR[1]} syntax: {e.msg}"]
    out = []
    future = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and
                 any(a.name == "annotations" for a in n.names) for n in tree.body)
    in_annotation = set()
    for a in _annotations(tree):
        in_annotation |= {id(m) for m in ast.walk(a)}
        if not future and any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.BitOr) for m in ast.walk(a)):
            out.append(f"{where}:{a.lineno}: `X | Y` in an annotation needs `from __future__ import annotations` (3.10)")
    for n in ast.walk(tree):
        line = f"{where}:{getattr(n, 'lineno', '?')}"
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) and id(n) not in in_annotation and _is_type(n):
            out.append(f"{line}: `{ast.unparse(n)}` evaluated at run time (3.10); typing.Optional/Union, or a tuple")
        elif isinstance(n, getattr(ast, "Match", ())):   # 3.10's parser; 3.9's rejects it above
            out.append(f"{line}: `match` (3.10)")
        elif isinstance(n, ast.With) and _parenthesized_with(source, n):
            out.append(f"{line}: parenthesized context managers (3.10; 3.9 has them only by accident)")
        elif isinstance(n, ast.Import):
            out += [f"{line}: import {a.name} ({NEWER_IMPORTS[a.name]})"
                    for a in n.names if a.name in NEWER_IMPORTS]
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            out += [f"{line}: from {n.module} import {a.name} ({NEWER_IMPORTS.get(n.module) or NEWER_IMPORTS[f'{n.module}.{a.name}']})"
                    for a in n.names if n.module in NEWER_IMPORTS or f"{n.module}.{a.name}" in NEWER_IMPORTS]
        elif isinstance(n, ast.Attribute):
            dotted = f"{n.value.id}.{n.attr}" if isinstance(n.value, ast.Name) else None
            if dotted in NEWER_IMPORTS:
                out.append(f"{line}: {dotted} ({NEWER_IMPORTS[dotted]})")
            elif n.attr in NEWER_METHODS:
                out.append(f"{line}: .{n.attr} ({NEWER_METHODS[n.attr]})")
        elif isinstance(n, ast.Name) and n.id in NEWER_NAMES:
            out.append(f"{line}: {n.id} ({NEWER_NAMES[n.id]})")
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            out += [f"{line}: {name}({k.arg}=) ({NEWER_KEYWORDS[(name, k.arg)]})"
                    for k in n.keywords if (name, k.arg) in NEWER_KEYWORDS]
    return [p for p in out if "tomllib" not in p] if path == COMPAT else out


def test_every_grader_file_runs_on_the_floor():
    sources = _sources()
    assert len(sources) > 100, "grader/'s Python files not found"
    problems = [p for path in sources for p in _problems(path)]
    assert not problems, "\n".join(problems)


def test_tomllib_comes_from_the_compat_module_only():
    importers = sorted(str(p.relative_to(ROOT)) for p in _sources() if p != COMPAT and
                       any(isinstance(n, ast.Import) and any(a.name == "tomllib" for a in n.names) or
                           isinstance(n, ast.ImportFrom) and n.module == "tomllib"
                           for n in ast.walk(ast.parse(p.read_text()))))
    assert not importers, importers
    assert compat.tomllib.loads('a = 1\n[b]\nc = "d"') == {"a": 1, "b": {"c": "d"}}
    with pytest.raises(compat.tomllib.TOMLDecodeError):
        compat.tomllib.loads("a = ")


@pytest.mark.parametrize("code, found", [
    ("x = zip(a, b, strict=True)\n", "zip(strict=)"),
    ("X = dict[str, int] | None\n", "evaluated at run time"),
    ("ok = isinstance(v, int | float)\n", "evaluated at run time"),
    ("def f(a: int | None): pass\n", "needs `from __future__ import annotations`"),
    ("match x:\n    case 1: pass\n", "syntax"),
    ("with (open(a) as f, open(b) as g):\n    pass\n", "parenthesized context managers"),
    ("import tomllib\n", "tomllib"),
    ("from datetime import UTC\n", "datetime import UTC"),
    ("from typing import TypeAlias\n", "typing import TypeAlias"),
    ("n = (5).bit_count()\n", ".bit_count"),
    ("@dataclass(slots=True)\nclass A: pass\n", "dataclass(slots=)"),
])
def test_the_check_finds_what_3_9_cannot_run(tmp_path, code, found):
    p = tmp_path / "m.py"
    p.write_text(code)
    problems = _problems(p, tmp_path)
    assert any(found in q for q in problems), problems


@pytest.mark.parametrize("code", [
    "from __future__ import annotations\ndef f(a: int | None) -> dict[str, int] | None: pass\n",
    "import stat\nmode = stat.S_IRUSR | stat.S_IWUSR\n",
    "with (open(a)) as f:\n    pass\n",
    "with (a):\n    pass\n",
    "def f(a: 'int | None'):\n    return a\n",
])
def test_the_check_passes_what_3_9_runs(tmp_path, code):
    p = tmp_path / "m.py"
    p.write_text(code)
    assert _problems(p, tmp_path) == []


def test_the_compat_module_falls_back_to_tomli_before_3_11():
    assert compat.tomllib.__name__ == ("tomllib" if sys.version_info >= (3, 11) else "tomli")
