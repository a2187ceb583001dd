"""What must never reach students, and a scan of a folder for it (`tilelab release` runs it on
everything it writes before the student repository is put in place).

The secrets are the kit's reference solutions (their text, and the lines between their BEGIN/END
SOLUTION markers, which a near-copy keeps) and the grading seeds: every seed a config of the kit
holds (CMakePresets.json, CMakeUserPresets.json, tilelab-autograder.json) or that was given to a
command whose build tree is under build/ (CMakeCache.txt). A scan opens archives (zip, tar with any
compression, a lone gzip/bzip2/xz stream), nested ones too, so a Gradescope zip or a batch's results
left in a shipped folder are read like plain files, and names the file (`docs/x.zip!tilelab/...`).
A seed is found by its value next to a seed's name (`"seed": "<S>"`, `--seed <S>`,
`TILELAB_GRADING_SEED=<S>`), or anywhere as a whole word when it is long enough not to occur by
chance; a config that sets a grading seed is a leak whatever the value, since a seed an instructor
used on another machine is not known here."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import re
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..specs import starter
from ..specs.compat import tomllib

# A shipped file holding this share of a solution's own lines (those between its BEGIN/END
# SOLUTION markers) is a near-copy of it, whatever else was changed.
NEAR_COPY_SHARE = 0.5
# A seed this long is looked for anywhere as a whole word; a shorter one ("123") only next to a
# seed's name, where it cannot be a coincidence.
SEED_ANYWHERE_LEN = 6
# Archives nested deeper than this, or members larger than this, are a leak in themselves: they
# cannot be read through, so nobody can say what they hold.
MAX_DEPTH = 4
MAX_MEMBER_BYTES = 64 << 20

SEED_CONFIGS = ("CMakePresets.json", "CMakeUserPresets.json")
AUTOGRADER_CONFIG = "tilelab-autograder.json"
# A grading seed set in any config or command line, whatever its value (placeholders such as <S>,
# ${SEED} and empty values are not seeds).
SEED_SETTING = re.compile(r"""TILELAB_GRADING_SEED(?::STRING)?["']?\s*[=:]\s*["']?([^"'\s;,{}<$]+)""")
# A build tree's cache also keeps the seed as given to ./tilelab, whose number is the setting above
# (grader/tilelab/specs/seed.py: any text is a seed).
SEED_TEXT_CACHED = re.compile(r"^TILELAB_GRADING_SEED_TEXT:STRING=(.+)$", re.MULTILINE)


@dataclass
class Secrets:
    solutions: dict[str, str] = field(default_factory=dict)        # stage -> solution text
    solution_lines: dict[str, set[str]] = field(default_factory=dict)
    seeds: set[str] = field(default_factory=set)
    answer_formulas: dict[str, set[str]] = field(default_factory=dict)   # stage -> its key's formulas (quiz.py)


def answer_formulas(text: str) -> set[str]:
    """The formulas of an answer key (solutions/<stage>/questions-key.toml), whitespace-normalised."""
    try:
        key = tomllib.loads(text).get("answer", {})
    except tomllib.TOMLDecodeError:
        return set()
    return {" ".join(str(v).split()) for v in key.values() if len(str(v).strip()) > 3}


def _code_lines(text: str) -> set[str]:
    """The code lines of a file, whitespace-normalised; short lines (braces, `return;`) left out."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return {ln for ln in lines if len(ln) >= 12 and not ln.startswith(("//", "#include"))}


def solution_lines(text: str) -> set[str]:
    """The code lines a student has to write in a solution (starter.solution_code), normalised."""
    return _code_lines("\n".join(starter.solution_code(text)))


def _preset_seeds(text: str) -> set[str]:
    try:
        doc = json.loads(text)
    except ValueError:
        return set()
    return {str(p.get("cacheVariables", {}).get("TILELAB_GRADING_SEED") or "")
            for p in doc.get("configurePresets", []) if isinstance(p, dict)} - {""}


def _autograder_seed(text: str) -> set[str]:
    try:
        seed = json.loads(text).get("seed")
    except (ValueError, AttributeError):
        return set()
    return {str(seed)} if seed not in (None, "") else set()


def grading_seeds(root: Path) -> set[str]:
    """Every grading seed the kit at root holds or was given (see the module's doc)."""
    seeds: set[str] = set()
    for name in SEED_CONFIGS:
        if (root / name).is_file():
            seeds |= _preset_seeds((root / name).read_text(errors="replace"))
    if (root / AUTOGRADER_CONFIG).is_file():
        seeds |= _autograder_seed((root / AUTOGRADER_CONFIG).read_text(errors="replace"))
    for cache in (root / "build").glob("*/CMakeCache.txt"):
        text = cache.read_text(errors="replace")
        for m in SEED_SETTING.finditer(text):
            seeds.add(m.group(1))
        seeds |= {m.group(1).strip() for m in SEED_TEXT_CACHED.finditer(text)} - {""}
    return seeds


