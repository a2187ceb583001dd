"""The allow-list's policy, grader/allowlist.toml: its groups as read, and the rules that decide on
one name of one kind of object (may it be referenced? may it be defined? is it library code?).
Decides on names only: reading them from an object is symbols.py's, the scan refusal.py's, wording
its findings forbidden.py's."""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from ..specs.compat import tomllib
from .symbols import BUILD_KIND, EMU_ASAN, EMU_KINDS, EMU_RACE, GPU, KINDS, WEAK, Symbol, strip_params

ALLOWLIST = Path(__file__).resolve().parents[2] / "allowlist.toml"


@dataclass(frozen=True)
class Group:
    section: str                 # allow | refuse | reserved | define-ok | library-code
    name: str                    # e.g. "allow.libm", "emulator.allow.asan"
    kinds: tuple[str, ...]       # object kinds it applies to
    reason: str
    advice: str = ""
    what: str = ""
    patterns: tuple[str, ...] = ()
    match_symbol: bool = False   # match the raw linker symbol, not the demangled name
    strong_only: bool = False
    weak_only: bool = False

    @functools.cached_property
    def _regex(self) -> re.Pattern:
        return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in self.patterns) or r"(?!)")

    def matches(self, name: str) -> bool:
        return bool(self._regex.match(name))

    @functools.cached_property
    def exact(self) -> frozenset[str]:
        return frozenset(p for p in self.patterns if not any(c in p for c in "*?["))


@dataclass(frozen=True)
class Policy:
    default_advice: str
    groups: tuple[Group, ...]
    libraries: tuple[str, ...]
    static_libraries: tuple[str, ...]

    def of(self, section: str, kind: str | None = None) -> list[Group]:
        key = (section, kind)
        if key not in self._of:
            self._of[key] = [g for g in self.groups if g.section == section and (kind is None or kind in g.kinds)]
        return self._of[key]

    @functools.cached_property
    def _of(self) -> dict:
        return {}

    @functools.cached_property
    def referenced_exactly(self) -> set[str]:
        """Exact names of allowed references: functions of others, by construction."""
        return set().union(*(g.exact for g in self.of("allow")))


def _kinds(scope: str, builds: list[str] | None) -> tuple[str, ...]:
    if scope == "gpu":
        return (GPU,)
    if scope == "emulator":
        return tuple(BUILD_KIND[b] for b in builds) if builds else EMU_KINDS
    return KINDS


def _groups(doc: dict) -> list[Group]:
    out = []
    for scope, body in (("all", doc), ("gpu", doc.get("gpu", {})), ("emulator", doc.get("emulator", {}))):
        for section, key in (("allow", "allow"), ("refuse", "refuse")):
            for name, g in body.get(key, {}).items():
                out.append(Group(section, f"{'' if scope == 'all' else scope + '.'}{key}.{name}",
                                 _kinds(scope, g.get("builds")), g["reason"], g.get("advice", ""), g.get("what", ""),
                                 tuple(g["names"]), g.get("match") == "symbol"))
        define = body.get("define", {})
        prefix = "" if scope == "all" else scope + "."
        for name, g in define.items():
            if not isinstance(g, dict) or name == "reserved":
                continue
            section = "library-code" if name == "library_code" else "define-ok"
            out.append(Group(section, f"{prefix}define.{name}", _kinds(scope, g.get("builds")), g["reason"],
                             g.get("advice", ""), g.get("what", ""), tuple(g["names"]), g.get("match") == "symbol",
                             g.get("strong_only", False), g.get("weak_only", False)))
        for name, g in define.get("reserved", {}).items():
            out.append(Group("reserved", f"{prefix}define.reserved.{name}", _kinds(scope, g.get("builds")),
                             g["reason"], g.get("advice", ""), g["what"], tuple(g["names"]),
                             g.get("match") == "symbol", g.get("strong_only", False)))
    return out


@functools.cache
def policy(path: Path = ALLOWLIST) -> Policy:
    doc = tomllib.loads(Path(path).read_text())
    d = doc.get("define", {})
    return Policy(doc["default_advice"], tuple(_groups(doc)), tuple(d.get("libraries", [])),
                  tuple(d.get("static_libraries", [])))


