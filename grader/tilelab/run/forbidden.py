"""Scan a student's compiled object against the grader's allow-list, grader/allowlist.toml, before
anything runs. One list for both backends: the nvcc object (GPU) and the objects of the emulator's
plain, asan and race builds.

- References (undefined symbols): each must match an allowed group of the list; the list's refused
  groups say what to use instead, and anything unlisted is refused with its default advice.
- Definitions (global symbols): the student's own names are fine; a name someone else in the
  runner's process owns (the CUDA runtime, libc/libm/libstdc++/OpenBLAS, the emulator, the grader,
  the sanitizers) is refused, as are Thrust/CUB kernels.
- Static initializers (constructors, .init code, ifunc resolvers) are judged like any other code:
  the worker is confined from its first instruction (docs/integrity.md), so code that runs before
  main can do nothing that launch_matmul cannot.
- No system-call instruction (inline asm bypassing libc), and no main() (defines_main).

Names are read with `nm`, demangled without parameters by `c++filt -p`, and machine code with
`objdump`: never the source text. Without those tools nothing can be verified, and the scan says so
(a finding) rather than passing the object. docs/integrity.md explains the rule.
"""

from __future__ import annotations

import concurrent.futures
import fnmatch
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..specs.compat import tomllib
from .artifacts import student_objects  # noqa: F401  (the objects scanned; kept here for callers)

ALLOWLIST = Path(__file__).resolve().parents[2] / "allowlist.toml"

GPU, EMU, EMU_ASAN, EMU_RACE = "gpu", "emu", "emu-asan", "emu-race"
KINDS = (GPU, EMU, EMU_ASAN, EMU_RACE)
EMU_KINDS = (EMU, EMU_ASAN, EMU_RACE)
_BUILD_KIND = {"plain": EMU, "asan": EMU_ASAN, "race": EMU_RACE}

# nm's letters for a symbol this object defines with global binding (lowercase = local, skipped);
# V, W and u (GNU unique: inline statics, template static members) are the COMDAT kinds.
_GLOBAL_DEFINED = set("ABCDGRSTVWiu")
_WEAK = set("VWu")
_UNDEFINED = set("Uwv")


@dataclass(frozen=True)
class Finding:
    symbol: str              # the name as the student wrote it (demangled, no parameters)
    reason: str              # what to use instead / why
    object: str
    kind: str = "reference"  # reference | definition | syscall | unreadable
    group: str = ""          # the allow-list group that decided

    @property
    def message(self) -> str:
        return f"defines {self.symbol}, {self.reason}" if self.kind == "definition" else f"{self.symbol}: {self.reason}"


# ---------------------------------------------------------------------------------------------
# The list
# ---------------------------------------------------------------------------------------------

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
        return tuple(_BUILD_KIND[b] for b in builds) if builds else EMU_KINDS
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


# ---------------------------------------------------------------------------------------------
# Reading objects
# ---------------------------------------------------------------------------------------------

class ToolMissing(RuntimeError):
    pass


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise ToolMissing(name)
    return path


def _run(*cmd: str, stdin: str | None = None) -> str:
    return subprocess.run([_tool(cmd[0]), *cmd[1:]], input=stdin, capture_output=True, text=True).stdout


_DEMANGLED: dict[str, str] = {}


def demangle(names) -> dict[str, str]:
    """raw symbol -> its name without parameters and return type (`c++filt -p`)."""
    todo = sorted({n for n in names if n not in _DEMANGLED})
    if todo:
        out = _run("c++filt", "-p", stdin="\n".join(todo) + "\n").splitlines()
        if len(out) != len(todo):
            out = todo
        _DEMANGLED.update(zip(todo, (o.strip() for o in out)))
    return {n: _DEMANGLED[n] for n in names}


@dataclass(frozen=True)
class Symbol:
    raw: str
    key: str     # demangled, no parameters
    type: str    # nm's letter


@functools.lru_cache(maxsize=32)
def _nm_of(path: str, mtime: float, size: int) -> tuple[tuple[str, str], ...]:
    out = []
    for line in _run("nm", "-P", "--no-sort", path).splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[1]) == 1:
            out.append((parts[0], parts[1]))
    return tuple(out)


