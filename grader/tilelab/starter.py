"""Generate starter/<stage>/matmul.cu from solutions/<stage>/matmul.cu (their single source).

One marker style, in C++ comments, at the start of a line (after indentation):

    // BEGIN SOLUTION: <what the student must write>
    <solution lines>                       dropped from the starter
    // STARTER: <code>                     kept in the starter as <code> (placeholders that compile)
    // END SOLUTION

In the starter the block becomes `// TODO: <what the student must write>` followed by the STARTER
lines, at the BEGIN line's indentation. Everything outside blocks is copied unchanged.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from . import ROOT

BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION(?::\s*(.*))?$")
STARTER = re.compile(r"^\s*// STARTER: ?(.*)$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
WIDTH = 100
HEADER = "// Starter file, generated from the reference solution by `./tilelab starter`.\n"


class MarkerError(ValueError):
    pass


def make_starter(solution: str, name: str = "matmul.cu") -> str:
    out: list[str] = []
    block: tuple[int, str] | None = None  # (line number of BEGIN, indentation)
    todo = 0
    for n, line in enumerate(solution.splitlines(), 1):
        if m := BEGIN.match(line):
            if block:
                raise MarkerError(f"{name}:{n}: BEGIN SOLUTION inside the block opened at line {block[0]}")
            if not m.group(2):
                raise MarkerError(f"{name}:{n}: BEGIN SOLUTION needs a TODO text: '// BEGIN SOLUTION: ...'")
            todo += 1
            block = (n, m.group(1))
            out += textwrap.wrap(m.group(2).strip(), width=WIDTH,
                                 initial_indent=f"{m.group(1)}// TODO ({todo}): ",
                                 subsequent_indent=f"{m.group(1)}//   ")
        elif END.match(line):
            if not block:
                raise MarkerError(f"{name}:{n}: END SOLUTION without BEGIN SOLUTION")
            block = None
        elif block:
            if s := STARTER.match(line):
                out.append(f"{block[1]}{s.group(1)}")
        elif STARTER.match(line):
            raise MarkerError(f"{name}:{n}: STARTER line outside a solution block")
        else:
            out.append(line)
    if block:
        raise MarkerError(f"{name}:{block[0]}: BEGIN SOLUTION is never closed")
    if todo == 0:
        raise MarkerError(f"{name}: no BEGIN SOLUTION blocks: the starter would be the solution")
    return HEADER + "\n".join(out) + "\n"


def solution_code(solution: str) -> list[str]:
    """The lines between BEGIN and END SOLUTION markers: what a student has to write."""
    block, inside = [], False
    for line in solution.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif inside and not STARTER.match(line):
            block.append(line)
    return block


@dataclass
class Drift:
    stage: str
    path: Path
    reason: str


def stages(root: Path = ROOT) -> list[str]:
    return sorted(p.parent.name for p in (root / "solutions").glob("*/matmul.cu"))


def generate(root: Path = ROOT, check: bool = False) -> list[Drift]:
    """Write (or, with check, compare) every starter; returns the starters that differ."""
    drifts = []
    for stage in stages(root):
        src = root / "solutions" / stage / "matmul.cu"
        dst = root / "starter" / stage / "matmul.cu"
        text = make_starter(src.read_text(), str(src.relative_to(root)))
        current = dst.read_text() if dst.exists() else None
        if current == text:
            continue
        if check:
            drifts.append(Drift(stage, dst, "missing" if current is None else "differs from the solution"))
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(text)
    return drifts
