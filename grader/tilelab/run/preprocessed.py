"""The compiler's preprocessed translation unit of a student object (artifacts.preprocessed: `<obj>.ii`
beside it, written by `-save-temps=obj` in the confined compile: grader/cmake/TilelabConfine.cmake,
tilelab_assembly_listing; on nvcc the host compiler's input, device code already cut out), read for
the strings g++ copies verbatim into its assembly output without the #APP line that marks an `asm`
(listing.py): an asm label (`f() __asm__("name")`, written at a definition and at every reference,
inside the calling function's code), and the names of the attributes section, alias, weakref, symver
and ifunc. A newline, `;` or `#` in such a string is assembly of the student's own that the listing
cannot tell from the compiler's; a section named `.text` makes a byte array code. docs/integrity.md,
"Nothing the instrumentation cannot see".

The rule reads every token of the unit, whoever wrote it, after the preprocessor: no macro, `##`,
string concatenation, raw string, `_Pragma` or attribute spelling (`__attribute__`, `[[gnu::...]]`,
`[[using gnu: ...]]`, `__section__`) hides a string from it, and a `#line` or a forged line marker
(`# 1 "/usr/include/stdio.h" 1 3`) changes only which line a finding names. What the system and
CUDA headers write passes because of what it is, not where it is: an asm label or alias target
must be a plain symbol name (glibc's `__asm__("" "__isoc99_fscanf")`: the allow-list then judges
the symbol), a section one of the toolchain's data sections (nvcc's fatbinary). `#ident` (and
`#sccs`, which the preprocessor writes as #ident) is refused outright. Pure text processing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ASM = {"asm", "__asm", "__asm__"}
# What may follow `asm` in a statement (never in a label): the listing judges those (#APP).
_STATEMENT_QUALIFIERS = {"volatile", "__volatile", "__volatile__", "inline", "__inline", "__inline__", "goto"}
# A token after which an `asm` begins a statement, not a declaration's label (libstdc++ 13's
# <iostream>: `__extension__ __asm (".globl ...")`), and the words before a statement's `(...)`.
_STATEMENT_STARTS = {None, ";", "{", "}", ":", "else", "do", "__extension__"}
_CONDITIONS = {"if", "while", "for", "switch", "constexpr"}
# Attributes whose string argument g++ writes into its assembly as it stands (names without __).
_VERBATIM_ATTRIBUTES = {"section", "alias", "weakref", "symver", "ifunc"}
# A symbol name as the assembler reads it in one token (symver's `name@VERSION`, `@@` too).
_PLAIN_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_.$@]*\Z")
# The sections the toolchain's own files name: data, never code. nvcc's host stub (its fatbinary,
# its module id); the emulator's device variables (tilelab_emu.h's TLEMU_DEVICE_VAR, which the
# rewriter puts on every __device__ variable: grader/emu/runtime/core.cpp protects that section).
# Any other section attribute is the student's.
_TOOLCHAIN_SECTIONS = {".nvFatBinSegment", "__nv_module_id", ".nv_fatbin", "__nv_relfatbin", "tlemu_device_vars"}

_TOKEN = re.compile(r"""
    (?P<directive>^[ \t]*\#[^\n]*)
  | (?P<space>[ \t\r\f\v]+|\\\n)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\ \t\n"]{0,16})\(.*?\)(?P=delim)")
  | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')
  | (?P<ident>(?:[A-Za-z_$]|[^\x00-\x7f]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})(?:[A-Za-z0-9_$]|[^\x00-\x7f]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|'[A-Za-z0-9_]|[A-Za-z0-9_.])*)
  | (?P<digraph><:(?!:[^:>])|:>|<%|%>)
  | (?P<punct>::|.)
""", re.VERBOSE | re.DOTALL | re.MULTILINE)
_DIGRAPHS = {"<:": "[", ":>": "]", "<%": "{", "%>": "}"}
# A line marker (`# 12 "file" 1 3`, `#line 12 "file"`): the next line's number and file.
_MARKER = re.compile(r'#\s*(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?')


@dataclass(frozen=True)
class Token:
    kind: str    # ident | string | raw | char | number | punct
    text: str
    file: str    # where the line markers say it is (for the message only: the rule reads every token)
    line: int


@dataclass(frozen=True)
class Verbatim:
    """One string the compiler would copy into its assembly that the rule refuses."""
    construct: str   # "asm label", "section attribute", "#ident", ...
    text: str        # the string as written in the unit (its literals side by side)
    file: str
    line: int

    def shown(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.file else f"line {self.line}"
        text = self.text.replace("\n", "\\n").replace("\t", "\\t")   # a raw string's own line ends: one line
        text = text if len(text) <= 60 else text[:57] + "..."
        return f"{self.construct} {text} at {where}"


def tokens(text: str) -> tuple[list[Token], list[Token]]:
    """The unit's tokens, and its directives other than line markers (`#pragma ...`, `#ident ...`:
    kind "directive", their whole line), each where the line markers put it."""
    out: list[Token] = []
    directives: list[Token] = []
    file, line = "", 1
    for m in _TOKEN.finditer(text):
        kind, value = m.lastgroup, m.group(0)
        if m.group("raw") is not None:
            kind = "raw"
        if kind == "directive":
            marker = _MARKER.match(value.strip())
            if marker:
                line = int(marker.group(1)) - 1   # the newline after it makes it N
                file = marker.group(2) if marker.group(2) is not None else file
            else:
                directives.append(Token(kind, value.strip(), file, line))
            continue
        if kind == "digraph":
            kind, value = "punct", _DIGRAPHS[value]
        if kind not in ("space", "newline", "comment"):
            out.append(Token(kind, value, file, line))
        line += value.count("\n")
    return out, directives


def _closing(toks: list[Token], i: int) -> int:
    """The index of the bracket that closes toks[i] (a `(` or `[`), or len(toks)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = []
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind != "punct":
            continue
        if t in pairs:
            depth.append(pairs[t])
        elif depth and t == depth[-1]:
            depth.pop()
            if not depth:
                return j
    return len(toks)


