"""`tilelab release OUT`: the student repository.

What ships: the kit's tracked files (git ls-files; a walk where the kit is not a git checkout),
only under the top-level entries a student repository has (SHIPPED_TOP), minus the instructor's
(EXCLUDE_PATHS: solutions, the known-bad suite, this guide, the README template). Files git
neither tracks nor ignores -- a Gradescope zip made in the kit's root, a batch's grades/ -- never
ship; the command names them. What changes on the way:
  * README.md is written for students, from templates/student-README.md.j2;
  * in Markdown files, passages between `<!-- instructor -->` and `<!-- /instructor -->` lines are
    left out (instructor material inside a page students also read);
  * CMakePresets.json: no grading seed; every preset builds `starter`; the kit's "starter must
    fail" self-test is off, and the default workflow runs the starter's checks in progress mode
    (TILELAB_STARTER_PROGRESS: a stage not done yet is reported, not a failure of the suite),
    while the student preset runs them strictly.
Everything is written to a staging folder beside OUT and scanned (leaks.py: solutions, near-copies,
seeds, inside archives too; and paths a shipped page names that the release leaves out); OUT is
put in place only when the scan finds nothing, so a leak never lands where students could get it."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT
from . import leaks as leaks_mod
from ..specs import spec

# The top level of a student repository (the kit's layout in README.md, without solutions/); nothing else at
# the kit's top level ships, tracked or not.
SHIPPED_TOP = {"CMakeLists.txt", "CMakePresets.json", "README.md", "tilelab", "assignments", "starter",
               "grader", "datasets", "docs", ".ci", ".gitignore"}
LICENCE = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE)", re.IGNORECASE)
# Used by autograder.make_zip too: never part of any copy of the kit.
EXCLUDE_TOP = {"solutions", "build", ".venv", ".deps", ".whl", ".git", "out", "gpu-out"}
EXCLUDE_NAMES = {"__pycache__", ".pytest_cache"}
# Instructor material. The known-bad suite: its submissions are working kernels with one bug
# each, and its mutants are solutions with one edit; the differential variants are correct kernels;
# the architecture page is for the kit's contributors and names all of these. The similarity test's
# data are correct kernels too; the Slurm test and the throughput script grade the suite and the
# solutions. The performance model's held-out sets (EXCLUDE_GLOBS) are working kernels. The open
# attacks are working exploits of the grader, and gpu-verify.sh runs the known-bad suite.
EXCLUDE_PATHS = {"grader/tests/open-attacks", "grader/setup/gpu-verify.sh", "docs/instructor.md", "docs/architecture.md", "docs/github-classroom", "grader/tests/submissions",
                 "grader/tests/differential", "grader/tests/release_check.py",
                 "grader/tilelab/report/templates/student-README.md.j2",
                 "grader/tests/similarity", "grader/tests/slurm", "grader/tests/python/test_similarity.py",
                 "grader/setup/batch-throughput.sh", "grader/experiments"}
# Every folder of the performance model's frozen held-out sets (grader/model-validation/model_variants.py's
# SETS): their one folder, whatever sets are added to it; and the stored counts and SASS facts of
# every validation kernel, the solutions' among them (model_fit.py's data).
EXCLUDE_GLOBS = ("grader/model-validation/heldout", "grader/model-validation/data")
README_TEMPLATE = "student-README.md.j2"
INSTRUCTOR_BEGIN = re.compile(r"^\s*<!--\s*instructor\s*-->\s*$")
INSTRUCTOR_END = re.compile(r"^\s*<!--\s*/instructor\s*-->\s*$")
# Pages listed under "More" in the student README, when the release ships them.
DOCS = {"docs/grading.md": "the correctness rule, the checks, what each verdict and hint means",
        "docs/timing.md": "how kernels are timed, and the GFLOP/s, % of reference and % of cuBLAS columns",
        "docs/emulator.md": "the CPU emulator: what it runs, what it finds, what it cannot do",
        "docs/stage-spec.md": "the `stage.toml` schema: datasets, hidden-dataset rules, thresholds, points",
        "docs/performance.md": "measured performance of the reference kernels and cuBLAS",
        "docs/chapter-map.md": "each section, figure and exercise of the book's chapter, and where the kit teaches or checks it"}


@dataclass
class Release:
    out: Path
    files: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    not_tracked: list[str] = field(default_factory=list)   # files git does not track: never shipped
    leaks: list[str] = field(default_factory=list)         # with any of these two, nothing is written
    broken_references: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return self.leaks + self.broken_references

    @property
    def ok(self) -> bool:
        return not self.problems


def _git(root: Path, *args: str) -> list[str] | None:
    """git ls-files in root, or None when root is not the top of a git checkout (a folder inside
    another repository, such as a release made in a kit's build tree, is walked instead)."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=True).stdout.strip()
        if Path(top).resolve() != Path(root).resolve():
            return None
        p = subprocess.run(["git", "-C", str(root), "ls-files", "-z", *args], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return [n for n in p.stdout.decode().split("\0") if n]


def source_files(root: Path = ROOT) -> list[str]:
    """The kit's files, relative to root: those git tracks when root is a git checkout (never a
    file made in it since, such as a Gradescope zip or grades/), a walk otherwise."""
    names = _git(root, "--cached")
    if names is None:
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    return sorted(n for n in names if (root / n).is_file())


def not_tracked(root: Path = ROOT) -> list[str]:
    """Files in the kit git neither tracks nor ignores (never shipped; named so nothing is lost)."""
    return sorted(_git(root, "--others", "--exclude-standard") or [])


def shipped(rel: str) -> bool:
    parts = Path(rel).parts
    if parts[0] not in SHIPPED_TOP and not (len(parts) == 1 and LICENCE.match(parts[0])):
        return False
    if parts[0] in EXCLUDE_TOP or any(p in EXCLUDE_NAMES for p in parts) or rel.endswith(".pyc"):
        return False
    if any(fnmatch.fnmatchcase("/".join(rel.split("/")[:3]), g) for g in EXCLUDE_GLOBS):
        return False
    return not any(rel == x or rel.startswith(x + "/") for x in EXCLUDE_PATHS)


def student_presets(text: str) -> str:
    """CMakePresets.json for students: no grading seed anywhere, and `starter` is what is built;
    the default and ci presets run its checks in progress mode, the student preset strictly."""
    doc = json.loads(text)
    for p in doc.get("configurePresets", []):
        cv = p.setdefault("cacheVariables", {})
        if "TILELAB_GRADING_SEED" in cv:
            cv["TILELAB_GRADING_SEED"] = ""
        if "TILELAB_IMPLS" in cv:
            cv["TILELAB_IMPLS"] = "starter"
        if "TILELAB_STARTER_EXPECT_FAIL" in cv:
            cv["TILELAB_STARTER_EXPECT_FAIL"] = "OFF"
            cv["TILELAB_STARTER_PROGRESS"] = "OFF" if p.get("name") == "student" else "ON"
            if p.get("name") == "default":
                p["displayName"] = "Everything: the grader's own tests, and your checks reporting where each stage stands"
    return json.dumps(doc, indent=2) + "\n"


def strip_instructor(text: str) -> str:
    """A Markdown page without its `<!-- instructor -->` ... `<!-- /instructor -->` passages."""
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        if INSTRUCTOR_BEGIN.match(line):
            inside = True
        elif INSTRUCTOR_END.match(line):
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def student_readme(out: Path, root: Path = ROOT) -> str:
    """The student README, rendered from the kit's template for what the release holds."""
    import jinja2

    stages = []
    for s in spec.load_all(root):
        walk = f"docs/walkthrough/{s.id}.md"
        stages.append({"id": s.id, "title": s.title, "handout": f"assignments/{s.id}/README.md",
                       "starter": f"starter/{s.id}/matmul.cu",
                       "walkthrough": walk if (out / walk).is_file() else ""})
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(root / "grader" / "tilelab" / "report" / "templates"),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env.get_template(README_TEMPLATE).render(
        stages=stages, first=stages[0]["id"] if stages else "01-basic",
        docs={p: what for p, what in DOCS.items() if (out / p).is_file()})


# Paths a page names: Markdown link targets, and `code` spans that look like a path of the kit.
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
_CODE_PATH = re.compile(r"`((?:\.{0,2}/)?[\w.-]+(?:/[\w.<>…*-]*)+)`")


def missing_references(out: Path, root: Path = ROOT) -> list[str]:
    """Paths that shipped Markdown pages name and the kit tracks but the release leaves out (a link
    to docs/instructor.md, a pointer into solutions/): a student would follow them into nothing."""
    kit = set()
    for name in source_files(root):
        kit.update(str(p) for p in (Path(name), *Path(name).parents) if str(p) != ".")
    found = []
    for page in sorted(out.rglob("*.md")):
        rel = page.relative_to(out)
        text = page.read_text(errors="replace")
        targets = [(rel.parent / t, t) for t in _LINK.findall(text) if "://" not in t and not t.startswith("mailto:")]
        targets += [(Path(t), t) for t in _CODE_PATH.findall(text)]
        for path, said in targets:
            parts = []   # up to the first placeholder: `solutions/<stage>/matmul.cu` names solutions/
            for part in path.parts:
                if any(c in part for c in "<>…*"):
                    break
                parts.append(part)
            if not parts:
                continue
            cand = Path(*parts)
            try:
                cand = (out / cand).resolve().relative_to(out.resolve())
            except ValueError:
                continue
            if str(cand) in kit and not (out / cand).exists():
                found.append(f"{rel} names {said}, which the release leaves out")
    return found


def _copy(name: str, root: Path, dst: Path, rel: Release) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if name == "CMakePresets.json":
        dst.write_text(student_presets((root / name).read_text()))
        rel.changed.append(name)
    elif name.endswith(".md") and (text := (root / name).read_text()) != (stripped := strip_instructor(text)):
        dst.write_text(stripped)
        shutil.copymode(root / name, dst)
        rel.changed.append(name)
    else:
        shutil.copy2(root / name, dst)


def make(out: Path, root: Path = ROOT, force: bool = False, starter_level: str = "guided") -> Release:
    """Write the student repository to out; with problems (rel.problems), write nothing there.
    starter_level: the TODOs of the shipped starters (starter.py): "guided" (the kit's starter/,
    step by step) or "bare" (one line per TODO on the goal), both made from the one solution."""
    out = Path(out).absolute()
    if Path(root).resolve().is_relative_to(out.resolve()):
        raise FileExistsError(f"{out} holds the kit itself: release into a folder outside it")
    if out.exists() and any(out.iterdir()) and not force:
        raise FileExistsError(f"{out} exists and is not empty (use --force to replace it)")
    stage_dir = out.parent / f".{out.name}.release-tmp"
    if stage_dir.exists():
        shutil.rmtree(stage_dir)
    rel = Release(out)
    rel.not_tracked = [n for n in not_tracked(root) if Path(n).parts[0] not in EXCLUDE_TOP
                       and not (root / n).resolve().is_relative_to(out)]
    try:
        for name in source_files(root):
            if shipped(name):
                _copy(name, root, stage_dir / name, rel)
                rel.files.append(name)
        if starter_level != "guided":
            from ..specs import starter
            starter.generate(root, level=starter_level, out=stage_dir / "starter")
            rel.changed += [f"starter/{s}/matmul.cu" for s in starter.stages(root)]
        (stage_dir / "README.md").write_text(student_readme(stage_dir, root))
        rel.changed.append("README.md")
        if "README.md" not in rel.files:
            rel.files.append("README.md")
        rel.leaks = leaks(stage_dir, root)
        rel.broken_references = missing_references(stage_dir, root)
        if rel.problems:
            return rel
        if out.exists():
            shutil.rmtree(out)
        stage_dir.rename(out)
        return rel
    finally:
        if stage_dir.exists():
            shutil.rmtree(stage_dir)


def leaks(out: Path, root: Path = ROOT) -> list[str]:
    """What in a release must not be there (leaks.py): solution files, any solution's text or a
    near-copy of it, a grading seed -- in plain files and inside archives."""
    return leaks_mod.scan(out, leaks_mod.secrets_of(root))
