"""`tilelab trace STAGE`: the book's figures, run on the student's own kernel (docs/emulator.md,
"The trace build").

The student's matmul.cu is built on the CPU emulator's trace build with TILE_WIDTH (BLOCK_WIDTH in
01-basic) set to 2 and run on the book's tiny examples: the 4 x 4 product of PMPP 3rd ed. Fig.
4.14/4.15 (02), the 3 x 3 boundary example of Fig. 4.18/4.19 (03), the thread-to-element map of
Fig. 4.4 (01), rectangular shapes (04). The trace runner (grader/runner/trace_main.cpp) records
every load and store of the kernel; this module turns them into the book's table -- for each block
and thread, per phase, which elements of M and N it loads into Mds and Nds, the products it adds to
its Pvalue, and the element of P it stores -- and compares it with the table of the book's kernel
(`reference`, the same table computed from the book's algorithm; the kit's tests check that the
reference solutions give exactly that table), naming the first difference.

Plain functions, no printing: `run` builds and traces, `table_from_trace` and `reference` make
tables, `compare` finds the first difference, `as_data` is the whole result as JSON-able data
(`render_html` makes a page of it with templates/trace.html.j2), `render` prints it with rich.

Notation is the book's: M1,2 is row 1, column 2 of M; thread1,0 is threadIdx.y = 1, threadIdx.x = 0;
block0,1 is blockIdx.y = 0, blockIdx.x = 1 (row first, as the book's figures write them).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT
from ..specs import spec

TILE = 2   # the tile width of the book's figures

# The phase of a product: how a stage's table is read. "map": the thread-to-element map of a kernel
# without tiles (01-basic; only which thread stores which element of P, and its value, is compared:
# a tiled kernel is a right answer there too). "tiled": the book's phase table, compared in full.


# The stages' figures: each stage.toml's [trace] (spec.Trace), read once.
Example = spec.TraceExample
StageTrace = spec.Trace


@functools.cache
def stages() -> dict[str, StageTrace]:
    return {s.id: s.trace for s in spec.load_all(ROOT) if s.trace}


class TraceError(Exception):
    """The trace could not be made: unknown stage, a build that failed (the message says why)."""


# ---------------------------------------------------------------- the table
@dataclass(frozen=True)
class Operand:
    element: str           # where the thread read it, in the book's notation: "Mds0,1", "M0,1"
    holds: str             # what it held: "M0,1" (the element stored there), "0", "?" (nothing this block stored)
    value: float | None    # None: not a number (an element read from outside a matrix)


@dataclass
class Cell:
    """One thread in one phase: what the book's table shows in one cell."""
    loads: list[str] = field(default_factory=list)              # "M0,2 → Mds0,0", "0 → Nds1,1"
    terms: list[tuple[Operand, ...]] = field(default_factory=list)  # the products added to Pvalue
    pvalue: float | None = 0.0                                  # the sum of the products so far
    barriers: int = 0                                           # __syncthreads() passed in the phase


@dataclass
class Row:
    thread: tuple[int, int]                       # (threadIdx.y, threadIdx.x)
    cells: list[Cell] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)   # "P0,0 = 250"

    @property
    def label(self) -> str:
        return f"thread{self.thread[0]},{self.thread[1]}"

    @property
    def pvalue_name(self) -> str:
        """The book's PValue0,0: named after the element of P the thread stores."""
        m = re.match(r"P(-?\d+,-?\d+)", self.stores[0]) if self.stores else None
        return "PValue" + (m.group(1) if m else "")


@dataclass
class Block:
    block: tuple[int, int]                        # (blockIdx.y, blockIdx.x)
    rows: list[Row] = field(default_factory=list)
    launch: int = 0

    @property
    def label(self) -> str:
        return (f"launch {self.launch}, " if self.launch else "") + f"block{self.block[0]},{self.block[1]}"

    def row(self, thread: tuple[int, int]) -> Row | None:
        return next((r for r in self.rows if r.thread == thread), None)


