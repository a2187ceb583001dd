"""Generate starter/<stage>/matmul.cu from solutions/<stage>/matmul.cu (their single source).

One marker style, in C++ comments, at the start of a line (after indentation):

    // BEGIN SOLUTION: <what the student must write>
    // GOAL: <the same, as one line on the goal, not the code>
    <solution lines>                       dropped from the starter
    // STARTER: <code>                     kept in the starter as <code> (placeholders that compile)
    // END SOLUTION

Two levels come from the one source. The *guided* level (starter/ in the kit) turns each block
into `// TODO (n): <what the student must write>` -- the steps, often line by line -- followed by
the STARTER lines, at the BEGIN line's indentation. The *bare* level writes the GOAL line as the
TODO instead: the signatures, the contract in the comments and one line per TODO on the goal. The
code of both levels is the same (only the TODO comments differ), so both fail every check
unmodified. Everything outside blocks is copied unchanged.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT

BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION(?::\s*(.*))?$")
STARTER = re.compile(r"^\s*// STARTER: ?(.*)$")
GOAL = re.compile(r"^\s*// GOAL: ?(.*)$")
LEVELS = ("guided", "bare")
END = re.compile(r"^\s*// END SOLUTION\s*$")
WIDTH = 100
HEADER = "// Starter file, generated from the reference solution by `./tilelab starter`.\n"
BARE_HEADER = ("// Starter file (bare level: each TODO names its goal; the handout and the walkthrough say how),\n"
               "// generated from the reference solution by `./tilelab starter --level bare`.\n")


class MarkerError(ValueError):
    pass


def _todo(text: str, todo: int, indent: str) -> list[str]:
    return textwrap.wrap(text.strip(), width=WIDTH, initial_indent=f"{indent}// TODO ({todo}): ",
                         subsequent_indent=f"{indent}//   ")


def make_starter(solution: str, name: str = "matmul.cu", level: str = "guided") -> str:
    if level not in LEVELS:
        raise ValueError(f"starter level must be one of {LEVELS}, got {level!r}")
    out: list[str] = []
    block: tuple[int, str] | None = None  # (line number of BEGIN, indentation)
    todo = 0
    goal: str | None = None
    for n, line in enumerate(solution.splitlines(), 1):
        if m := BEGIN.match(line):
            if block:
                raise MarkerError(f"{name}:{n}: BEGIN SOLUTION inside the block opened at line {block[0]}")
            if not m.group(2):
                raise MarkerError(f"{name}:{n}: BEGIN SOLUTION needs a TODO text: '// BEGIN SOLUTION: ...'")
            todo += 1
            block = (n, m.group(1))
            goal = None
            if level == "guided":
                out += _todo(m.group(2), todo, m.group(1))
        elif block and (g := GOAL.match(line)):
            if goal is not None or not g.group(1).strip():
                raise MarkerError(f"{name}:{n}: one non-empty GOAL line per block")
            goal = g.group(1)
            if level == "bare":
                out += _todo(goal, todo, block[1])
        elif GOAL.match(line):
            raise MarkerError(f"{name}:{n}: GOAL line outside a solution block")
        elif END.match(line):
            if level == "bare" and goal is None:
                raise MarkerError(f"{name}:{block[0] if block else n}: the block has no '// GOAL: ...' line, "
                                  "which the bare starter level needs")
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
    return (HEADER if level == "guided" else BARE_HEADER) + "\n".join(out) + "\n"


def solution_code(solution: str) -> list[str]:
    """The lines between BEGIN and END SOLUTION markers: what a student has to write."""
    block, inside = [], False
    for line in solution.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif inside and not STARTER.match(line) and not GOAL.match(line):
            block.append(line)
    return block


@dataclass
class Drift:
    stage: str
    path: Path
    reason: str


def stages(root: Path = ROOT) -> list[str]:
    return sorted(p.parent.name for p in (root / "solutions").glob("*/matmul.cu"))


def generate(root: Path = ROOT, check: bool = False, level: str = "guided", out: Path | None = None) -> list[Drift]:
    """Write (or, with check, compare) every starter of a level into out (default: the kit's
    starter/, which holds the guided level); returns the starters that differ."""
    drifts = []
    for stage in stages(root):
        src = root / "solutions" / stage / "matmul.cu"
        dst = Path(out or root / "starter") / stage / "matmul.cu"
        text = make_starter(src.read_text(), str(src.relative_to(root)), level)
        current = dst.read_text() if dst.exists() else None
        if current == text:
            continue
        if check:
            drifts.append(Drift(stage, dst, "missing" if current is None else "differs from the solution"))
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(text)
    return drifts


def _contract(text: str) -> list[str]:
    """A starter's opening comment (the stage's contract), without the generated-file line."""
    out = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        if "./tilelab starter" not in line and "Starter file" not in line:
            out.append(line)
    return out


def from_previous(starter_dir: Path, stage: str, force: bool = False) -> str:
    """Begin <stage> from the student's own previous-stage kernel: <stage>/matmul.cu becomes the
    previous stage's matmul.cu under this stage's contract (its opening comment), and the file it
    replaces is kept as matmul.cu.orig. Returns what was done, for the student."""
    from . import spec

    by = {s.id: s for s in spec.load_all(ROOT)}
    ids = list(by)
    # The stage before it in the order, unless its stage.toml names another ([stage] begins_from).
    if stage not in ids or (ids.index(stage) == 0 and not by[stage].begins_from):
        raise MarkerError(f"--from-previous needs a stage after the first one; stages are {ids}")
    prev = by[stage].begins_from or ids[ids.index(stage) - 1]
    src, dst = Path(starter_dir) / prev / "matmul.cu", Path(starter_dir) / stage / "matmul.cu"
    orig = dst.with_name("matmul.cu.orig")
    if not src.exists():
        raise MarkerError(f"there is no {prev}/matmul.cu to start from")
    if orig.exists() and not force:
        raise MarkerError(f"{orig} exists: {stage} was already begun from {prev} (use --force to do it again; "
                          "matmul.cu is replaced, matmul.cu.orig kept)")
    if dst.exists() and not orig.exists():
        dst.replace(orig)
    contract = _contract(orig.read_text()) if orig.exists() else []
    api_note = ([] if by[prev].api == by[stage].api else
                [f"// NOTE: {stage}'s launch_matmul has another signature than {prev}'s: see its starter in",
                 "// matmul.cu.orig and change yours to match, or the grader cannot link it."])
    head = [f"// Begun from your own {prev} kernel (`./tilelab starter --from-previous {stage}`); the",
            f"// starter it replaces is kept in matmul.cu.orig. {stage}'s contract, from that starter:",
            "//", *contract, *api_note, "// ---- your " + prev + " code follows ----"]
    dst.write_text("\n".join(head) + "\n" + src.read_text())
    return (f"wrote {dst} from your {prev}/matmul.cu (the starter is kept as {orig.name})"
            + ("; its launch_matmul signature must change: see the NOTE at its top" if api_note else ""))
