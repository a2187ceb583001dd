"""The device half of a CUDA source, as NVRTC compiles it.

NVRTC is CUDA's front end and optimiser without nvcc's driver: it refuses host code ("host functions
are not allowed in JIT mode") and host headers. NVIDIA ships CUDA 12's front end on the package
index only as NVRTC (nvidia-cuda-nvrtc-cu12; the -cu12 nvcc wheel holds ptxas and libnvvm, no nvcc
or cudafe++), so to compile a kernel file with CUDA 12 without a CUDA 12 toolkit this module keeps
what nvcc's own split would hand to the device compiler and drops the rest:

  kept     preprocessor directives (but #include of a header NVRTC cannot supply), type
           definitions without host member functions, `using`, typedefs, constants (const,
           constexpr, enum), static_assert, namespaces (recursively), and every declaration that
           names __global__, __device__, __constant__ or __shared__ (templates included);
  dropped  functions and variables without a device execution space (launch_matmul, helpers that
           call the runtime), and types whose member functions are host-only (RAII wrappers).

A template kernel has no code until it is instantiated, and its instantiations are in the host
code that launches it (`K<32><<<...>>>`): `instantiations()` finds them in what was dropped, for
nvrtcAddNameExpression. Blank lines stand where text was dropped, so NVRTC's line numbers are the
file's. This is a reader of the usual shapes of a kernel file, not a C++ parser: what it cannot
place it keeps, so NVRTC's error names it.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

# Headers NVRTC can compile (with CUDA's include folder on its path: device-only or guarded for it),
# and <cstdint>, which the caller supplies (STDINT).
DEVICE_HEADERS = re.compile(r"^(cstdint|stdint\.h|mma\.h|cuda_fp16\.h|cuda_bf16\.h|cuda_pipeline\w*\.h|cuda_awbarrier\w*\.h"
                            r"|cooperative_groups\.h|cooperative_groups/.*|cuda/.*|crt/.*|tilelab/mma_ptx\.cuh)$")
# A namespace-scope `const` of one of these types is a constant device code may use; of any other
# (std::string, a host table) it is host data.
ARITHMETIC = re.compile(r"\s*(static\s+|inline\s+)*const\s+(unsigned\s+|signed\s+)?(int|long|short|char|bool|float|double"
                        r"|size_t|std::size_t|u?int\d+_t|std::u?int\d+_t)\b")
DEVICE_WORDS = re.compile(r"\b(__global__|__device__|__constant__|__shared__)\b")


# <cstdint> for NVRTC, from CUDA's libcu++ (NVRTC has no C++ standard library of its own).
_INT = [f"{u}int{b}_t" for u in ("", "u") for b in (8, 16, 32, 64)] + ["intptr_t", "uintptr_t"]
STDINT = ("#pragma once\n#include <cuda/std/cstdint>\n"
          + "".join(f"using cuda::std::{t};\n" for t in _INT)
          + "namespace std {\n" + "".join(f"using cuda::std::{t};\n" for t in _INT) + "}\n")
HEADERS = {"cstdint": STDINT, "stdint.h": STDINT}
# A `std::` name NVRTC does not have (all but <cstdint>'s, which STDINT supplies): a `using` or
# typedef of one is host code (`using DeviceArray = std::unique_ptr<float, CudaFree>;`).
_HOST_STD = re.compile(r"\bstd::(?!(?:" + "|".join(_INT) + r"|size_t)\b)\w+")


@dataclass
class Split:
    device: str                       # the source NVRTC compiles (same line count as the input)
    dropped: list[str] = field(default_factory=list)   # the host declarations left out, in order
    kernel_templates: set[str] = field(default_factory=set)


def _blank(text: str) -> str:
    """Comments and the insides of string and character literals as spaces (newlines kept), so
    braces and semicolons in them do not count."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (text[j - 1] if j - i >= 2 else "")); i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def _directives(masked: str) -> list[tuple[int, int]]:
    """[start, end) of each preprocessor directive (with its continuation lines)."""
    spans, pos = [], 0
    for line in masked.splitlines(keepends=True):
        end = pos + len(line)
        if spans and spans[-1][1] == pos and masked[spans[-1][0]:pos].rstrip("\r\n").endswith("\\"):
            spans[-1] = (spans[-1][0], end)
        elif line.lstrip().startswith("#"):
            spans.append((pos, end))
        pos = end
    return spans