def _nm(obj: Path) -> list[tuple[str, str]]:
    """(raw name, nm type letter) of every symbol of the object (read once per version of the file:
    defines_main and the scan both read it)."""
    st = Path(obj).stat()
    return list(_nm_of(str(obj), st.st_mtime, st.st_size))


def symbols(obj: Path) -> list[Symbol]:
    raw = _nm(obj)
    keys = demangle([n for n, _ in raw])
    return [Symbol(n, keys[n], t) for n, t in raw]


def object_kind(obj: Path, syms: list[Symbol] | None = None) -> str:
    """Which build made the object: from the build tree's target folder (emu_<build>_run_..., set by
    grader/cmake), else from what it references (nvcc's registration, ASan's module constructor, ThreadSanitizer's callbacks)."""
    for part in reversed(Path(obj).parts[:-1]):
        m = re.match(r"emu_(plain|asan|race|count)_", part)
        if m:
            return {"count": EMU_RACE}.get(m.group(1)) or _BUILD_KIND[m.group(1)]
        if part.startswith("trace_"):
            return EMU_RACE
    names = {s.raw for s in (syms if syms is not None else symbols(obj)) if s.type in _UNDEFINED}
    if any(n.startswith("__cudaRegisterFatBinary") for n in names) or Path(obj).name.endswith(".cu.o"):
        return GPU
    if "__asan_init" in names:
        return EMU_ASAN
    if any(n.startswith("__tsan_") for n in names):
        return EMU_RACE
    return EMU


# ---------------------------------------------------------------------------------------------
# Who owns which names: the libraries of the runner's process
# ---------------------------------------------------------------------------------------------

@functools.cache
def _ldconfig() -> dict[str, str]:
    """soname -> path of the native libraries the dynamic linker knows (ldconfig -p)."""
    exe = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
    text = subprocess.run([exe, "-p"], capture_output=True, text=True).stdout if exe else ""
    native = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(os.uname().machine, "")
    found: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if m and (not native or native in m.group(2)):
            found.setdefault(m.group(1), m.group(3))
    return found


# Where shared libraries lie when ldconfig's cache says nothing (a container without one).
_LIB_DIRS = ("/lib/*-linux-gnu", "/usr/lib/*-linux-gnu", "/lib64", "/usr/lib64")


def _cuda_lib_dirs() -> list[Path]:
    dirs = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        root = Path(nvcc).resolve().parent.parent
        dirs += [root / "lib64", root / "targets" / "x86_64-linux" / "lib"]
    dirs += [Path("/usr/local/cuda/lib64")]
    return [d for d in dirs if d.is_dir()]


def _library_paths(pol: Policy, build: Path | None) -> list[Path]:
    """The libraries the list names, as found on this machine (missing ones are skipped)."""
    paths: list[Path] = []
    cuda = _cuda_lib_dirs()
    system = [Path(d) for pattern in _LIB_DIRS for d in sorted(Path("/").glob(pattern.lstrip("/")))]
    for pat in pol.libraries:
        paths += [Path(p) for so, p in _ldconfig().items() if fnmatch.fnmatchcase(so, pat)]
        for d in cuda + system:
            paths += sorted(d.glob(pat))
    for pat in pol.static_libraries:
        for d in cuda + ([build, *(p for p in build.iterdir() if p.is_dir())] if build and build.is_dir() else []):
            paths += sorted(d.glob(pat))
    seen, out = set(), []
    for p in paths:
        rp = p.resolve()
        if rp.is_file() and rp not in seen:
            seen.add(rp)
            out.append(rp)
    return out


@functools.cache
def _exports(path: str, mtime: float, size: int) -> dict[str, bool]:
    """symbol -> defined strongly, for what the library exports (a shared library: its dynamic
    symbols; a static one: its global definitions)."""
    flags = ["-D", "--defined-only"] if ".so" in Path(path).name else ["--defined-only"]
    out: dict[str, bool] = {}
    for line in _run("nm", "-P", "--no-sort", *flags, path).splitlines():
        parts = line.split()
        if len(parts) < 2 or len(parts[1]) != 1 or parts[1] not in _GLOBAL_DEFINED:
            continue
        name = parts[0].split("@")[0]
        out[name] = out.get(name, False) or parts[1] not in _WEAK
    return out