def secrets_of(root: Path) -> Secrets:
    sols = {p.parent.name: p.read_text() for p in sorted((root / "solutions").glob("*/matmul.cu"))}
    keys = {p.parent.name: answer_formulas(p.read_text()) for p in sorted((root / "solutions").glob("*/questions-key.toml"))}
    return Secrets(sols, {s: solution_lines(t) for s, t in sols.items()}, grading_seeds(root), keys)


def _text_leaks(name: str, text: str, secrets: Secrets) -> list[str]:
    found = []
    base = Path(name.split("!")[-1]).name
    for seed in sorted(secrets.seeds):
        near = re.compile(rf"seed[^\w\n]{{0,8}}{re.escape(seed)}(?!\w)", re.IGNORECASE)
        anywhere = len(seed) >= SEED_ANYWHERE_LEN and re.search(rf"(?<!\w){re.escape(seed)}(?!\w)", text)
        if near.search(text) or anywhere:
            found.append(f"{name} contains the grading seed")
    if not any("grading seed" in f for f in found):
        set_here = {m.group(1) for m in SEED_SETTING.finditer(text)}
        if base in SEED_CONFIGS:
            set_here |= _preset_seeds(text)
        if base == AUTOGRADER_CONFIG:
            set_here |= _autograder_seed(text)
        if set_here:
            found.append(f"{name} sets a grading seed ({len(set_here)} value(s))")
    flat = " ".join(text.split())
    for stage, formulas in secrets.answer_formulas.items():
        held = [f for f in formulas if f in flat]
        if formulas and len(held) >= min(2, len(formulas)):
            found.append(f"{name} holds {len(held)} of the {len(formulas)} answer formulas of {stage} "
                         "(solutions/{stage}/questions-key.toml: answers never ship)".replace("{stage}", stage))
    lines = _code_lines(text)
    for stage, sol in secrets.solutions.items():
        own = secrets.solution_lines[stage]
        if text == sol:
            found.append(f"{name} is the {stage} solution")
        elif own and len(lines & own) >= NEAR_COPY_SHARE * len(own):
            found.append(f"{name} holds {len(lines & own)} of the {len(own)} lines of the {stage} solution")
    return found


def _members(data: bytes) -> list[tuple[str, bytes]] | None:
    """The files inside an archive (by content, not by name), or None when data is not one."""
    buf = io.BytesIO(data)
    if zipfile.is_zipfile(buf):
        with zipfile.ZipFile(buf) as z:
            return [(i.filename, z.read(i) if i.file_size <= MAX_MEMBER_BYTES else b"")
                    for i in z.infolist() if not i.is_dir()]
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            return [(m.name, t.extractfile(m).read() if m.size <= MAX_MEMBER_BYTES else b"")
                    for m in t.getmembers() if m.isfile()]
    except (tarfile.TarError, EOFError, OSError, lzma.LZMAError):
        pass
    for magic, opener, suffix in ((b"\x1f\x8b", gzip.decompress, ".gz"), (b"BZh", bz2.decompress, ".bz2"),
                                  (b"\xfd7zXZ\x00", lzma.decompress, ".xz")):
        if data.startswith(magic):
            try:
                return [("(decompressed)", opener(data))]
            except (OSError, EOFError, lzma.LZMAError, ValueError):
                return None
    return None


def scan_bytes(name: str, data: bytes, secrets: Secrets, depth: int = 0) -> list[str]:
    """Leaks in one file's content; archives are opened and their members scanned."""
    members = _members(data)
    if members is not None:
        if depth >= MAX_DEPTH:
            return [f"{name} nests archives too deep to be checked"]
        found = []
        for member, content in members:
            inner = f"{name}!{member}"
            if "solutions" in Path(member).parts:
                found.append(f"{inner} is in a solutions/ folder")
            found += scan_bytes(inner, content, secrets, depth + 1)
        return found
    return _text_leaks(name, data.decode("utf-8", errors="replace"), secrets)


def scan(folder: Path, secrets: Secrets) -> list[str]:
    """Every leak in the files under folder, each naming the file (relative to folder)."""
    found = []
    if (folder / "solutions").exists():
        found.append("solutions/ is present")
    for f in sorted(folder.rglob("*")):
        if f.is_file() and not f.is_symlink():
            found += scan_bytes(str(f.relative_to(folder)), f.read_bytes(), secrets)
    return found
