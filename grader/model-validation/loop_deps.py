#!/usr/bin/env python3
"""The hot loop's dependences and issue per pipe, from nvcc's SASS, for a per-pipe model of the
cuda-core stages (issue #44; a candidate in model_fit.py, not the model). One warp's in-order issue of the hot
loop's body (tilelab.run.sass's hot loop), in steady state: each instruction issues a clock after the
one before it, or when its source registers and predicates are ready, whichever is later; a result
is ready a latency after its instruction issued (LATENCY: FFMA 4 clocks, LDS `lds` clocks, LDG `ldg`).
`clocks` is what one pass takes when its warp is alone on its scheduler; W warps a scheduler overlap
W passes, so a scheduler needs about max(issue, clocks / W) a pass (model_fit.per_pipe combines the
two). The phase loop (the hot loop where it holds a barrier, else the loop around it) gives a
phase's instructions and the global-load latency it leaves exposed (`phase_exposed`, by LDG latency).

    loop_deps.py OUT.json [--jobs N] [--sass-dir DIR]

compiles every kernel of every set (model_variants.py's sources) for sm_90 with the kit's nvcc wheel,
keeps nvdisasm's text in DIR (reused when there), and writes per kernel: the loop's size, its
instructions per pipe (fma: FFMA, IMAD, FMUL, FADD; alu: integer logic, compares, shifts, moves;
mio: shared, global and local memory, constants, barriers), the distance in instructions from each
LDS to its first reader (min, median), `clocks` for a grid of LDS and LDG latencies, and the phase's
figures. Features only: fitting and choosing is model_fit.py's (search-pipes, on the pool only)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "grader")]
from tilelab.run import nvcc_wheel, sass  # noqa: E402

_REG = re.compile(r"\bR(\d+)(\.64)?\b")
_PRED = re.compile(r"\b(U?P[0-6])\b")
LATENCY = {"ffma": 4, "fp32_other": 4, "integer": 4, "uniform": 2, "move": 2, "conversion": 6, "fp64": 8,
           "lds": 30, "ldg": 500, "ldl": 500, "ldc": 10, "other": 4, "tensor": 30}
LDS_GRID, LDG_GRID = (16, 23, 30, 40), (250, 500, 800)
FMA_PIPE = {"FFMA", "IMAD", "FMUL", "FADD", "IMUL", "HFMA2", "FFMA32I", "FMUL32I", "FADD32I", "IMAD32I"}
ALU_PIPE = {"IADD3", "LOP3", "ISETP", "SHF", "LEA", "SEL", "IMNMX", "VIMNMX", "PRMT", "PLOP3", "MOV", "FSETP",
            "FMNMX", "FSEL", "IABS", "POPC", "FLO", "BMSK", "SGXT", "VIADD", "P2R", "R2P"}
MIO = {"lds", "sts", "ldg", "stg", "ldl", "stl", "ldgsts", "ldc", "barrier"}
STORES = {"sts", "stg", "stl"}


def _regs(text: str) -> list[int]:
    out = []
    for m in _REG.finditer(text):
        r = int(m.group(1))
        out += [r, r + 1] if m.group(2) else [r]
    return out


def _dest_width(ins: sass.Instruction) -> int:
    if ins.width:
        return max(1, ins.width // 32)
    parts = ins.mnemonic.split(".")
    return 2 if ("WIDE" in parts or "64" in parts or ins.opcode in ("DFMA", "DADD", "DMUL", "CS2R")) else 1


def operands(ins: sass.Instruction) -> tuple[list, list]:
    """(what the instruction writes, what it reads): registers as ints, predicates as names."""
    ops = [o.strip() for o in ins.operands.split(",")] if ins.operands else []
    writes_nothing = ins.kind in STORES or ins.kind in ("branch", "barrier") or ins.opcode in ("RED", "ATOM", "EXIT")
    dst, src = ([], ops) if writes_nothing else (ops[:1], ops[1:])
    writes: list = []
    for d in dst:
        if _PRED.fullmatch(d.lstrip("!")):
            writes.append(d.lstrip("!"))
        elif (r := _regs(d)):
            writes += list(range(r[0], r[0] + _dest_width(ins)))
    if ins.opcode in ("ISETP", "FSETP", "DSETP", "PLOP3") and src and _PRED.fullmatch(src[0].lstrip("!")):
        writes.append(src[0].lstrip("!"))
        src = src[1:]
    reads: list = []
    for i, s in enumerate(src):
        r = _regs(s)
        if ins.kind in STORES and i == len(src) - 1 and r:   # the data stored, at the store's width
            r = list(range(r[0], r[0] + max(1, ins.width // 32)))
        reads += r + _PRED.findall(s)
    return writes, reads


def clocks(body, lds: float, ldg: float, passes: int = 4) -> int:
    """Clocks one warp alone takes for the last of `passes` passes of body (steady state)."""
    lat = {**LATENCY, "lds": lds, "ldg": ldg, "ldl": ldg}
    ready: dict = {}
    t = start = 0
    deps = [operands(i) for i in body]
    for _ in range(passes):
        start = t
        for ins, (writes, reads) in zip(body, deps):
            t = max([t + 1] + [ready.get(r, 0) for r in reads])
            for w in writes:
                ready[w] = t + lat.get(ins.kind, 4)
    return t - start


def features(text: str, main: str | None) -> dict:
    fns = {f.name: f for f in sass.functions(text)}
    fn = fns.get(main) if main else None
    if fn is None and fns:
        fn = max(fns.values(), key=lambda f: f.hot_loop().own_products if f.hot_loop() else 0)
    lp = fn.hot_loop() if fn else None
    if lp is None:
        return {}
    body = lp.instructions
    deps = [operands(i) for i in body]
    dist = []
    for a, ins in enumerate(body):
        if ins.kind == "lds":
            written = set(deps[a][0])
            dist += [next((b - a for b in range(a + 1, len(body)) if written & set(deps[b][1])), len(body))]
    dist.sort()
    phase = _phase_loop(fn, lp)
    pbody = _phase_body(fn, phase, lp)
    bars = sum(i.kind == "barrier" for i in body)
    return {"phase_instructions": len(pbody), "phase_is_hot": phase is lp,
            "phases_per_pass": max(1, bars // 2) if phase is lp else 1,
            "phase_ldg": sum(i.kind == "ldg" for i in pbody),
            "phase_exposed": {str(b): clocks(pbody, 23, b) - clocks(pbody, 23, 23) for b in LDG_GRID},
            "kernel": fn.name, "instructions": len(body), "products": sum(i.is_product for i in body),
            "ffma": sum(i.kind == "ffma" for i in body),
            "fma": sum(i.opcode in FMA_PIPE for i in body), "alu": sum(i.opcode in ALU_PIPE for i in body),
            "mio": sum(i.kind in MIO for i in body), "lds": sum(i.kind == "lds" for i in body),
            "barriers": sum(i.kind == "barrier" for i in body), "nested": lp.nested,
            "lds_to_use_min": dist[0] if dist else None, "lds_to_use_median": dist[len(dist) // 2] if dist else None,
            "clocks": {f"{a},{b}": clocks(body, a, b) for a in LDS_GRID for b in LDG_GRID}}


def _phase_loop(fn: sass.Function, hot: sass.Loop) -> sass.Loop:
    """The loop of a phase: the hot loop where it holds a barrier (the k loop unrolled into it), else
    the innermost loop around it (a k loop left rolled inside its phase loop), else the hot loop."""
    if any(i.kind == "barrier" for i in hot.instructions):
        return hot
    around = [lp for lp in fn.loops() if lp.head <= hot.head and hot.tail <= lp.tail and lp != hot]
    return min(around, key=lambda lp: lp.tail - lp.head) if around else hot


def _phase_body(fn: sass.Function, phase: sass.Loop, hot: sass.Loop) -> tuple:
    """The phase loop's instructions a phase runs beside one pass of the hot loop: outside the hot
    loop, basic blocks holding multiply-adds are the k loop's other versions (a partial tile's, the
    remainder of an unrolled loop whose trip count is known only at run time), left out."""
    if phase is hot:
        return hot.instructions
    starts = set(fn.labels.values())
    blocks, cur = [], []
    for i in phase.instructions:
        if cur and (i.address in starts or cur[-1].kind == "branch"):
            blocks.append(cur)
            cur = []
        cur.append(i)
    blocks.append(cur)
    keep = []
    for b in blocks:
        in_hot = hot.head <= b[0].address <= hot.tail
        if in_hot or not any(i.is_product for i in b):
            keep += b
    return tuple(keep)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sass-dir", type=Path, help="nvdisasm's text per kernel, kept (and reused) here")
    a = ap.parse_args(argv)
    import model_variants
    facts = json.loads((HERE / "data" / "backend-facts.json").read_text())["kernels"]
    sdir = a.sass_dir or Path(tempfile.mkdtemp(prefix="tilelab-loop-deps-"))
    sdir.mkdir(parents=True, exist_ok=True)
    root = None
    with tempfile.TemporaryDirectory(prefix="tilelab-loop-deps-src-") as tmp:
        model_variants.write(Path(tmp))
        manifest = json.loads((Path(tmp) / "variants.json").read_text())

        def one(name):
            nonlocal root
            text = sdir / f"{name}.sass"
            if not text.exists():
                if root is None:
                    root = nvcc_wheel.find()[0]
                cubin = Path(tmp) / name / "k.cubin"
                done = nvcc_wheel.compile_cubin(root, Path(tmp) / name / manifest[name]["stage"] / "matmul.cu", cubin)
                if done.returncode != 0:
                    return name, {}
                text.write_text(nvcc_wheel.run(root, "nvdisasm", "-c", str(cubin)).stdout)
            f = (facts.get(name) or {}).get("facts") or {}
            return name, features(text.read_text(), f.get("main"))
        with ThreadPoolExecutor(max(1, a.jobs)) as pool:
            out = dict(pool.map(one, sorted(manifest)))
    a.out.write_text(json.dumps({"latency": LATENCY, "kernels": out}, indent=0, sort_keys=True) + "\n")
    print(f"loop_deps: {sum(bool(v) for v in out.values())} of {len(out)} kernels read: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