def render_markdown(path: Path = ALLOWLIST) -> str:
    """The list's groups as the markdown table docs/integrity.md holds between its allowlist
    markers (docs/integrity.md gives the one-liner that rewrites them)."""
    what = {"allow": "may be called", "refuse": "may not be called", "reserved": "may not be defined",
            "library-code": "may not be defined", "define-ok": "may be defined"}
    where = {KINDS: "both", (GPU,): "GPU", EMU_KINDS: "emulator", (EMU_ASAN,): "emulator (asan build)",
             (EMU_RACE,): "emulator (race build)"}
    rows = ["| group | objects | rule | why | instead |", "|---|---|---|---|---|"]
    for g in policy(path).groups:
        if g.section not in what:
            continue
        cell = lambda s: s.replace("|", "\\|")  # noqa: E731
        instead = g.advice or ("rename it or make it static" if g.section == "reserved" else "")
        rows.append(f"| `{g.name}` | {where.get(g.kinds, ', '.join(g.kinds))} | {what[g.section]} | "
                    f"{cell(g.reason)} | {cell(instead)} |")
    return "\n".join(rows) + "\n"


def check_reference(key: str, kind: str = GPU, pol: Policy | None = None) -> tuple[str, str] | None:
    """(group, advice) when the object may not reference `key`; None when allowed."""
    pol = pol or policy()
    allowed = pol.of("allow", kind)
    if any(key in g.exact for g in allowed):   # an exact entry wins over a refused glob (__libc_*)
        return None
    for g in pol.of("refuse", kind):
        if g.matches(key):
            return g.name, g.advice
    if any(g.matches(key) for g in allowed):
        return None
    return "", pol.default_advice


def check_definition(sym: Symbol, kind: str = GPU, pol: Policy | None = None,
                     owned: dict[str, tuple[str, bool]] | None = None) -> tuple[str, str] | None:
    """(group, "what it is: what to do") when the object may not define `sym`; None when it may."""
    pol = pol or policy()
    weak = sym.type in WEAK
    if sym.raw == "main":
        return None   # defines_main: the grader's own message
    for g in pol.of("define-ok", kind):
        if g.matches(sym.key) and not (g.weak_only and not weak) and not (g.strong_only and weak):
            return None
    fix = "rename it or make it static"
    for g in pol.of("reserved", kind):
        if g.strong_only and weak:
            continue
        if g.matches(sym.raw if g.match_symbol else sym.key):
            return g.name, f"{g.what}: {g.advice or fix}"
    # A library's symbol: any definition of a C name (glibc exports many as weak aliases: puts), and
    # a C++ one unless both are weak (the same inline function or template instantiation).
    lib = (owned or {}).get(sym.raw)
    if lib and (not weak or lib[1] or not sym.raw.startswith("_Z")):
        return "define.libraries", f"a name {lib[0]} defines: {fix}"
    # A C name the file calls, defined here, would take the call (and everyone else's in the worker).
    # A C++ overload of it (ECE408's `int ceil(int, int)`: _Z4ceilii) has a symbol of its own that
    # replaces nothing: judged by what it can do, not by its name (issue #40).
    if not weak and not sym.raw.startswith("_Z") and sym.key in pol.referenced_exactly:
        return "allow", f"a name of the runtime this file calls: {fix}"
    return None


def library_code(key: str, kind: str = GPU, pol: Policy | None = None) -> tuple[str, str] | None:
    pol = pol or policy()
    for g in pol.of("library-code", kind):
        if g.matches(key):
            return g.name, f"{g.what}: {g.advice}"
    return None


def classify(symbol: str, kind: str = GPU) -> str | None:
    """Why the object may not reference `symbol` (demangled; a parameter list is ignored), or None."""
    key = strip_params(symbol)
    found = check_reference(key, kind)
    return found[1] if found else None


def classify_defined(symbol: str, kind: str = GPU) -> str | None:
    """Why a definition of `symbol` (demangled) betrays library code (Thrust/CUB), or None."""
    found = library_code(strip_params(symbol), kind)
    return found[1] if found else None