def _head(item: str) -> str:
    """The part of a top-level item before its first body brace (or all of it)."""
    depth = 0
    for i, c in enumerate(item):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth == 0:
            return item[:i]
    return item


def _is_function(head: str) -> bool:
    h = re.sub(r"^\s*template\s*<.*?>\s*", "", head, flags=re.S) if head.lstrip().startswith("template") else head
    h = re.sub(r"\[\[.*?\]\]|__attribute__\s*\(\(.*?\)\)|__launch_bounds__\s*\(.*?\)", " ", h, flags=re.S)
    if re.match(r"\s*(static_assert|typedef|using|enum|struct|class|union)\b", h):
        return False
    return "(" in h and "=" not in h.split("(")[0]


class _Splitter:
    def __init__(self, text: str):
        self.text, self.masked = text, _blank(text)
        self.keep = list(text)
        self.split = Split(device="")
        self.namespace: list[str] = []

    def drop(self, a: int, b: int) -> None:
        self.split.dropped.append(self.text[a:b])
        for i in range(a, b):
            if self.keep[i] not in "\n":
                self.keep[i] = " "

    def run(self) -> Split:
        directives = _directives(self.masked)
        for a, b in directives:
            m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', self.text[a:b])
            if m and not DEVICE_HEADERS.match(m.group(1)):
                self.drop(a, b)
        # Directives take no part in the brace structure: scan the text with them blanked.
        scan = list(self.masked)
        for a, b in directives:
            for i in range(a, b):
                if scan[i] != "\n":
                    scan[i] = " "
        self.scan = "".join(scan)
        self.scope(0, len(self.scan))
        self.split.device = "".join(self.keep)
        return self.split

    def scope(self, start: int, end: int) -> None:
        """Classify each item of a namespace-level scope [start, end)."""
        i = start
        while i < end:
            while i < end and self.scan[i].isspace():
                i += 1
            if i >= end:
                break
            j, depth, body = i, 0, None
            while j < end:
                c = self.scan[j]
                if c in "([{":
                    if c == "{" and depth == 0 and body is None:
                        body = j
                    depth += 1
                elif c in ")]}":
                    depth -= 1
                    if c == "}" and depth == 0:
                        k = j + 1
                        while k < end and self.scan[k].isspace():
                            k += 1
                        head = self.scan[i:body]
                        # A function or namespace body ends the item; a type's body ends at its ';'.
                        if k < end and self.scan[k] == ";" and not _is_function(head):
                            j = k
                        break
                elif c == ";" and depth == 0:
                    break
                j += 1
            self.item(i, min(j + 1, end), body)
            i = j + 1

    def item(self, a: int, b: int, body: int | None) -> None:
        item = self.scan[a:b]
        head = self.scan[a:body] if body is not None else item
        if re.match(r"\s*(namespace\b[^{]*|extern\s+\"\s*\")\s*$", head) and body is not None:
            named = re.match(r"\s*namespace\s+([\w:]+)", head)
            self.namespace.append(named.group(1) if named else "")
            self.scope(body + 1, b - 1)            # namespace N { ... } / extern "C" { ... }
            self.namespace.pop()
            return
        if DEVICE_WORDS.search(head):
            if body is not None and re.search(r"\b__global__\b", head) and head.lstrip().startswith("template"):
                bare = re.sub(r"__launch_bounds__\s*\(.*?\)|__attribute__\s*\(\(.*?\)\)", " ", head, flags=re.S)
                name = re.search(r"(\w+)\s*\(", bare)
                if name:
                    self.split.kernel_templates.add("::".join([*filter(None, self.namespace), name.group(1)]))
            return
        if re.match(r"\s*(template\s*<.*?>\s*)?(struct|class|union)\b", head, flags=re.S) and body is not None:
            if self.host_members(body, b):
                self.drop(a, b)
            return
        if _is_function(head):
            self.drop(a, b)
            return
        if re.match(r"\s*(typedef|using)\b", head) and _HOST_STD.search(head):
            self.drop(a, b)                        # a name for a host library type (std::unique_ptr)
            return
        if re.match(r"\s*(static_assert|typedef|using|enum|template|namespace)\b", head):
            return
        declarator = head.split("=")[0]
        if re.search(r"\bconstexpr\b", head) or (ARITHMETIC.match(head) and "*" not in declarator):
            return                                 # a constant device code may read
        self.drop(a, b)                            # a host variable (std::string, a table, a stream...)

    def host_members(self, body: int, end: int) -> bool:
        """Whether a type's body defines or declares a member function with no device space."""
        inner = self.scan[body + 1:end]
        depth, start = 0, 0
        for i, c in enumerate(inner):
            if c in "({[":
                if c == "{" and depth == 0:
                    decl = inner[start:i]
                    if "(" in decl and not DEVICE_WORDS.search(decl) and not re.search(r"=\s*$", decl):
                        return True
                depth += 1
            elif c in ")}]":
                depth -= 1
                if depth == 0 and c == "}":
                    start = i + 1
            elif c in ";:" and depth == 0:
                decl = inner[start:i]
                if c == ";" and "(" in decl and not DEVICE_WORDS.search(decl) and "=" not in decl.split("(")[0]:
                    return True
                start = i + 1
        return False