def owned_symbols(build: Path | None = None, pol: Policy | None = None) -> dict[str, tuple[str, bool]]:
    """symbol -> (the library that defines it, whether strongly), over the libraries the list names
    (read once per process and library version)."""
    libs = []
    for p in _library_paths(pol or policy(), build):
        st = p.stat()
        libs.append((str(p), st.st_mtime, st.st_size))
    return _owned(tuple(libs))


def _cache_dir() -> Path:
    """Where the names the libraries own are kept between grades: build/.cache of the kit, outside
    every build tree (the sandbox user may write a tree while it compiles, never this folder)."""
    return Path(__file__).resolve().parents[3] / "build" / ".cache"


@functools.lru_cache(maxsize=8)
def _owned(libs: tuple[tuple[str, float, int], ...]) -> dict[str, tuple[str, bool]]:
    """Read once per set of library versions: a grade is a new process, and reading some twenty
    libraries with nm takes about a second, so the result is kept on disk, keyed by every
    library's path, modification time and size."""
    key = hashlib.sha256(json.dumps(libs).encode()).hexdigest()[:24]
    cached = _cache_dir() / f"owned-symbols-{key}.json"
    try:
        data = json.loads(cached.read_text())
        if data.get("libs") == [list(lib) for lib in libs]:
            return {name: (lib, bool(strong)) for name, (lib, strong) in data["owned"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    owned: dict[str, tuple[str, bool]] = {}
    for lib in libs:
        for name, strong in _exports(*lib).items():
            prev = owned.get(name)
            if prev is None or (strong and not prev[1]):
                owned[name] = (Path(lib[0]).name, strong)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"libs": [list(lib) for lib in libs], "owned": owned}))
        tmp.replace(cached)
    except OSError:
        pass  # a read-only kit: read the libraries again next time
    return owned


# ---------------------------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------------------------

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
    weak = sym.type in _WEAK
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
    key = _strip_params(symbol)
    found = check_reference(key, kind)
    return found[1] if found else None


def classify_defined(symbol: str, kind: str = GPU) -> str | None:
    """Why a definition of `symbol` (demangled) betrays library code (Thrust/CUB), or None."""
    found = library_code(_strip_params(symbol), kind)
    return found[1] if found else None


def _strip_params(name: str) -> str:
    """A name as c++filt -p writes it, from a raw symbol or from nm -C's full demangled name
    (its trailing parameter list and a leading return type dropped)."""
    s = name.strip()
    if s.startswith("_Z"):
        return demangle([s])[s]
    if s.endswith(")") and not s.endswith("operator()"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i].rstrip()
                break
    if "operator" not in s and not s.startswith(("typeinfo ", "vtable ", "VTT ", "guard variable ")):
        depth, cut = 0, -1
        for i, c in enumerate(s):
            depth += {"<": 1, ">": -1}.get(c, 0)
            if c == " " and depth == 0:
                cut = i
        s = s[cut + 1:]
    return s


# ---------------------------------------------------------------------------------------------
# Machine code: system calls
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=32)
def _objdump_d(path: str, mtime: float, size: int) -> str:
    return _run("objdump", "-d", "-r", "-w", "--no-show-raw-insn", path)


def _disassembly(obj: Path) -> str:
    st = Path(obj).stat()
    return _objdump_d(str(obj), st.st_mtime, st.st_size)


def defines_main(objects: list[Path]) -> bool:
    """Whether the student's code defines main(): the runner supplies main and calls the student's
    functions, so a file that keeps its own cannot be linked into it."""
    return any(s.raw == "main" and s.type in "TtWw" for obj in objects for s in symbols(obj))


def raw_syscalls(obj: Path) -> bool:
    """Whether the machine code holds a system-call instruction (inline asm bypassing libc)."""
    for line in _disassembly(obj).splitlines():
        m = re.match(r"^\s+[0-9a-f]+:\t(.*)$", line)
        if m and re.match(r"^(?:\w+ )*?(syscall|sysenter|int\s+\$0x80)\s*(?:$|\t)", m.group(1)):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# The scan
# ---------------------------------------------------------------------------------------------

