"""What ptxas gave each kernel, as text to read: its registers, spills, stack (the local memory
cudaFuncGetAttributes reports), static shared memory and barriers, from ptxas's report
(`nvcc -Xptxas -v`), and the most threads a block may have (`__launch_bounds__`: EIATTR_MAX_THREADS in
the cubin's .nv.info, as `cuobjdump -elf` prints it). Pure text processing, tested on checked-in
text."""

from __future__ import annotations

import re

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_BARRIERS = re.compile(r"used (\d+) barriers")


def ptxas_report(text: str) -> dict[str, dict]:
    """Per kernel (its mangled name): registers, spill_store_bytes, spill_load_bytes,
    stack_frame_bytes, static_shared_bytes, barriers, arch."""
    out: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = out.setdefault(m.group(1), {"arch": m.group(2)})
            continue
        m = _PROPERTIES.search(line)
        if m:
            current = out.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        m = _FRAME.search(line)
        if m:
            current.update(stack_frame_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)),
                           spill_load_bytes=int(m.group(3)))
        m = _USED.search(line)
        if m:
            current["registers"] = int(m.group(1))
            s, b = _SMEM.search(line), _BARRIERS.search(line)
            current["static_shared_bytes"] = int(s.group(1)) if s else 0
            current["barriers"] = int(b.group(1)) if b else 0
    return out


def max_threads(elf_text: str) -> dict[str, int]:
    """Per kernel with __launch_bounds__: the most threads a block may have (x * y * z)."""
    out: dict[str, int] = {}
    section, attribute = None, None
    for line in elf_text.splitlines():
        s = line.strip()
        if s.startswith(".nv.info."):
            section = s[len(".nv.info."):]
        elif s.startswith("Attribute:"):
            attribute = s.split(None, 1)[1].strip() if len(s.split(None, 1)) > 1 else None
        elif s.startswith("Value:") and attribute == "EIATTR_MAX_THREADS" and section:
            dims = [int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]+", s)]
            if dims:
                n = 1
                for d in dims:
                    n *= d
                out[section] = n
            attribute = None
    return out
