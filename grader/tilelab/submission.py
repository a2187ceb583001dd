"""A submission: a folder (or a .zip) shaped like starter/, holding <stage>/matmul.cu for any
subset of stages. It is copied into a scratch folder before anything builds it, so the original is
never touched and nothing but the expected files is compiled."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 1 << 20          # one matmul.cu
MAX_ZIP_BYTES = 64 << 20          # all of a zip, uncompressed
FILENAME = "matmul.cu"


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


def find_stage_files(tree: Path, stages: list[str]) -> dict[str, Path]:
    """<stage>/matmul.cu anywhere in tree (the shallowest wins); a lone matmul.cu counts for the
    single stage asked for."""
    found: dict[str, Path] = {}
    for f in sorted(tree.rglob(FILENAME), key=lambda p: (len(p.parts), str(p))):
        if f.is_file() and not f.is_symlink() and f.parent.name in stages and f.parent.name not in found:
            found[f.parent.name] = f
    if not found and len(stages) == 1:
        loose = [f for f in tree.rglob(FILENAME) if f.is_file() and not f.is_symlink()]
        if len(loose) == 1:
            found[stages[0]] = loose[0]
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
        files = find_stage_files(src, stages)
        out = Materialized(dest)
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
            out.stages.append(stage)
        out.digest = h.hexdigest()
        return out


def digest_of(sub: Path, stages: list[str]) -> str:
    """The digest materialize() would compute, without keeping a copy."""
    with tempfile.TemporaryDirectory() as tmp:
        return materialize(sub, Path(tmp) / "s", stages).digest