@dataclass
class Table:
    stage: str
    example: Example
    blocks: list[Block] = field(default_factory=list)
    error: str | None = None                       # the launch's CUDA error, if any
    findings: list[str] = field(default_factory=list)   # what the emulator found (line: message)

    def block(self, b: tuple[int, int], launch: int = 0) -> Block | None:
        return next((x for x in self.blocks if x.block == b and x.launch == launch), None)


def book(element: str) -> str:
    """M[1][2] -> M1,2 (the book's notation); anything else unchanged."""
    return re.sub(r"^(\w+)\[(-?\d+)\]\[(-?\d+)\]$", r"\1\2,\3", element)


def fmt(v: float | None) -> str:
    return "NaN" if v is None else f"{v:g}"


def cell_lines(cell: Cell, pvalue_name: str = "PValue") -> list[str]:
    """The cell as the book prints it: the loads, then 'PValue0,0 += Mds0,0*Nds0,0 + ...'."""
    lines = list(cell.loads)
    if cell.terms:
        lines.append(f"{pvalue_name} += " + " + ".join("*".join(o.element for o in t) for t in cell.terms))
    return lines


def _finish(rows: list[Row]) -> None:
    """Running Pvalues: the sum of the products of every phase so far (None once a factor is not a
    number; a lone operand, an odd read, adds nothing)."""
    for r in rows:
        total: float | None = 0.0
        for c in r.cells:
            for t in c.terms:
                if len(t) == 2 and total is not None:
                    a, b = t
                    total = None if a.value is None or b.value is None else total + a.value * b.value
            c.pvalue = total


# ---------------------------------------------------------------- the inputs and the book's kernel
def inputs(shape: tuple[int, int, int]) -> tuple[list[list[float]], list[list[float]]]:
    """M and N of an example: small distinct integers (exact in float32; every element of M and N a
    different value, so a value stored in shared memory names the load it came from): M holds
    1 .. J*K row by row, N the next K*L integers."""
    J, K, L = shape
    M = [[float(1 + r * K + c) for c in range(K)] for r in range(J)]
    N = [[float(1 + J * K + r * L + c) for c in range(L)] for r in range(K)]
    return M, N


