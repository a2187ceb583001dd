"""`tilelab trace` without a build (issue #17, item 3): the book's kernel as a table is PMPP Fig. 4.15,
a trace is replayed into the table it shows (what each shared element held, the phases, the
barriers), the first difference is found and marked, and the data renders in the terminal and in
HTML. The real kernels are traced by the CTest checks kit.trace.* (trace_check.py)."""

import json
import re
from pathlib import Path

from tilelab import ROOT
from tilelab.commands import trace
from tilelab.specs.compat import tomllib

GRADER = Path(__file__).resolve().parents[2]
FIG = GRADER / "tests" / "python" / "data" / "trace" / "pmpp-fig-4.15.toml"


def _result(table: trace.Table) -> trace.TraceResult:
    ref = trace.reference(table.stage, table.example)
    return trace.TraceResult(table.stage, "test", [trace.ExampleTrace(table, ref, trace.compare(table, ref))])


def test_book_kernel_is_fig_4_15():
    ex = trace.stages()["02-tiled"].examples[0]
    table = trace.reference("02-tiled", ex)
    assert trace.figure_differences(table, tomllib.loads(FIG.read_text())) == []
    # 4 x 4 with M = 1..16 and N = 17..32: P0,0 = 1*17 + 2*21 + 3*25 + 4*29.
    assert table.block((0, 0)).row((0, 0)).stores == ["P0,0 = 250"]


def test_fig_4_15_check_can_fail():
    ex = trace.stages()["02-tiled"].examples[0]
    table = trace.reference("02-tiled", ex)
    table.block((0, 0)).row((1, 0)).cells[1].loads[1] = "N3,1 → Nds1,0"
    problems = trace.figure_differences(table, tomllib.loads(FIG.read_text()))
    assert len(problems) == 1 and problems[0].startswith("thread1,0")


def _fake_02(first_barrier: bool) -> dict:
    """The accesses trace_main.cpp writes for 02's kernel on 2 x 2 x 2 (one block, one phase): the
    emulator runs each thread up to its next barrier, in thread order. Without the first barrier a
    thread loads and uses the tiles before the next thread has loaded anything."""
    M, N = trace.inputs((2, 2, 2))
    shared: dict[str, float] = {}
    acc = []
    threads = [(0, 0), (0, 1), (1, 0), (1, 1)]
    barriers = {t: 0 for t in threads}
    pvalue = {t: 0.0 for t in threads}

    def ev(kind, t, element, value):
        acc.append([kind, 0, [0, 0], [t[1], t[0]], barriers[t], element, True, value, 0])

    def load(t):
        ty, tx = t
        for src, dst, v in ((f"M[{ty}][{tx}]", f"Mds[{ty}][{tx}]", M[ty][tx]), (f"N[{ty}][{tx}]", f"Nds[{ty}][{tx}]", N[ty][tx])):
            ev("L", t, src, v)
            ev("s", t, dst, v)
            shared[dst] = v

    def use(t):
        ty, tx = t
        for k in range(2):
            a, b = shared.get(f"Mds[{ty}][{k}]", 0.0), shared.get(f"Nds[{k}][{tx}]", 0.0)
            ev("l", t, f"Mds[{ty}][{k}]", a)
            ev("l", t, f"Nds[{k}][{tx}]", b)
            pvalue[t] += a * b

    segments = [[load], [use]] if first_barrier else [[load, use]]
    for seg in segments:
        for t in threads:
            for step in seg:
                step(t)
            barriers[t] += 1
    for t in threads:
        ev("S", t, f"P[{t[0]}][{t[1]}]", pvalue[t])
        acc.append(["E", 0, [0, 0], [t[1], t[0]], barriers[t], "", True, None, 0])
    return {"accesses": acc, "error": None, "findings": []}


EX_2 = trace.Example((2, 2, 2), "2 x 2")


def test_replay_of_a_right_kernel_is_the_books():
    table = trace.table_from_trace("02-tiled", EX_2, _fake_02(first_barrier=True))
    row = table.block((0, 0)).row((0, 1))
    assert row.cells[0].loads == ["M0,1 → Mds0,1", "N0,1 → Nds0,1"]
    assert [(o.element, o.holds) for t in row.cells[0].terms for o in t] == [
        ("Mds0,0", "M0,0"), ("Nds0,1", "N0,1"), ("Mds0,1", "M0,1"), ("Nds1,1", "N1,1")]
    assert row.cells[0].barriers == 2
    assert trace.compare(table, trace.reference("02-tiled", EX_2)) is None


def test_replay_finds_the_missing_barrier():
    table = trace.table_from_trace("02-tiled", EX_2, _fake_02(first_barrier=False))
    d = trace.compare(table, trace.reference("02-tiled", EX_2))
    assert d is not None
    assert d.sentence().startswith("first difference from the book's kernel: block0,0, thread0,0, phase 0: "
                                   "reads Mds0,1 before any thread of the block stored it; the book's kernel: "
                                   "reads Mds0,1 holding M0,1")
    assert "it passes 1 __syncthreads() in this phase, the book's kernel 2" in d.sentence()


def test_map_stage_compares_only_the_stored_elements():
    ex = trace.stages()["01-basic"].examples[0]
    ref = trace.reference("01-basic", ex)
    other = trace.reference("01-basic", ex)
    other.block((0, 0)).row((0, 0)).cells[0].terms.reverse()   # another order of the same sum
    assert trace.compare(other, ref) is None
    other.block((1, 1)).row((1, 0)).stores = ["P2,3 = 1"]
    d = trace.compare(other, ref)
    assert (d.block, d.thread, d.phase) == ("block1,1", "thread1,0", None)
    assert "stores P2,3 = 1; the book's kernel: stores P3,2 =" in d.sentence()


def test_every_stage_example_has_a_reference_and_cmake_traces_the_same_stages(tmp_path):
    """The stages with a figure are those whose stage.toml has [trace]; CMake's list is written
    from the same specs (codegen), so the two cannot drift."""
    from tilelab.specs import codegen, spec
    assert {"01-basic", "02-tiled", "03-boundary", "04-rectangular"} <= set(trace.stages())   # the book's figures
    cmake = codegen.stages_cmake(spec.load_all(ROOT), tmp_path)
    listed = re.search(r'set\(TILELAB_TRACE_STAGES "([^"]*)"\)', cmake).group(1).split(";")
    assert listed == list(trace.stages())
    for stage, st in trace.stages().items():
        for ex in st.examples:
            table = trace.reference(stage, ex)
            J, K, L = ex.shape
            stores = sorted(s for b in table.blocks for r in b.rows for s in r.stores)
            assert len(stores) == J * L, (stage, ex.shape)   # every element of P, once


def test_data_terminal_and_html_mark_the_first_difference():
    table = trace.table_from_trace("02-tiled", EX_2, _fake_02(first_barrier=False))
    result = _result(table)
    data = trace.as_data(result)
    json.dumps(data)
    cells = [c for b in data["examples"][0]["blocks"] for r in b["rows"] for c in r["cells"]]
    assert [c["difference"] for c in cells] == [True, False, False, False]
    assert cells[0]["expected"][-1] == "PValue0,0 += Mds0,0*Nds0,0 + Mds0,1*Nds1,0"

    from rich.console import Console
    console = Console(record=True, width=200)
    trace.render(result, console)
    text = console.export_text()
    assert "the book:" in text and "reads Mds0,1 before any thread" in text

    html = trace.render_html(data)
    assert html.count('class="diff"') == 1
    assert "M0,0 → Mds0,0" in html and "reads Mds0,1 before any thread" in html
