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
`#sccs`, which the preprocessor writes as #ident) and clang's `#pragma clang section` are refused
outright. Pure text processing: the literals, comments and directives are found in one pass and
blanked, and the few places that matter (an `asm`, an attribute specifier) are then read token by
token (a unit is 1 to 3 MB).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_ASM = {"asm", "__asm", "__asm__"}
# What may follow `asm` in a statement (never in a label): the listing judges those (#APP).
_STATEMENT_QUALIFIERS = {"volatile", "__volatile", "__volatile__", "inline", "__inline", "__inline__", "goto"}
# The words after which an `asm` begins a statement, not a declaration's label (libstdc++ 13's
# <iostream>: `__extension__ __asm (".globl ...")`), and the words before a statement's `(...)`.
_STATEMENT_WORDS = {"else", "do", "__extension__"}
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

# What is blanked before the unit is searched: directives (a line starting with #), literals (a
# prefix only where no identifier runs into it: `fooR"x"` is an identifier and a plain string; a
# quote after a digit is a digit separator, `1'000`), comments (-save-temps keeps none).
_BLANKED = re.compile(r"""
    (?=[\#"'/uULR]|^)   # a fast refusal of every other position
    (?:
      (?P<directive>^[ \t]*\#[^\n]*)
    | (?P<raw>(?<![\w$])(?:u8|u|U|L)?R"(?P<delim>[^()\\ \t\n"]{0,16})\(.*?\)(?P=delim)")
    | (?P<string>(?:(?<![\w$])(?:u8|u|U|L))?"(?:[^"\\\n]|\\.)*")
    | (?P<char>(?:(?<![\w$])(?:u8|u|U|L))?(?<![\w$])'(?:[^'\\\n]|\\.)*')
    | (?P<comment>//[^\n]*|/\*.*?\*/))
""", re.VERBOSE | re.DOTALL | re.MULTILINE)
# Where the rule looks, in the blanked text: an asm, a GNU attribute, a C++11 attribute specifier
# (`[[`, `[ [`, digraphs `<:<:`; not `<::`, which is `<` and `::`).
_HIT = re.compile(r"(?=[a_\[<])(?:(?<![\w$])(?P<asm>asm|__asm|__asm__)(?![\w$])|(?<![\w$])(?P<gnu>__attribute(?:__)?)(?![\w$])"
                  r"|(?P<cxx11>(?:\[|<:(?!:[^:>]))\s*(?:\[|<:(?!:[^:>]))))")
# One token of the blanked text (a literal is its quotes around blanks).
_LOCAL = re.compile(r"""\s*(?:(?P<ident>[\w$]+)|(?P<string>"[^"]*")|(?P<char>'[^']*')|(?P<digraph><:(?!:[^:>])|:>|<%|%>)
                        |(?P<punct>::|\S))""", re.VERBOSE)
_DIGRAPHS = {"<:": "[", ":>": "]", "<%": "{", "%>": "}"}
# A line marker (`# 12 "file" 1 3`, `#line 12 "file"`): the next line's number and file.
_MARKER = re.compile(r'#\s*(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?')
_IDENT = re.compile(r"#\s*(?:ident|sccs|pragma\s+(?:\w+\s+)?ident)\b")
# clang's `#pragma clang section text="..."` names the sections of what follows (the emu-clang build).
_SECTION_PRAGMA = re.compile(r"#\s*pragma\s+(?:\w+\s+)?section\b")


@dataclass(frozen=True)
class Token:
    kind: str    # ident | string | raw | char | punct (a digraph as the bracket it spells)
    text: str    # as written (a literal with its prefix)
    pos: int     # where it starts in the unit


