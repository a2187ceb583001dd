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


# The longest chain of imports a reader follows from `python -m tilelab` down (issue #43 item 4: it
# was 12, `__main__ -> cli -> commands.slurm -> commands.batch -> commands.grade -> ... -> run.runresult`).
# Counted in modules, every import of _imports (at the top or in a function); `specs`, the declared
# facts every layer reads, is left out, as the issue counted. 8, the goal: `__main__ -> cli ->`
# a command `->` grading.implementation (the engine and scoring meet there) or a format `->` ...
# `-> run.result`. What keeps it there: a command needs another's work through grading/
# (classbatch), the allow-list scan's parts are composed by run/refusal.py side by side, the
# scored values (score/scores.py) sit below scoring, and a format reads the view. Lower this bound
# as chains are cut, never raise it.
LONGEST_CHAIN = 8


def longest_chain(graph: dict[str, set[str]], leave_out=lambda m: m == "tilelab" or m.startswith("tilelab.specs")):
    """The longest chain of imports in the graph (no cycles: test_no_import_cycles), as its modules."""
    memo: dict[str, tuple[str, ...]] = {}

    def down(m: str) -> tuple[str, ...]:
        if m not in memo:
            memo[m] = (m,) + max((down(d) for d in graph.get(m, ()) if not leave_out(d)), key=len, default=())
        return memo[m]

    return max((down(m) for m in graph if not leave_out(m)), key=len, default=())


def test_longest_chain_of_imports_is_bounded():
    chain = longest_chain(_imports())
    assert len(chain) <= LONGEST_CHAIN, f"{len(chain)} modules: {' -> '.join(chain)}"


def test_longest_chain_counts_modules_and_leaves_out_specs():
    graph = {"tilelab.a": {"tilelab.b", "tilelab.specs.x"}, "tilelab.b": {"tilelab.c"}, "tilelab.c": set(),
             "tilelab.specs.x": {"tilelab.specs.y"}, "tilelab.specs.y": set()}
    assert longest_chain(graph) == ("tilelab.a", "tilelab.b", "tilelab.c")
    assert len(longest_chain(graph, leave_out=lambda m: False)) == 3


def test_an_import_inside_a_function_counts():
    """cli.py imports every command inside the function that runs it, never at the top: those
    imports are in the graph, so no chain is shortened by moving an import into a function."""
    top = {n.module for n in ast.parse((PACKAGE / "cli.py").read_text()).body if isinstance(n, ast.ImportFrom)}
    assert not any((m or "").startswith("commands") for m in top)
    assert {"tilelab.commands.slurm", "tilelab.commands.batch", "tilelab.grading.classbatch"} <= _imports()["tilelab.cli"]


def test_no_command_imports_another_command():
    """Commands are thin and side by side: what two of them share lives in a layer below (grading:
    the grade itself, and a class's batch, grading/classbatch.py, which the local and the Slurm
    batch share; report: the formats). Kept, each the same command's other half: `release` runs its
    scan for what must not ship (`leaks`), and `autograder` builds its zip from the release."""
    allowed = {("tilelab.commands.release", "tilelab.commands.leaks"),
               ("tilelab.commands.autograder", "tilelab.commands.release")}
    sideways = sorted((m, d) for m, deps in _imports().items() if m.startswith("tilelab.commands.")
                      for d in deps if d.startswith("tilelab.commands.") and (m, d) not in allowed)
    assert not sideways, sideways
