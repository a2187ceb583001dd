"""Running inside hosted autograders.

Gradescope: `make_zip` writes the autograder zip (setup.sh and run_autograder at its root, the kit
under tilelab/, with its solutions -- the reference for timing -- and the grading seed in
tilelab-autograder.json, none of which students see). In the container, run_autograder calls
`./tilelab gradescope`, which grades /autograder/submission and writes
/autograder/results/results.json. PrairieLearn: the same with /grade/student and
/grade/results/results.json in PrairieLearn's format.

Whatever happens, a results file is written: a broken submission gets a score of 0 and a message.
"""

from __future__ import annotations

import json
import os
import stat
import traceback
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import ROOT, gradescope_format, prairielearn_format, release, spec
from .grade import GradeOptions, run as grade_run
from .model import GradeReport
from .tree import Tree

CONFIG = "tilelab-autograder.json"
GRADESCOPE = {"submission": "/autograder/submission", "results": "/autograder/results/results.json",
              "build": "/autograder/build"}
PRAIRIELEARN = {"submission": "/grade/student", "results": "/grade/results/results.json",
                "build": "/grade/build"}


@dataclass
class AutograderConfig:
    stages: list[str] = field(default_factory=list)   # empty: every stage found in the submission
    seed: str = ""                                    # the hidden datasets' seed; empty: none
    backend: str = "auto"
    hidden_visibility: str = gradescope_format.HIDDEN_VISIBILITY
    timeout: float = 1200                             # per stage, build and checks each

    @classmethod
    def load(cls, root: Path = ROOT) -> "AutograderConfig":
        p = root / CONFIG
        if not p.exists():
            return cls()
        d = json.loads(p.read_text())
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


SETUP_SH = """#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 24.04 base
# image recommended: CMake >= 3.25 and Python >= 3.11 come with it).
set -eu
cd /autograder/source/tilelab
./grader/setup/install-deps.sh
# Build the kit (core library, datasets) once, so each submission only compiles its own file.
./tilelab gradescope --prepare --build-dir /autograder/build
"""

RUN_AUTOGRADER = """#!/bin/sh
# Gradescope's entry point: grade /autograder/submission into /autograder/results/results.json.
cd /autograder/source/tilelab || exit 1
exec ./tilelab gradescope --submission /autograder/submission \\
  --results /autograder/results/results.json --build-dir /autograder/build
"""


def _failure(name: str, exc: BaseException, backend: str) -> GradeReport:
    msg = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return GradeReport(name, "submission", backend, status="error",
                       message=f"the autograder failed; tell your instructor: {msg}")


def grade_submission(submission: Path, build: Path, cfg: AutograderConfig) -> GradeReport:
    opts = GradeOptions(stages=cfg.stages or None, submission=submission, name="submission", impl="submission",
                        backend=cfg.backend, hidden=bool(cfg.seed), seed=cfg.seed or None, build_dir=build,
                        build_timeout=cfg.timeout, check_timeout=cfg.timeout, isolate_network=True)
    try:
        return grade_run(opts)
    except Exception as e:  # the results file must still be written
        return _failure("submission", e, cfg.backend)


def write_results(report: GradeReport, results: Path, fmt: str, cfg: AutograderConfig) -> Path:
    doc = (gradescope_format.results(report, cfg.hidden_visibility) if fmt == "gradescope"
           else prairielearn_format.results(report))
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(doc, indent=2) + "\n")
    return results


def autograde(fmt: str = "gradescope", submission: Path | None = None, results: Path | None = None,
              build: Path | None = None, cfg: AutograderConfig | None = None) -> tuple[GradeReport, Path]:
    where = GRADESCOPE if fmt == "gradescope" else PRAIRIELEARN
    cfg = cfg or AutograderConfig.load()
    report = grade_submission(Path(submission or where["submission"]), Path(build or where["build"]), cfg)
    return report, write_results(report, Path(results or where["results"]), fmt, cfg)


def prepare(build: Path, cfg: AutograderConfig | None = None) -> int:
    """Configure and build the kit's shared parts once (setup.sh), before any submission."""
    cfg = cfg or AutograderConfig.load()
    tree = Tree(Path(build))
    from .grade import resolve_backend

    if not tree.configure([], None, cfg.seed or None, resolve_backend(cfg.backend)).ok:
        print((tree.logs / "configure.log").read_text()[-4000:])
        return 2
    b = tree.build_targets(["datasets"], "prepare")
    print(f"tilelab: prepared {build} ({'ok' if b.ok else 'build failed, see ' + str(tree.logs)})")
    return 0 if b.ok else 2


def _add(z: zipfile.ZipFile, arcname: str, text: str, executable: bool = False) -> None:
    info = zipfile.ZipInfo(arcname)
    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, text)


def make_zip(out: Path, cfg: AutograderConfig, root: Path = ROOT) -> list[str]:
    """The Gradescope autograder zip; returns the names it holds."""
    known = {s.id for s in spec.load_all(root)}
    bad = [s for s in cfg.stages if s not in known]
    if bad:
        raise ValueError(f"unknown stage(s) {bad}; stages are {sorted(known)}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        _add(z, "setup.sh", SETUP_SH, executable=True)
        _add(z, "run_autograder", RUN_AUTOGRADER, executable=True)
        _add(z, f"tilelab/{CONFIG}", json.dumps(asdict(cfg), indent=2) + "\n")
        for name in release.source_files(root):
            if (root / name).resolve() == out.resolve():
                continue   # an earlier zip at the same path (tracked by mistake) never goes inside
            top = Path(name).parts[0]
            if top in release.EXCLUDE_TOP - {"solutions"} or name == CONFIG:
                continue
            if any(p in release.EXCLUDE_NAMES for p in Path(name).parts):
                continue
            mode = os.stat(root / name).st_mode
            info = zipfile.ZipInfo.from_file(root / name, f"tilelab/{name}")
            info.external_attr = (mode & 0xFFFF) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, (root / name).read_bytes())
        return z.namelist()
