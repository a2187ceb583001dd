"""`tilelab release OUT`: the student repository.

Everything a student needs -- starters, handouts, walkthroughs, the grader and its tests, the
dataset generator -- and nothing they must not have: no solutions/, no grading seed (the presets'
TILELAB_GRADING_SEED is emptied), no instructor-only files. The student's work is the starter, so
the presets build and test `starter` (not `solution`), and the kit's "starter must fail" self-test
is off. The copy builds and its tests run (docs/instructor.md shows how to check)."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT, starter

# Never shipped: reference solutions, build outputs, local environments, instructor material. The
# known-bad suite is instructor material too: its submissions are working kernels with one bug
# each, and its mutants are solutions with one edit.
EXCLUDE_TOP = {"solutions", "build", ".venv", ".deps", ".whl", ".git", "out", "gpu-out"}
EXCLUDE_PATHS = {"docs/instructor.md", "docs/github-classroom", "grader/tests/submissions"}
EXCLUDE_NAMES = {"__pycache__", ".pytest_cache"}
# A shipped file holding this share of a solution's own lines (those between its BEGIN/END
# SOLUTION markers) is a near-copy of it, whatever else was changed.
NEAR_COPY_SHARE = 0.5


@dataclass
class Release:
    out: Path
    files: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)


def source_files(root: Path = ROOT) -> list[str]:
    """Files of the kit, relative to root: git's tracked and untracked-but-not-ignored files when
    root is a git checkout, a walk otherwise."""
    try:
        p = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True)
        names = [n for n in p.stdout.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    return sorted(n for n in names if (root / n).is_file())


def shipped(rel: str) -> bool:
    parts = Path(rel).parts
    if parts[0] in EXCLUDE_TOP or any(p in EXCLUDE_NAMES for p in parts) or rel.endswith(".pyc"):
        return False
    return not any(rel == x or rel.startswith(x + "/") for x in EXCLUDE_PATHS)


def student_presets(text: str) -> str:
    """CMakePresets.json for students: no grading seed anywhere, and `starter` is what is built."""
    doc = json.loads(text)
    for p in doc.get("configurePresets", []):
        cv = p.get("cacheVariables", {})
        if "TILELAB_GRADING_SEED" in cv:
            cv["TILELAB_GRADING_SEED"] = ""
        if "TILELAB_IMPLS" in cv:
            cv["TILELAB_IMPLS"] = "starter"
        if "TILELAB_STARTER_EXPECT_FAIL" in cv:
            cv["TILELAB_STARTER_EXPECT_FAIL"] = "OFF"
    return json.dumps(doc, indent=2) + "\n"


def make(out: Path, root: Path = ROOT, force: bool = False) -> Release:
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(f"{out} exists and is not empty (use --force to replace it)")
        shutil.rmtree(out)
    rel = Release(out)
    for name in source_files(root):
        if not shipped(name):
            continue
        dst = out / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if name == "CMakePresets.json":
            dst.write_text(student_presets((root / name).read_text()))
            rel.changed.append(name)
        else:
            shutil.copy2(root / name, dst)
        rel.files.append(name)
    return rel


def _code_lines(text: str) -> set[str]:
    """The code lines of a file, whitespace-normalised; short lines (braces, `return;`) left out."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return {ln for ln in lines if len(ln) >= 12 and not ln.startswith(("//", "#include"))}


def solution_lines(text: str) -> set[str]:
    """The code lines a student has to write in a solution (starter.solution_code), normalised."""
    return _code_lines("\n".join(starter.solution_code(text)))


def leaks(out: Path, root: Path = ROOT) -> list[str]:
    """What in a release must not be there: solution files, any solution's text or a near-copy of
    it (NEAR_COPY_SHARE of its own lines), the seed."""
    found = []
    if (out / "solutions").exists():
        found.append("solutions/ is present")
    seeds = set()
    try:
        for p in json.loads((root / "CMakePresets.json").read_text()).get("configurePresets", []):
            seed = p.get("cacheVariables", {}).get("TILELAB_GRADING_SEED")
            if seed:
                seeds.add(seed)
    except (OSError, ValueError):
        pass
    sol_texts = {p.parent.name: p.read_text() for p in (root / "solutions").glob("*/matmul.cu")}
    sol_lines = {stage: solution_lines(text) for stage, text in sol_texts.items()}
    for f in out.rglob("*"):
        if not f.is_file() or f.suffix in (".png", ".zip", ".npy"):
            continue
        try:
            text = f.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for seed in seeds:
            if seed in text:
                found.append(f"{f.relative_to(out)} contains the grading seed")
        lines = _code_lines(text)
        for stage, sol in sol_texts.items():
            if text == sol:
                found.append(f"{f.relative_to(out)} is the {stage} solution")
            elif sol_lines[stage] and len(lines & sol_lines[stage]) >= NEAR_COPY_SHARE * len(sol_lines[stage]):
                found.append(f"{f.relative_to(out)} holds {len(lines & sol_lines[stage])} of the "
                             f"{len(sol_lines[stage])} lines of the {stage} solution")
    return found