@dataclass(frozen=True)
class Verbatim:
    """One string the compiler would copy into its assembly that the rule refuses."""
    construct: str   # "asm label", "section attribute", "#ident", ...
    text: str        # the string as written in the unit (its literals side by side)
    file: str        # where the line markers say it is (for the message only: the rule reads every token)
    line: int

    def shown(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.file else f"line {self.line}"
        text = self.text.replace("\n", "\\n").replace("\t", "\\t")   # a raw string's own line ends: one line
        text = text if len(text) <= 60 else text[:57] + "..."
        return f"{self.construct} {text} at {where}"


class _Unit:
    """A preprocessed unit, blanked: its literals, comments and directives replaced by spaces of the
    same length (a literal keeps its quotes), so that a search for a word or a bracket finds code
    only, at the positions of the original text."""

    def __init__(self, text: str):
        self.text = text
        parts, last = [], 0
        self.directives: list[tuple[int, str]] = []
        self.markers: list[tuple[int, int, str]] = []   # (position of the next line, its number, file)
        file = ""
        for m in _BLANKED.finditer(text):
            kind, value = m.lastgroup, m.group(0)
            if kind == "delim":
                kind = "raw"
            parts.append(text[last:m.start()])
            blank = " " * len(value) if "\n" not in value else re.sub(r"[^\n]", " ", value)
            parts.append(f'"{blank[1:-1]}"' if kind in ("raw", "string") else f"'{blank[1:-1]}'" if kind == "char" else blank)
            last = m.end()
            if kind == "directive":
                marker = _MARKER.match(value.strip())
                if marker:
                    file = marker.group(2) if marker.group(2) is not None else file
                    self.markers.append((m.end() + 1, int(marker.group(1)), file))
                else:
                    self.directives.append((m.start(), value.strip()))
        parts.append(text[last:])
        self.blanked = "".join(parts)
        self._marker_pos = [p for p, _, _ in self.markers]

    def where(self, pos: int) -> tuple[str, int]:
        """The file and line the line markers give the position."""
        i = bisect.bisect_right(self._marker_pos, pos) - 1
        if i < 0:
            return "", self.text.count("\n", 0, pos) + 1
        start, line, file = self.markers[i]
        return file, line + self.text.count("\n", start, pos)

    def tokens(self, pos: int, stop: str | None = None) -> list[Token]:
        """The tokens from pos: up to the bracket that closes the first one opened (stop: `(` or `[`),
        or the next token alone (stop None)."""
        out, depth = [], 0
        while True:
            m = _LOCAL.match(self.blanked, pos)
            if not m:
                return out
            kind, start, pos = m.lastgroup, m.start(m.lastgroup), m.end()
            text = self.text[start:pos]
            if kind == "digraph":
                kind, text = "punct", _DIGRAPHS[text]
            elif kind == "string" and re.match(r'(?:u8|u|U|L)?R"', text):
                kind = "raw"
            out.append(Token(kind, text, start))
            if stop is None:
                return out
            if kind == "punct" and text in "([{":
                depth += 1
            elif kind == "punct" and text in ")]}":
                depth -= 1
                if depth <= 0:
                    return out

    def previous(self, pos: int) -> tuple[str, int]:
        """The token before pos in the blanked text (its text, its start); ("", -1) at the start."""
        j = pos
        while j > 0 and self.blanked[j - 1].isspace():
            j -= 1
        if j == 0:
            return "", -1
        m = re.search(r"[\w$]+\Z", self.blanked[max(0, j - 200):j])
        if m:
            return m.group(0), j - len(m.group(0))
        two = self.blanked[j - 2:j]
        if two in ("%>", ":>", "::"):
            return _DIGRAPHS.get(two, two), j - 2
        return self.blanked[j - 1], j - 1

    def opening(self, pos: int) -> int:
        """The position of the `(` that the `)` at pos closes, or -1 (literals are blanks here)."""
        depth = 0
        for j in range(pos, -1, -1):
            c = self.blanked[j]
            if c == ")":
                depth += 1
            elif c == "(":
                depth -= 1
                if depth == 0:
                    return j
        return -1


def code_only(text: str) -> str:
    """The unit with its literals, comments and directives blanked (vector_builtins.py reads its
    identifiers): what the compiler compiles as code, at the positions of the original text."""
    return _Unit(text).blanked


def _literal(t: Token) -> str | None:
    """The characters of a plain narrow string literal as written, or None for anything else (a
    prefix, a raw string: the rule accepts only names, which need neither)."""
    return t.text[1:-1] if t.kind == "string" and t.text.startswith('"') else None


def _plain(toks: list[Token]) -> bool:
    """Whether toks are narrow string literals (no prefix, no raw string) whose joined characters
    name one symbol: nothing to escape, no space, no separator of the assembler's."""
    parts = [_literal(t) for t in toks]
    return bool(toks) and all(p is not None for p in parts) and bool(_PLAIN_NAME.match("".join(parts)))


def _begins_statement(unit: _Unit, pos: int) -> bool:
    """Whether the `asm` at pos begins a statement (the listing's #APP line marks its text) rather
    than ending a declarator (a label: after its name, `)`, `]`, `noexcept(...)`)."""
    before, at = unit.previous(pos)
    if at < 0 or before in (";", "{", "}", ":") or before in _STATEMENT_WORDS:
        return True
    if before == ")":
        j = unit.opening(at)
        return j > 0 and unit.previous(j)[0] in _CONDITIONS
    return False


def _asm_label(unit: _Unit, pos: int, after: int) -> Verbatim | None:
    """The label of the `asm` at pos (its word ends at after), or None: a statement, or a plain name."""
    toks = unit.tokens(after, "(")
    if not toks or toks[0].text != "(" or _begins_statement(unit, pos):
        return None   # a statement, with qualifiers (`asm volatile (`) or after `;`, `{`, `if (...)`
    inside = toks[1:-1]
    if all(t.kind in ("string", "raw") for t in inside) and inside and not _plain(inside):
        return Verbatim("asm label", "".join(t.text for t in inside), *unit.where(pos))
    return None


def _attribute_items(toks: list[Token]) -> list[tuple[str, list[Token], Token]]:
    """(name without namespace or __, its argument tokens, the name's token) of each attribute in
    toks (the inside of `__attribute__((...))` or `[[...]]`)."""
    items, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "ident" and i + 1 < len(toks) and toks[i + 1].text == "(":
            depth, j = 0, i + 1
            for j in range(i + 1, len(toks)):
                depth += {"(": 1, ")": -1}.get(toks[j].text, 0) if toks[j].kind == "punct" else 0
                if depth == 0:
                    break
            name = t.text[2:-2] if t.text.startswith("__") and t.text.endswith("__") else t.text
            items.append((name, toks[i + 2:j], t))
            i = j + 1
            continue
        i += 1
    return items


def _attributes(unit: _Unit, m: re.Match) -> list[Verbatim]:
    """The refused strings of one attribute specifier: `[[...]]` at the match, `((...))` after it."""
    toks = unit.tokens(m.start(), "[") if m.lastgroup == "cxx11" else unit.tokens(m.end(), "(")
    if len(toks) < 4 or toks[1].text not in "([":
        return []
    inside = toks[2:-2]
    found = []
    for name, args, at in _attribute_items(inside):
        if name not in _VERBATIM_ATTRIBUTES:
            continue
        strings = [a for a in args if a.kind in ("string", "raw")]
        if name == "section":
            parts = [_literal(a) for a in strings]
            ok = len(strings) == len(args) and None not in parts and "".join(parts) in _TOOLCHAIN_SECTIONS
        else:
            ok = len(strings) == len(args) and _plain(strings)
        if not ok:
            found.append(Verbatim(f"{name} attribute", "".join(a.text for a in args) or "()", *unit.where(at.pos)))
    return found


def verbatim_strings(text: str) -> list[Verbatim]:
    """What of the unit g++ would copy into its assembly unmarked and the rule refuses: asm labels
    and alias/weakref/symver/ifunc targets that are not a plain symbol name, section attributes
    outside the toolchain's sections, #ident. Empty for honest code and every header the kit allows."""
    unit = _Unit(text)
    found: list[Verbatim] = []
    for m in _HIT.finditer(unit.blanked):
        if m.lastgroup == "asm":
            found += filter(None, [_asm_label(unit, m.start(), m.end())])
        else:
            found += _attributes(unit, m)
    for pos, directive in unit.directives:
        if _IDENT.match(directive):
            found.append(Verbatim("#ident", directive, *unit.where(pos)))
        elif _SECTION_PRAGMA.match(directive):
            found.append(Verbatim("section pragma", directive, *unit.where(pos)))
    return sorted(found, key=lambda v: v.line)
