"""The assembler's listing of a student object (artifacts.listing: `assembly.lst` in its object
folder, written by `-Wa,-aln=`: grader/cmake/TilelabConfine.cmake, tilelab_assembly_listing), read for
the assembly the student wrote: what no build of the grader can instrument or check (docs/integrity.md, "Nothing the
instrumentation cannot see").

The listing holds every line of the compiler's assembly output, numbered. The compiler marks each
`asm` it compiled -- at file scope, in a host function, in a naked function, made by a macro or by
`##` pasting, whatever its text (`.incbin`, `.section`, a function's machine code) -- with a line
of its own before the text: `#APP` (g++, nvcc's host compiler, clang in a function) or clang's
"Start of file scope inline assembly". The student's text cannot remove a line written before it;
it can stop the listing (`.nolist`), which leaves a gap in the numbers or an end short of the
compiler's last section (.note.GNU-stack), and both are read as assembly too. nvcc's own block (the embedded fatbinary,
data only) is told apart by its exact shape. Pure text processing: no object is opened here.
"""

from __future__ import annotations

import re

_STARTS = ("#APP", "# Start of file scope inline assembly")
_ENDS = ("#NO_APP", "# End of file scope inline assembly")
# The compiler's last section (g++: its last line, .note.GNU-stack,"",@progbits; clang quotes the
# name and adds its address-significance table and the line table's label after it).
_LAST = re.compile(r'^\s*\.section\s+"?\.note\.GNU-stack"?,')
# nvcc's fatbinary block in its host file (a .nv_fatbin section of .quad data, then .text).
_NVCC_FATBIN = re.compile(r'^\s*(\.section \.nv_fatbin, "a"|\.align 8|fatbinData:|\.quad 0x[0-9a-f]+(,\s*0x[0-9a-f]+)*|'
                          r'\.text|)\s*$')


def _lines(text: str) -> list[tuple[int, str]]:
    """(the assembly's line number, its text) of each listed line; a data continuation line (the
    bytes of a long .quad: a number and no text) adds nothing."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+) ", line)
        if m and "\t" in line:
            out.append((int(m.group(1)), line.split("\t", 1)[1]))
    return out


# What the C++ library's own headers put at file scope, line by line, taken out of a region before
# it is judged: libstdc++ 13 and later's <iostream> (`__asm (".globl _ZSt21ios_base_library_initv")`:
# a reference that links its streams' initialisation; g++ 13 on Ubuntu 24.04, g++ 14 on Debian 13).
# A line the student writes the same way does no more than that.
_LIBRARY_HEADERS = {".globl _ZSt21ios_base_library_initv"}


def _without_library_headers(region: list[str]) -> list[str]:
    return [r for r in region if r.strip() not in _LIBRARY_HEADERS]


def _finding(region: list[str]) -> str | None:
    """What a region shows of the student's assembly (anything but the library headers' lines and
    nvcc's fatbinary), or None."""
    rest = _without_library_headers(region)
    if len(rest) < len(region) and not any(r.strip() for r in rest):
        return None   # the library headers' lines alone (a region with no text listed is the student's)
    return None if _nvcc_fatbin(rest) else _shown(rest)


def _nvcc_fatbin(region: list[str]) -> bool:
    """Whether a region is nvcc's embedded fatbinary: its asm (data in .nv_fatbin, then .text), at
    the end of the file nvcc hands its host compiler, so that what follows it before #NO_APP is the
    compiler's own output (its data; a function starts with #NO_APP)."""
    text = [r.strip() for r in region if r.strip()]
    if not text or text[0] != '.section .nv_fatbin, "a"':
        return False
    for line in text[1:]:
        if not _NVCC_FATBIN.match(line):
            return False
        if line == ".text":
            return True
    return False


def _shown(region: list[str]) -> str:
    """A region's first three lines of the student's text (not the compiler's `# 12 "file" 1` line
    marker), joined by " / ": enough for the student to find the `asm` in the file."""
    text = [r.strip() for r in region if r.strip() and not re.match(r'^#\s*\d+\s+"', r.strip())]
    return " / ".join(text[:3]) or "(an asm whose text is not listed)"


def own_assembly(text: str) -> list[str]:
    """What of the student's own assembly the listing shows: for each #APP region, its first line of
    text (`.globl tl_load`); "the listing stops at line N" where the numbers leave a gap or end
    without the compiler's last section. Empty for a file with no `asm` of its own."""
    lines = _lines(text)
    found: list[str] = []
    region: list[str] | None = None
    expected = 1
    for number, src in lines:
        if number not in (expected, expected - 1):   # a continuation repeats its number
            found.append(f"the listing stops at line {expected - 1} (.nolist)")
            break
        expected = number + 1
        head = src.strip()
        if region is None:
            if head in _STARTS:
                region = []
            continue
        if head in _ENDS or head in _STARTS:
            found += filter(None, [_finding(region)])
            region = [] if head in _STARTS else None
            continue
        region.append(src)
    else:
        if region is not None:
            found += filter(None, [_finding(region)])
        if not any(_LAST.match(src) for _, src in lines):
            found.append(f"the listing stops at line {expected - 1} (.nolist)")
    return found


# A section the compiler declares executable (`.section name,"ax",...`): its functions' sections are
# .text and .text.<name> (.text.startup, a comdat's .text._Z...).
_CODE_SECTION = re.compile(r'^\s*\.(?:push)?section\s+"?([^",\s]+)"?\s*,\s*"([^"]*)"')


def foreign_code_sections(text: str) -> list[str]:
    """The executable sections of the listing not named .text or .text.*: a section the student
    named (the toolchain's data sections pass preprocessed.py's rule) made code by a function placed
    in it. Defence in depth: g++ refuses a byte array beside such a function (a section type
    conflict), and the rule refuses every other section a student names."""
    found = []
    for _, src in _lines(text):
        m = _CODE_SECTION.match(src)
        if m and "x" in m.group(2) and not re.match(r"\.text(\.|$)", m.group(1)) and m.group(1) not in found:
            found.append(m.group(1))
    return found