def reference(stage: str, example: Example) -> Table:
    """The book's kernel of `stage` on the example, as a table: what the reference solution's trace
    must give (grader/tests/submissions/trace_check.py checks that it does)."""
    st = stages()[stage]
    J, K, L = example.shape
    M, N = inputs(example.shape)
    T = TILE
    table = Table(stage, example)
    for by in range(-(-J // T)):
        for bx in range(-(-L // T)):
            block = Block((by, bx))
            for ty in range(T):
                for tx in range(T):
                    row, col = by * T + ty, bx * T + tx
                    r = Row((ty, tx))
                    inside = row < J and col < L
                    if st.kind == "map":
                        if inside:
                            r.cells.append(Cell(terms=[(Operand(f"M{row},{k}", f"M{row},{k}", M[row][k]),
                                                        Operand(f"N{k},{col}", f"N{k},{col}", N[k][col]))
                                                       for k in range(K)]))
                    else:
                        phases = -(-K // T) if st.bounded else K // T

                        def m_at(ph, k):   # what thread (ty, k) stored in Mds[ty][k] in phase ph
                            c = ph * T + k
                            return (f"M{row},{c}", M[row][c]) if row < J and c < K else ("0", 0.0)

                        def n_at(ph, k):   # what thread (k, tx) stored in Nds[k][tx] in phase ph
                            rr = ph * T + k
                            return (f"N{rr},{col}", N[rr][col]) if rr < K and col < L else ("0", 0.0)

                        for ph in range(phases):
                            cell = Cell(loads=[f"{m_at(ph, tx)[0]} → Mds{ty},{tx}", f"{n_at(ph, ty)[0]} → Nds{ty},{tx}"],
                                        barriers=2)
                            for k in range(T):
                                (ms, mv), (ns, nv) = m_at(ph, k), n_at(ph, k)
                                cell.terms.append((Operand(f"Mds{ty},{k}", ms, mv), Operand(f"Nds{k},{tx}", ns, nv)))
                            r.cells.append(cell)
                    block.rows.append(r)
            table.blocks.append(block)
    _finish([r for b in table.blocks for r in b.rows])
    for b in table.blocks:
        for r in b.rows:
            row, col = b.block[0] * T + r.thread[0], b.block[1] * T + r.thread[1]
            if row < J and col < L:
                r.stores.append(f"P{row},{col} = {fmt(r.cells[-1].pvalue)}")
    return table


# ---------------------------------------------------------------- the student's trace
@dataclass
class _ThreadState:
    read_shared: bool = False                       # a shared read since the last shared store
    unmatched: list = field(default_factory=list)   # (operand, cell) of global loads not yet stored to shared
    starts: list = field(default_factory=list)      # the barrier count at each cell's first access
    end: int | None = None                          # the barrier count at the thread's end


def table_from_trace(stage: str, example: Example, doc: dict) -> Table:
    """The table of a trace runner's JSON (trace_main.cpp). Accesses are replayed in the order the
    emulator ran them, so what each shared element holds when read is known: the element of M or N
    whose value the storing thread had just loaded (or the value itself, such as 0), or "?" when no
    thread of the block has stored it yet. A thread's phase ends when it stores into shared memory
    after having read shared memory (the next tiles are loaded); a kernel without shared memory
    has one phase. Global loads that are stored into shared memory are the loads of the table; the
    other reads, in order, are the operands of the products, paired two by two."""
    table = Table(stage, example, error=doc.get("error"),
                  findings=[(f"line {f['line']}: " if f.get("line") else "") + f["message"] for f in doc.get("findings", [])])
    blocks: dict[tuple, Block] = {}
    contents: dict[tuple, dict[str, tuple[str, float | None]]] = {}
    states: dict[tuple, _ThreadState] = {}
    operands: dict[int, list[Operand]] = {}        # id(cell) -> its operands, in order

    for kind, launch, (bx, by), (tx, ty), barriers, element, inside, value, _line in doc.get("accesses", []):
        bkey = (launch, by, bx)
        if bkey not in blocks:
            blocks[bkey] = Block((by, bx), launch=launch)
            contents[bkey] = {}
            table.blocks.append(blocks[bkey])
        block = blocks[bkey]
        row = block.row((ty, tx))
        if row is None:
            row = Row((ty, tx))
            block.rows.append(row)
        st = states.setdefault((bkey, (ty, tx)), _ThreadState())
        if kind == "E":
            st.end = barriers
            continue
        name = book(element) + ("" if inside else " (outside)")
        if kind == "S":
            row.stores.append(f"{name} = {fmt(value)}")
            continue
        if not row.cells or (kind == "s" and st.read_shared):
            row.cells.append(Cell())
            st.starts.append(barriers)
            st.read_shared = False
        cell = row.cells[-1]
        ops = operands.setdefault(id(cell), [])
        if kind == "L":
            op = Operand(name, name, value)
            ops.append(op)
            st.unmatched.append((op, cell))
        elif kind == "l":
            st.read_shared = True
            holds, v = contents[bkey].get(name, ("?", value))
            ops.append(Operand(name, holds, value))
        elif kind == "s":
            src = fmt(value)
            for i in range(len(st.unmatched) - 1, -1, -1):   # the latest load of the value stored
                op, where = st.unmatched[i]
                if op.value == value:
                    src = op.element
                    del st.unmatched[i]
                    operands[id(where)] = [o for o in operands[id(where)] if o is not op]
                    break
            contents[bkey][name] = (src, value)
            cell.loads.append(f"{src} → {name}")
    for block in table.blocks:
        block.rows.sort(key=lambda r: r.thread)
        for r in block.rows:
            st = states[((block.launch, block.block[0], block.block[1]), r.thread)]
            for i, c in enumerate(r.cells):
                ops = operands.get(id(c), [])
                c.terms = [tuple(ops[j:j + 2]) for j in range(0, len(ops), 2)]
                nxt = st.starts[i + 1] if i + 1 < len(st.starts) else st.end
                c.barriers = (nxt if nxt is not None else st.starts[i]) - st.starts[i]
    table.blocks.sort(key=lambda b: (b.launch, b.block))
    _finish([r for b in table.blocks for r in b.rows])
    return table


def figure_differences(table: Table, fig: dict) -> list[str]:
    """Where a table's block differs from a figure typed in from the book ({"block": "block0,0",
    "row": [{"thread": "thread0,0", "phase0": [lines], ...}, ...]}); empty when it is the figure."""
    block = next((b for b in table.blocks if b.label == fig["block"]), None)
    if block is None:
        return [f"no {fig['block']} in the trace"]
    problems = []
    for want in fig["row"]:
        row = next((r for r in block.rows if r.label == want["thread"]), None)
        if row is None:
            problems.append(f"no {want['thread']} in {fig['block']}")
            continue
        got = [cell_lines(c, row.pvalue_name) for c in row.cells]
        phases = [want[k] for k in sorted(k for k in want if k.startswith("phase"))]
        if got != phases:
            problems.append(f"{want['thread']}: the trace has {got}, the book {phases}")
    return problems


# ---------------------------------------------------------------- the first difference
@dataclass(frozen=True)
class Difference:
    block: str               # "block0,0"
    thread: str              # "thread0,1"
    phase: int | None        # None: not in one phase (the block, the thread, the stored P)
    got: str                 # what the student's kernel did
    expected: str            # what the book's kernel does
    note: str = ""           # more about the same cell (barriers)

    def sentence(self) -> str:
        where = ", ".join(x for x in (self.block, self.thread, "" if self.phase is None else f"phase {self.phase}") if x)
        return f"first difference from the book's kernel: {where}: {self.got}; the book's kernel: {self.expected}" + (
            f" ({self.note})" if self.note else "")


def _describe(o: Operand) -> str:
    if o.holds == "?":
        return f"reads {o.element} before any thread of the block stored it"
    if o.holds == o.element:
        return f"reads {o.element}"
    return f"reads {o.element} holding {o.holds}"


def compare(student: Table, ref: Table) -> Difference | None:
    """The first place, in the order the emulator runs them (blocks, threads, phases), where the
    student's table differs from the book's; None when they agree. In a "map" stage only the stored
    elements of P are compared."""
    full = stages()[ref.stage].kind == "tiled"
    for rb in ref.blocks:
        sb = student.block(rb.block)
        if sb is None:
            return Difference(rb.label, "", None, "the block never runs",
                              "runs it (check the grid: enough blocks, x for the columns of P, y for its rows)")
        for rr in rb.rows:
            sr = sb.row(rr.thread)
            if sr is None:
                return Difference(rb.label, rr.label, None, "the thread never runs",
                                  "it is part of the block (check the block size)")
            if full:
                d = _compare_cells(rb.label, sr, rr)
                if d:
                    return d
            if sr.stores != rr.stores:
                got = "stores " + (", ".join(sr.stores) if sr.stores else "nothing")
                return Difference(rb.label, rr.label, None, got,
                                  "stores " + (", ".join(rr.stores) if rr.stores else "nothing"))
        extra = [r for r in sb.rows if r.stores and rb.row(r.thread) is None]
        if extra:
            return Difference(rb.label, extra[0].label, None, "stores " + ", ".join(extra[0].stores),
                              "has no such thread")
    extra_blocks = [b for b in student.blocks if ref.block(b.block, b.launch) is None and any(r.stores for r in b.rows)]
    if extra_blocks:
        b = extra_blocks[0]
        return Difference(b.label, "", None, "runs and stores " + next(r for r in b.rows if r.stores).stores[0],
                          "launches no such block")
    return None


def _compare_cells(block: str, sr: Row, rr: Row) -> Difference | None:
    for ph in range(max(len(sr.cells), len(rr.cells))):
        if ph >= len(sr.cells):
            n = len(sr.cells)
            got = ("the thread loads and multiplies nothing" if n == 0
                   else f"the thread runs {n} phase{'s' if n != 1 else ''} only")
            return Difference(block, rr.label, ph, got, f"{len(rr.cells)} phases")
        if ph >= len(rr.cells):
            return Difference(block, rr.label, ph, "the thread runs one more phase: " + "; ".join(cell_lines(sr.cells[ph])),
                              f"{len(rr.cells)} phases")
        s, r = sr.cells[ph], rr.cells[ph]
        note = (f"it passes {s.barriers} __syncthreads() in this phase, the book's kernel {r.barriers}"
                if s.barriers != r.barriers else "")
        for i in range(max(len(s.loads), len(r.loads))):
            got = s.loads[i] if i < len(s.loads) else None
            want = r.loads[i] if i < len(r.loads) else None
            if got != want:
                return Difference(block, rr.label, ph, f"loads {got}" if got else "loads nothing more",
                                  f"loads {want}" if want else "loads nothing more", note)
        s_ops = [o for t in s.terms for o in t]
        r_ops = [o for t in r.terms for o in t]
        for i in range(max(len(s_ops), len(r_ops))):
            got = s_ops[i] if i < len(s_ops) else None
            want = r_ops[i] if i < len(r_ops) else None
            if got is None or want is None or (got.element, got.holds) != (want.element, want.holds):
                return Difference(block, rr.label, ph, _describe(got) if got else "reads nothing more",
                                  _describe(want) if want else "reads nothing more", note)
        if note:
            return Difference(block, rr.label, ph, f"passes {s.barriers} __syncthreads() in this phase",
                              f"passes {r.barriers}")
        if s.pvalue != r.pvalue:
            return Difference(block, rr.label, ph, f"Pvalue = {fmt(s.pvalue)}", f"Pvalue = {fmt(r.pvalue)}")
    return None


# ---------------------------------------------------------------- running a trace
@dataclass
class ExampleTrace:
    table: Table                      # the student's
    reference: Table                  # the book's kernel's
    difference: Difference | None


@dataclass
class TraceResult:
    stage: str
    source: str                       # what was traced, as shown ("starter/02-tiled/matmul.cu")
    examples: list[ExampleTrace] = field(default_factory=list)


def trace_runner(runner: Path, stage: str, work: Path, run_program=None, source: str = "") -> TraceResult:
    """Run a built trace runner (trace-<impl>-<stage>) on each of the stage's examples, in `work`.
    run_program(cmd, name) -> sandbox.Ran runs it (default: run_limited with a 60 s limit)."""
    from ..run.sandbox import run_limited

    if stage not in stages():
        raise TraceError(f"there is no trace of {stage}: the book's figures are of {', '.join(stages())}")
    run_program = run_program or (lambda cmd, name: run_limited(cmd, timeout=60, log=work / f"{name}.log"))
    work.mkdir(parents=True, exist_ok=True)
    result = TraceResult(stage, source or str(runner))
    for i, ex in enumerate(stages()[stage].examples):
        M, N = inputs(ex.shape)
        given, got = work / f"trace-{stage}-{i}-input.json", work / f"trace-{stage}-{i}.json"
        given.write_text(json.dumps({"M": M, "N": N}))
        got.unlink(missing_ok=True)
        ran = run_program([str(runner), "--input", str(given), "--out", str(got)], f"trace-{stage}-{i}")
        try:
            doc = json.loads(got.read_text())
        except (OSError, ValueError):
            why = ("it ran past 60 s (a kernel that hangs? ./tilelab grade names the barrier)" if ran.timed_out
                   else f"it ended with status {ran.returncode} before writing the trace (a crash? ./tilelab "
                   "grade says where)")
            raise TraceError(f"the trace of {stage} on the {ex.shape[0]} x {ex.shape[1]} x {ex.shape[2]} example "
                             f"failed: {why}\n{ran.output[-2000:]}") from None
        table = table_from_trace(stage, ex, doc)
        ref = reference(stage, ex)
        result.examples.append(ExampleTrace(table, ref, compare(table, ref)))
    return result


def run(stage: str, submission: Path | None = None, impl: str | None = None, build_dir: Path | None = None,
        jobs: int | None = None) -> TraceResult:
    """`tilelab trace STAGE`: build the trace runner of the student's file (the starter's, or a
    submission's) in the grading tree of the emulator, and trace it."""
    import os

    from ..run import submission as submission_mod
    from ..grading.options import BUILD_ROOT
    from ..run.tree import Tree, compile_excerpt, log_tail

    if stage not in stages():
        raise TraceError(f"there is no trace of {stage}: the book's figures are of {', '.join(stages())}")
    impl = impl or ("submission" if submission else "starter")
    build = Path(build_dir or BUILD_ROOT / f"grade-{impl}-emu").resolve()
    tree = Tree(build, jobs=jobs or os.cpu_count() or 1)
    sub_root = None
    if submission:
        try:
            mat = submission_mod.materialize(Path(submission), build / "submission-src", [stage])
        except submission_mod.SubmissionError as e:
            raise TraceError(str(e)) from None
        if stage not in mat.stages:
            raise TraceError(f"no {stage}/matmul.cu in {submission}")
        sub_root = mat.root
    target = f"trace-{impl}-{stage}"
    if target not in tree.targets():
        c = tree.configure([] if impl == "submission" else [impl], sub_root, None, "emu")
        if not c.ok:
            raise TraceError(f"configuring the build failed:\n{log_tail(c.output)}")
        if target not in tree.targets():
            raise TraceError(f"this build has no {target}: the CPU emulator is not built here (./tilelab doctor "
                             "says what is missing)")
    # Never a runner or a rewritten file an earlier build left (of another submission, in a reused tree).
    for stale in (build / "runners" / target, build / "generated" / "emu" / f"{target}.cpp"):
        stale.unlink(missing_ok=True)
    b = tree.build_targets([target], f"trace-{stage}", timeout=600)
    if not b.ok:
        raise TraceError(f"the trace build of {stage} failed:\n{compile_excerpt(b.output, str(build / 'submission-src'), tree=build, own=tree.own_folders(impl, stage))}")
    source = f"{submission or 'starter'}/{stage}/matmul.cu" if impl != "solution" else f"solutions/{stage}/matmul.cu"
    return trace_runner(build / "runners" / target, stage, tree.results,
                        lambda cmd, name: tree.run_program(cmd, name, timeout=60), source)


# ---------------------------------------------------------------- as data, as a terminal table
def as_data(result: TraceResult) -> dict:
    """The whole trace as JSON-able data: what templates/trace.html.j2 renders (and what a results
    format may embed). Per example: its caption and shape, the first difference (a sentence, or
    None), the emulator's findings, and per block the rows: per thread, per phase, the lines of the
    book's cell, the running Pvalue, and whether the cell is where the first difference is (then
    also the book's kernel's lines and Pvalue there)."""
    out = {"stage": result.stage, "source": result.source, "tile": TILE, "examples": []}
    for ex in result.examples:
        d = ex.difference
        blocks = []
        for b in ex.table.blocks:
            rows = []
            for r in b.rows:
                ref_block = ex.reference.block(b.block)
                ref_row = ref_block.row(r.thread) if ref_block else None
                cells = []
                for ph, c in enumerate(r.cells):
                    here = bool(d and d.block == b.label and d.thread == r.label and d.phase == ph)
                    expected = expected_pvalue = None
                    if here and ref_row and ph < len(ref_row.cells):
                        expected = cell_lines(ref_row.cells[ph], ref_row.pvalue_name)
                        expected_pvalue = fmt(ref_row.cells[ph].pvalue)
                    cells.append({"lines": cell_lines(c, r.pvalue_name), "pvalue": fmt(c.pvalue) if c.terms else None,
                                  "difference": here, "expected": expected, "expected_pvalue": expected_pvalue})
                stores_differ = bool(d and d.block == b.label and d.thread == r.label and d.phase is None)
                rows.append({"thread": r.label, "cells": cells, "stores": r.stores, "difference": stores_differ,
                             "expected_stores": ref_row.stores if stores_differ and ref_row else None})
            blocks.append({"block": b.label, "rows": rows})
        out["examples"].append({
            "caption": ex.table.example.caption, "shape": list(ex.table.example.shape),
            "phases": max((len(r.cells) for b in ex.table.blocks for r in b.rows), default=0),
            "difference": d.sentence() if d else None, "error": ex.table.error, "findings": ex.table.findings,
            "blocks": blocks})
    return out


def render(result: TraceResult, console=None) -> None:
    """Print the trace as the book's tables (rich), the first difference marked in red."""
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    console = console or Console()
    data = as_data(result)
    console.print(f"[bold]{data['stage']}[/bold]: {data['source']} with TILE_WIDTH {TILE}, traced on the CPU "
                  "emulator (threadY,X and blockY,X: row first, as the book writes them)")
    for ex in data["examples"]:
        console.print(f"\n[bold]{ex['caption']}[/bold]")
        for b in ex["blocks"]:
            t = RichTable(title=b["block"], title_justify="left", show_lines=True)
            t.add_column("thread", no_wrap=True)
            for ph in range(ex["phases"]):
                t.add_column(f"phase {ph}")
            t.add_column("P")
            for r in b["rows"]:
                cells = []
                for c in r["cells"]:
                    text = Text("\n".join(c["lines"]) or "-")
                    if c["pvalue"] is not None:
                        text.append(f"\n= {c['pvalue']}", style="dim")
                    if c["difference"]:
                        text.stylize("bold red")
                        if c["expected"]:
                            text.append("\nthe book:\n" + "\n".join(c["expected"]) + f"\n= {c['expected_pvalue']}",
                                        style="green")
                    cells.append(text)
                cells += [""] * (ex["phases"] - len(cells))
                stores = Text("\n".join(r["stores"]) or "-", style="bold red" if r["difference"] else "")
                if r["expected_stores"] is not None:
                    stores.append("\nthe book:\n" + ("\n".join(r["expected_stores"]) or "-"), style="green")
                t.add_row(r["thread"], *cells, stores)
            console.print(t)
        if ex["error"]:
            console.print(f"[red]the launch failed: {ex['error']}[/red]")
        for f in ex["findings"]:
            console.print(f"[red]the emulator found: {f}[/red]")
        console.print(f"[bold red]{ex['difference']}[/bold red]" if ex["difference"]
                      else "[green]the same table as the book's kernel[/green]")


def render_html(data: dict) -> str:
    """as_data's trace as a page of its own (templates/trace.html.j2 and its trace_tables macro)."""
    import jinja2

    from ..report.formats.html import TEMPLATES

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    page = env.from_string('{% from "trace.html.j2" import trace_tables, trace_style %}<!doctype html>'
                           '<html><head><meta charset="utf-8"><title>tilelab trace {{ t.stage }}</title>'
                           '{{ trace_style() }}</head><body>{{ trace_tables(t) }}</body></html>')
    return page.render(t=data)