def split(text: str) -> Split:
    # A UTF-8 byte order mark, which g++ (nvcc's preprocessor) skips and NVRTC does not.
    return _Splitter(text[1:] if text.startswith("\ufeff") else text).run()


def instantiations(s: Split) -> list[str]:
    """`&K<args>` for each instantiation of a template kernel K that the dropped host code names.
    A host constant in the arguments (`constexpr int kBlock = 16; K<kBlock><<<...>>>`) is replaced
    by its value, since the name expression is compiled where the host function's locals are not."""
    found: list[str] = []
    host = "\n".join(_blank(d) for d in s.dropped)
    consts = dict(re.findall(r"\b(?:constexpr|const)\s+[\w:]+\s+(\w+)\s*=\s*([^;{}]+);", host))
    # A host function's `using cfg::kTile;`: the name qualified, as the global scope must see it.
    usings = {n: q for q, n in re.findall(r"\busing\s+((?:\w+::)+(\w+))\s*;", host) if n not in consts}
    host_params = {n: t for t, n in re.findall(r"template\s*<[^<>]*?\b(bool|int|unsigned|size_t)\s+(\w+)", host)}
    for qualified in s.kernel_templates:
        name = qualified.rsplit("::", 1)[-1]
        for m in re.finditer(rf"\b{re.escape(name)}\s*<", host):
            depth, j = 1, m.end()
            while j < len(host) and depth:
                depth += {"<": 1, ">": -1}.get(host[j], 0)
                j += 1
            if depth:
                continue
            args = host[m.end():j - 1].strip()
            for _ in range(3):
                args = re.sub(r"\b\w+\b", lambda w: f"({consts[w.group()].strip()})" if w.group() in consts else w.group(), args)
            args = re.sub(r"(?<!::)\b\w+\b", lambda w: usings.get(w.group(), w.group()), args)
            # Launched from a host function template with its own parameter (`template <bool Vec>
            # void launch(...) { K<Vec><<<...>>> }`): a bool one is both its values; any other
            # cannot be named here, and the kernel is left to the instantiations that can.
            used = [w for w in re.findall(r"\b\w+\b", args) if w in host_params]
            if any(host_params[w] != "bool" for w in used):
                continue
            for values in itertools.product(("true", "false"), repeat=len(used)):
                expr = "&" + qualified + "<" + re.sub(r"\b\w+\b", lambda w: dict(zip(used, values)).get(w.group(), w.group()), args) + ">"
                if expr not in found:
                    found.append(expr)
    return found
