"""A kernel's machine code (SASS) as nvdisasm prints it, read for the performance model: its
instructions, its loops (a branch back to an earlier address closes one), the hot loop, and that
loop's instruction mix by the classes the model reasons with (docs/performance.md, "What nvcc's
back end says").

The hot loop is the loop with the most multiply-adds of its own (FFMA, DFMA or tensor-core MMA, in
its body but not in a loop nested in it); a tie goes to the inner one. So a phase loop whose k loop nvcc
unrolled is the hot loop, and a k loop left rolled (its trip count known only at run time) is, not
the phase loop around it. The mix counts the loop's body once, nested loops included (`nested`
says how many), which is one iteration where nothing is nested.

Pure text processing: `functions(text)` takes nvdisasm's output (`nvdisasm -c file.cubin`), so the
parser is tested on checked-in text without NVIDIA's tools."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_FUNCTION = re.compile(r"^\.text\.(\S+):\s*$")
_LABEL = re.compile(r"^(\.L_x_\d+):\s*$")
_INSTRUCTION = re.compile(r"^/\*([0-9a-f]{4,})\*/\s+(@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\s*([^;]*);")
_TARGET = re.compile(r"`\((\.L_x_\d+)\)")

# The classes of the mix, by opcode (the mnemonic before its first '.'); anything else is "other".
# Integer: the vector integer pipe (address and index arithmetic, compares, logic, selects, moves
# made by IMAD.MOV); uniform: the per-warp uniform datapath (U-prefixed), which also issues.
_CLASS = {
    "FFMA": "ffma",
    **dict.fromkeys(("FADD", "FMUL", "FMNMX", "FSETP", "FSET", "FSEL", "MUFU", "FCHK", "FSWZADD", "FMUL32I",
                     "FADD32I", "FFMA32I"), "fp32_other"),
    **dict.fromkeys(("DFMA", "DADD", "DMUL", "DSETP", "DMNMX", "DSET"), "fp64"),
    **dict.fromkeys(("F2F", "F2I", "I2F", "I2FP", "F2FP", "FRND", "F2IP", "I2I", "I2IP"), "conversion"),
    **dict.fromkeys(("IMAD", "IADD3", "IADD", "IADD32I", "LEA", "ISETP", "SHF", "SHL", "SHR", "LOP3", "LOP", "LOP32I",
                     "IABS", "IMNMX", "VIMNMX", "VIADD", "VIADDMNMX", "SEL", "PRMT", "POPC", "FLO", "BREV", "ISCADD",
                     "SGXT", "BMSK", "IDP", "IMUL", "IMUL32I", "IMAD32I", "ICMP", "BFE", "BFI"), "integer"),
    **dict.fromkeys(("MOV", "MOV32I", "S2R", "CS2R", "S2UR", "R2UR", "SHFL", "PLOP3", "P2R", "R2P"), "move"),
    "LDS": "lds", "LDSM": "lds", "STS": "sts",
    "LDG": "ldg", "STG": "stg", "LDGSTS": "ldgsts", "LDL": "ldl", "STL": "stl", "LD": "ldg", "ST": "stg",
    "LDC": "ldc", "ULDC": "ldc",
    **dict.fromkeys(("BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BREAK", "BSSY", "BSYNC", "WARPSYNC"), "branch"),
    "BAR": "barrier",
    **dict.fromkeys(("HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA"), "tensor"),
}
# Loads and stores by width: a suffix .64 or .128 (LDS.128, LDG.E.128, LDG.E.64.CONSTANT), 8 and 16
# bits by .U8/.S8/.U16/.S16, else 32.
_WIDTHS = (("128", 128), ("64", 64), ("U16", 16), ("S16", 16), ("U8", 8), ("S8", 8))
_SIZED = ("lds", "sts", "ldg", "stg", "ldl", "stl", "ldgsts")
CLASSES = ("ffma", "fp32_other", "fp64", "conversion", "integer", "uniform", "move", "lds", "sts", "ldg", "stg",
           "ldgsts", "ldl", "stl", "ldc", "branch", "barrier", "tensor", "other")


@dataclass(frozen=True)
class Instruction:
    address: int
    mnemonic: str        # with its modifiers: LDS.128, IMAD.WIDE.U32
    operands: str
    predicated: bool

    @property
    def opcode(self) -> str:
        return self.mnemonic.split(".", 1)[0]

    @property
    def kind(self) -> str:
        op = self.opcode
        if op in _CLASS:
            return _CLASS[op]
        if op.startswith("U") and op[1:] in _CLASS:   # UIMAD, UIADD3, ULEA, UISETP, UMOV, ...
            return "uniform"
        return "other"

    @property
    def is_product(self) -> bool:
        """A multiply-add of the product: FFMA, DFMA (a double sum), or a tensor-core MMA."""
        return self.kind in ("ffma", "tensor") or self.opcode == "DFMA"

    @property
    def width(self) -> int:
        """Bits a lane loads or stores (loads and stores only; 0 for anything else)."""
        if self.kind not in _SIZED:
            return 0
        parts = self.mnemonic.split(".")[1:]
        if self.opcode == "LDSM":   # ldmatrix: .x4 moves 4 8x8 matrices, 128 bits a lane
            return {"X1": 32, "X2": 64, "X4": 128}.get(next((p for p in parts if p.startswith("X")), "X1"), 32)
        return next((bits for suffix, bits in _WIDTHS if suffix in parts), 32)


@dataclass(frozen=True)
class Loop:
    head: int            # the address branched back to
    tail: int            # the address of the branch back
    instructions: tuple[Instruction, ...]
    nested: int = 0      # loops inside it
    own_products: int = 0   # FFMA, DFMA and tensor MMA outside the loops nested in it


@dataclass
class Function:
    name: str
    instructions: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)   # label -> address

    def loops(self) -> list[Loop]:
        """Every loop, as the span from a backward branch's target to the branch, outermost first."""
        spans = set()
        for ins in self.instructions:
            if ins.kind != "branch":
                continue
            m = _TARGET.search(ins.operands)
            if m and m.group(1) in self.labels and self.labels[m.group(1)] <= ins.address:
                spans.add((self.labels[m.group(1)], ins.address))
        ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
        loops = []
        for head, tail in ordered:
            inner = [s for s in ordered if s != (head, tail) and head <= s[0] and s[1] <= tail]
            body = tuple(i for i in self.instructions if head <= i.address <= tail)
            own = sum(1 for i in body if i.is_product and not any(a <= i.address <= b for a, b in inner))
            loops.append(Loop(head, tail, body, len(inner), own))
        return loops

    def hot_loop(self) -> Loop | None:
        """The loop with the most multiply-adds of its own, the inner one of a tie; None without a
        loop holding any."""
        best = None
        for lp in self.loops():   # outermost first, so a later (inner) loop wins a tie
            if lp.own_products and (best is None or lp.own_products >= best.own_products):
                best = lp
        return best