def scan_object(obj: Path, kind: str | None = None, build: Path | None = None,
                pol: Policy | None = None) -> list[Finding]:
    pol = pol or policy()
    o = str(obj)
    try:
        syms = symbols(obj)
        kind = kind or object_kind(obj, syms)
        owned = owned_symbols(build, pol)
        out = []
        for s in syms:
            if s.type in _UNDEFINED:
                bad = check_reference(s.key, kind, pol)
                if bad:
                    out.append(Finding(as_written(s.key), bad[1], o, "reference", bad[0]))
                continue
            lib = library_code(s.key, kind, pol)
            if lib:
                out.append(Finding(s.key, lib[1], o, "definition", lib[0]))
                continue
            if s.type in _GLOBAL_DEFINED:
                bad = check_definition(s, kind, pol, owned)
                if bad:
                    out.append(Finding(s.key, bad[1], o, "definition", bad[0]))
        if raw_syscalls(obj):
            out.append(Finding("syscall instruction", "a system call made around libc: call only what the "
                               "allow-list lists", o, "syscall"))
        return out
    except ToolMissing as e:
        return [Finding(f"{e.args[0]} is missing", "the grader cannot read the compiled file without binutils "
                        "(nm, c++filt, objdump); tell your instructor", o, "unreadable")]


def scan(objects: list[Path], kind: str | None = None, build: Path | None = None) -> list[Finding]:
    """Every finding of the objects (one per symbol and message: the emulator's three builds of one
    file would repeat each). The objects are read side by side (the time is nm's and objdump's, in
    processes of their own: a grade waits for the scan before any check runs); the findings keep
    the objects' order."""
    pol = policy()
    owned_symbols(build, pol)   # once, before the threads share it
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(objects))) as pool:
        per_object = list(pool.map(lambda obj: scan_object(Path(obj), kind, build, pol), objects))
    seen, unique = set(), []
    for found in per_object:
        for f in found:
            if (f.symbol, f.reason) not in seen:
                seen.add((f.symbol, f.reason))
                unique.append(f)
    return unique


def _compact(names: list[str]) -> list[str]:
    """Names of one class template's members shown once: `std::basic_filebuf<...>::{close, open}`;
    plain names first, then the vtables and typeinfo the compiler refers to."""
    by_class: dict[str, list[str]] = {}
    out = []
    for n in sorted(set(names)):
        head, sep, member = n.rpartition("::")
        if sep and "<" in head and " for " not in n:
            by_class.setdefault(head, []).append(member)
        else:
            out.append(n)
    out += [f"{c}::{m[0]}" if len(m) == 1 else f"{c}::{{{', '.join(m)}}}" for c, m in by_class.items()]
    return sorted(out, key=lambda n: (n.startswith(("vtable for ", "VTT for ", "typeinfo ")), n.lower()))


# glibc's _FORTIFY_SOURCE (on by default in Ubuntu's g++ when optimising: the GPU machine's) turns
# some calls into checked ones: longjmp into __longjmp_chk, open into __open_2.
_FORTIFIED = re.compile(r"^__(\w+?)(?:_chk|_2)$")
_FORTIFIABLE = {"longjmp", "open", "open64", "openat", "openat64", "read", "pread", "pread64", "readlink",
                "readlinkat", "getcwd", "realpath", "fread", "fgets", "gets", "recv", "recvfrom", "poll", "ppoll",
                "mq_open", "ttyname_r", "getlogin_r", "gethostname", "getdomainname", "confstr", "getgroups",
                "wctomb", "mbstowcs", "wcstombs", "syslog", "vsyslog", "fdelt"}


def as_written(name: str) -> str:
    """The call as the student wrote it: `open` for the __open_2 that _FORTIFY_SOURCE made of it (the
    allow-list decides on the real name; the student reads this one)."""
    m = _FORTIFIED.match(name)
    return m.group(1) if m and m.group(1) in _FORTIFIABLE else name


def summary(found: list[Finding], limit: int = 10) -> str:
    """One line for the student: findings grouped by what to do instead, each naming its symbols;
    groups are separated by "; " (no advice in the list holds one)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for f in found:
        groups.setdefault((f.kind, f.reason), []).append(f.symbol)
    parts = []
    for (kind, reason), names in groups.items():
        if kind == "definition":
            names = sorted(set(names))
            parts += [f"defines {n}, {reason}" for n in names[:limit]]
            if len(names) > limit:
                parts.append(f"and {len(names) - limit} more definitions")
            continue
        names = _compact(names)
        more = f" and {len(names) - limit} more" if len(names) > limit else ""
        parts.append(f"{', '.join(names[:limit])}{more}: {reason}")
    return "; ".join(parts)