def _literal(t: Token) -> str | None:
    """The characters of a plain narrow string literal as written, or None for anything else (a
    prefix, a raw string: the rule accepts only names, which need neither)."""
    return t.text[1:-1] if t.kind == "string" and t.text.startswith('"') else None


def _strings(toks: list[Token]) -> tuple[bool, str]:
    """Whether toks are string literals only, and their text joined as written."""
    return all(t.kind in ("string", "raw") for t in toks) and bool(toks), "".join(t.text for t in toks)


def _plain(toks: list[Token]) -> bool:
    """Whether toks are narrow string literals (no prefix, no raw string) whose joined characters
    name one symbol: nothing to escape, no space, no separator of the assembler's."""
    parts = [_literal(t) for t in toks]
    return all(p is not None for p in parts) and bool(_PLAIN_NAME.match("".join(parts)))


def _attribute_items(toks: list[Token], start: int, end: int) -> list[tuple[str, list[Token], Token]]:
    """(name without namespace or __, its argument tokens, the name's token) of each attribute in
    toks[start:end] (the inside of `__attribute__((...))` or `[[...]]`)."""
    items = []
    i = start
    while i < end:
        t = toks[i]
        if t.kind == "ident" and i + 1 < end and toks[i + 1].text == "(":
            close = _closing(toks, i + 1)
            items.append((t.text.strip("_") if t.text.startswith("__") else t.text, toks[i + 1:close][1:], t))
            i = close + 1
            continue
        i += 1
    return items


def _attribute_lists(toks: list[Token]) -> list[tuple[int, int]]:
    """(start, end) of the inside of every attribute specifier."""
    spans = []
    for i, t in enumerate(toks):
        if t.kind == "ident" and t.text in ("__attribute__", "__attribute") and i + 2 < len(toks) \
                and toks[i + 1].text == "(" and toks[i + 2].text == "(":
            spans.append((i + 3, _closing(toks, i + 2)))
        elif t.text == "[" and i + 1 < len(toks) and toks[i + 1].text == "[" and t.kind == "punct":
            spans.append((i + 2, _closing(toks, i + 1)))
    return spans


def _opening(toks: list[Token], i: int) -> int:
    """The index of the `(` that toks[i] (a `)`) closes, or -1."""
    depth = 0
    for j in range(i, -1, -1):
        if toks[j].kind == "punct" and toks[j].text == ")":
            depth += 1
        elif toks[j].kind == "punct" and toks[j].text == "(":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _begins_statement(toks: list[Token], i: int) -> bool:
    """Whether the `asm` at toks[i] begins a statement (the listing's #APP line marks its text)
    rather than ending a declarator (a label: after its name, `)`, `]`, `noexcept(...)`)."""
    if i == 0 or toks[i - 1].text in _STATEMENT_STARTS and toks[i - 1].kind != "string":
        return True
    if toks[i - 1].kind == "punct" and toks[i - 1].text == ")":
        j = _opening(toks, i - 1)
        return j > 0 and toks[j - 1].text in _CONDITIONS
    return False


def _asm_labels(toks: list[Token]) -> list[Verbatim]:
    found = []
    for i, t in enumerate(toks):
        if t.kind != "ident" or t.text not in _ASM or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue   # a statement with qualifiers (`asm volatile (`), or not an asm
        if _begins_statement(toks, i):
            continue
        inside = toks[i + 2:_closing(toks, i + 1)]
        only_strings, text = _strings(inside)
        if only_strings and not _plain(inside):
            found.append(Verbatim("asm label", text, t.file, t.line))
    return found


def _attributes(toks: list[Token]) -> list[Verbatim]:
    found = []
    for start, end in _attribute_lists(toks):
        for name, args, at in _attribute_items(toks, start, end):
            if name not in _VERBATIM_ATTRIBUTES:
                continue
            strings = [a for a in args if a.kind in ("string", "raw")]
            text = "".join(a.text for a in args) or "()"
            if name == "section":
                parts = [_literal(a) for a in strings]
                ok = len(strings) == len(args) and all(p is not None for p in parts) and "".join(parts) in _TOOLCHAIN_SECTIONS
            else:
                ok = len(strings) == len(args) and _plain(strings)
            if not ok:
                found.append(Verbatim(f"{name} attribute", text, at.file, at.line))
    return found


def verbatim_strings(text: str) -> list[Verbatim]:
    """What of the unit g++ would copy into its assembly unmarked and the rule refuses: asm labels
    and alias/weakref/symver/ifunc targets that are not a plain symbol name, section attributes
    outside the toolchain's sections, #ident. Empty for honest code and every header the kit allows."""
    toks, directives = tokens(text)
    found = _asm_labels(toks) + _attributes(toks)
    for d in directives:
        if re.match(r"#\s*(?:ident|sccs|pragma\s+(?:\w+\s+)?ident)\b", d.text):
            found.append(Verbatim("#ident", d.text, d.file, d.line))
    return sorted(found, key=lambda v: v.line)