def functions(text: str) -> list[Function]:
    """The kernels (and device functions) of nvdisasm's output, in its order."""
    out: list[Function] = []
    for raw in text.splitlines():
        line = raw.strip()
        m = _FUNCTION.match(line)
        if m:
            out.append(Function(m.group(1)))
            continue
        if not out:
            continue
        m = _LABEL.match(line)
        if m:
            # A label is the address of the next instruction: the one that follows it.
            out[-1].labels[m.group(1)] = -1
            continue
        m = _INSTRUCTION.match(line)
        if m:
            ins = Instruction(int(m.group(1), 16), m.group(3), m.group(4).strip(), bool(m.group(2)))
            fn = out[-1]
            for name, addr in fn.labels.items():
                if addr == -1:
                    fn.labels[name] = ins.address
            fn.instructions.append(ins)
    return out


def mix(instructions) -> dict:
    """The instruction mix: a count per class (CLASSES), loads and stores by width in bits
    ("lds_by_width": {"128": n, ...}), every mnemonic's count, the total, and each class per FFMA."""
    counts = Counter(i.kind for i in instructions)
    out: dict = {k: counts.get(k, 0) for k in CLASSES}
    out["total"] = sum(counts.values())
    out["products"] = sum(1 for i in instructions if i.is_product)
    for k in _SIZED:
        widths = Counter(str(i.width) for i in instructions if i.kind == k)
        if widths:
            out[f"{k}_by_width"] = dict(sorted(widths.items(), key=lambda kv: int(kv[0])))
    out["mnemonics"] = dict(sorted(Counter(i.mnemonic for i in instructions).items()))
    if out["ffma"]:
        out["per_ffma"] = {k: out[k] / out["ffma"] for k in (*CLASSES, "total") if out[k] and k != "ffma"}
    return out


def loop_facts(fn: Function) -> dict:
    """The hot loop's figures: where it is, its size, nested loops and its mix; {} without one."""
    lp = fn.hot_loop()
    if lp is None:
        return {}
    return {"head": lp.head, "tail": lp.tail, "nested": lp.nested, "loops": len(fn.loops()), **mix(lp.instructions)}
