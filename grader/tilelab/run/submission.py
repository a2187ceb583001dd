"""A submission: a folder (or a .zip) shaped like starter/, holding <stage>/matmul.cu for any
subset of stages. It is copied into a scratch folder before anything builds it, so the original is
never touched and nothing but the expected files is compiled."""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 1 << 20          # one matmul.cu
MAX_ZIP_BYTES = 64 << 20          # all of a zip, uncompressed
FILENAME = "matmul.cu"
STAGE_DIR = re.compile(r"^\d\d-[a-z0-9-]+$")   # a stage folder's name: 01-basic, 02-tiled ...


class SubmissionError(ValueError):
    pass


@dataclass
class Submission:
    name: str
    path: Path                    # a folder or a .zip


@dataclass
class Materialized:
    root: Path                    # the scratch copy: root/<stage>/matmul.cu
    stages: list[str] = field(default_factory=list)
    digest: str = ""
    notes: list[str] = field(default_factory=list)


def discover(folder: Path) -> list[Submission]:
    """One submission per sub-folder or .zip of folder, sorted by name."""
    subs = []
    for p in sorted(Path(folder).iterdir()):
        if p.name.startswith("."):
            continue
        if p.is_dir():
            subs.append(Submission(p.name, p))
        elif p.suffix.lower() == ".zip":
            subs.append(Submission(p.stem, p))
    names = [s.name for s in subs]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise SubmissionError(f"two submissions share a name (a folder and a zip?): {sorted(dupes)}")
    return subs


def _extract(zip_path: Path, dest: Path) -> None:
    try:
        with zipfile.ZipFile(zip_path) as z:
            total = 0
            for info in z.infolist():
                target = (dest / info.filename).resolve()
                if not str(target).startswith(str(dest.resolve())):
                    raise SubmissionError(f"{zip_path.name}: unsafe path in zip: {info.filename}")
                total += info.file_size
                if total > MAX_ZIP_BYTES:
                    raise SubmissionError(f"{zip_path.name}: more than {MAX_ZIP_BYTES >> 20} MiB uncompressed")
            z.extractall(dest)
    except zipfile.BadZipFile as e:
        raise SubmissionError(f"{zip_path.name}: not a readable zip: {e}") from None


def _candidates(tree: Path, pattern: str) -> list[Path]:
    """Files matching pattern under tree, shallowest first, leaving out what is no student's work:
    links, and the AppleDouble copies macOS puts into zips (__MACOSX/, ._name)."""
    return sorted((f for f in tree.rglob(pattern) if f.is_file() and not f.is_symlink()
                   and "__MACOSX" not in f.relative_to(tree).parts and not f.name.startswith("._")),
                  key=lambda p: (len(p.parts), str(p)))


def find_stage_files(tree: Path, stages: list[str], notes: list[str] | None = None) -> dict[str, Path]:
    """<stage>/matmul.cu anywhere in tree (the shallowest wins). When one stage is asked for and
    no <stage>/matmul.cu is there, a lone .cu file counts for it (a bare `matmul.cu`, or one the
    browser renamed, `matmul (1).cu`), unless it sits in another stage's folder. What was found
    instead of the expected files goes to `notes`, for the student."""
    notes = [] if notes is None else notes
    found: dict[str, Path] = {}
    for f in _candidates(tree, FILENAME):
        if f.parent.name in stages and f.parent.name not in found:
            found[f.parent.name] = f
    if found:
        return found
    if len(stages) == 1:
        def outside_stages(files):
            return [f for f in files if f.parent == tree or not STAGE_DIR.match(f.parent.name)]
        every = _candidates(tree, f"*{Path(FILENAME).suffix}")
        named = [f for f in outside_stages(every) if f.name == FILENAME]
        loose = named or outside_stages(every)
        if len(loose) == 1:
            return {stages[0]: loose[0]}
        if loose:
            notes.append(f"{len(loose)} candidate files: {', '.join(str(f.relative_to(tree)) for f in loose[:5])}; "
                         f"hand in one {FILENAME} (or {stages[0]}/{FILENAME})")
        elif every:
            notes.append(f"this assignment grades {stages[0]}, but the file handed in is "
                         f"{every[0].relative_to(tree)}; hand in {stages[0]}/{FILENAME} (or a bare {FILENAME})")
    else:
        loose = _candidates(tree, FILENAME)
        if loose:
            notes.append(f"{loose[0].relative_to(tree)} is not in a stage folder; this assignment grades "
                         f"{', '.join(stages)}: hand in <stage>/{FILENAME}, e.g. {stages[0]}/{FILENAME}")
    if not notes:
        seen = sorted(str(f.relative_to(tree)) for f in tree.rglob("*") if f.is_file())
        notes.append("the submission holds " + (", ".join(seen[:8]) + (" ..." if len(seen) > 8 else "")
                                                if seen else "no files"))
    return found


def materialize(sub: Path, dest: Path, stages: list[str]) -> Materialized:
    """Copy the stage files of sub (folder or zip) to dest/<stage>/matmul.cu."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(sub)
        if src.is_file():
            if src.suffix.lower() != ".zip":
                raise SubmissionError(f"{src.name}: a submission is a folder or a .zip")
            _extract(src, Path(tmp))
            src = Path(tmp)
        out = Materialized(dest)
        files = find_stage_files(src, stages, out.notes)
        h = hashlib.sha256()
        for stage in stages:
            f = files.get(stage)
            if f is None:
                continue
            if f.stat().st_size > MAX_FILE_BYTES:
                out.notes.append(f"{stage}/{FILENAME} is larger than {MAX_FILE_BYTES >> 10} KiB: ignored")
                continue
            data = f.read_bytes()
            (dest / stage).mkdir()
            (dest / stage / FILENAME).write_bytes(data)
            h.update(stage.encode() + b"\0" + data + b"\0")
            # The stage's answers to its graded questions (quiz.py) travel with its matmul.cu.
            # A link is no student's work (as for matmul.cu, _candidates): followed, it read a file of the
            # grading machine outside the submission (another student's answers, /proc/self/environ).
            answers = f.parent / "answers.toml"
            if answers.is_symlink():
                out.notes.append(f"{stage}/answers.toml is a link, not a file: ignored")
            elif answers.is_file() and answers.stat().st_size <= MAX_FILE_BYTES:
                (dest / stage / "answers.toml").write_bytes(answers.read_bytes())
                h.update(b"answers\0" + answers.read_bytes() + b"\0")
            out.stages.append(stage)
        out.digest = h.hexdigest()
        return out


def digest_of(sub: Path, stages: list[str]) -> str:
    """The digest materialize() would compute, without keeping a copy."""
    with tempfile.TemporaryDirectory() as tmp:
        return materialize(sub, Path(tmp) / "s", stages).digest
