"""The package's layout (docs/architecture.md, "The Python package"): every import inside tilelab, at
the top of a module or inside a function, points down the layers commands -> grading -> report ->
score -> run -> specs (cli above them all), and no two modules import each other, directly or round a
loop. `grading` sits above `report` because grading one implementation hands back a GradeReport."""

import ast
from pathlib import Path

from tilelab import ROOT

PACKAGE = ROOT / "grader" / "tilelab"
LAYERS = ("specs", "run", "score", "report", "grading", "commands")   # bottom first


def _modules() -> dict[str, Path]:
    found = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = p
    return found


def _imports() -> dict[str, set[str]]:
    """module -> the tilelab modules it imports (a package's `from . import x` names x when x is a module)."""
    mods = _modules()
    graph = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tilelab":
                module = node.module
            else:
                assert not (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tilelab"
                                                                 for a in node.names)), f"{name}: use from-imports"
                continue
            deps |= {f"{module}.{a.name}" if f"{module}.{a.name}" in mods else module for a in node.names}
        graph[name] = deps - {name}
    return graph


def _layer(module: str) -> int:
    """specs 0 ... commands 5; cli and __main__ above them; the package itself (ROOT) below them."""
    parts = module.split(".")
    if len(parts) == 1:
        return -1
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else len(LAYERS)


def test_every_module_is_in_a_layer():
    top = {m for m in _modules() if m.count(".") == 1 and m.split(".")[1] not in LAYERS}
    assert top == {"tilelab.cli", "tilelab.__main__"}, "a new module belongs in one of the subpackages"


def test_imports_point_down_the_layers():
    upward = sorted(f"{m} imports {d}" for m, deps in _imports().items() for d in deps if _layer(d) > _layer(m))
    assert not upward, upward


def test_no_import_cycles():
    graph = _imports()
    # A format module's `from . import register` is its package's registry, which finds the formats
    # by pkgutil, not by an import: not a cycle.
    state, cycles = {}, []

    def visit(m, path):
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            if state.get(d) == "open":
                cycles.append(path[path.index(d):] + [d])
            elif d not in state:
                visit(d, path + [d])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, cycles


def test_a_subpackage_says_what_it_holds_and_imports_nothing():
    for layer in LAYERS:
        init = PACKAGE / layer / "__init__.py"
        tree = ast.parse(init.read_text())
        assert ast.get_docstring(tree), init
        assert all(isinstance(n, ast.Expr) for n in tree.body), f"{init}: a docstring only"
