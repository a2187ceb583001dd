"""Running inside hosted autograders.

Gradescope: `make_zip` writes the autograder zip (setup.sh and run_autograder at its root, the kit
under tilelab/, with its solutions -- the reference for timing -- and the grading seed in
tilelab-autograder.json, none of which students see). Gradescope unpacks it into
/autograder/source, runs setup.sh once when it builds the image, and copies run_autograder to
/autograder/run_autograder; that script finds the kit and /autograder's folders from its own
place, so it runs the same in a test's copy of the layout.

PrairieLearn: the question's `entrypoint` runs the kit's launcher directly (PrairieLearn execs it,
no shell), which grades /grade/student and writes /grade/results/results.json in PrairieLearn's
format. PrairieLearn mounts the job over all of /grade, so the prepared build lives in the kit
(`<kit>/build/autograder`, made when the image is built), never under /grade: only results.json
is written there.

Both: `prepare` configures the build and compiles everything but the student's file -- the
datasets, the emulator, and each graded stage's runners with the reference solution standing in
for the submission, at the very path grading puts the student's file -- so grading compiles and
links only that file. Whatever happens, a results file is written: a broken submission gets a
score of 0 and a message.
"""

from __future__ import annotations

import json
import os
import stat
import traceback
import zipfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from .. import ROOT
from . import release
from ..run import submission as submission_mod
from ..score import quiz
from ..specs import seed as seed_mod, spec
from ..report import formats
from ..specs.contract import ExitCode
from ..grading import implementation
from ..grading.options import GradeOptions, resolve_backend
from ..report.model import GradeReport
from ..run.tree import Tree

CONFIG = "tilelab-autograder.json"
BUILD = ROOT / "build" / "autograder"     # the prepared build: inside the kit, outside /grade
SOURCE = "submission-src"                 # where implementation.grade puts the student's files in a build


def platform_paths(fmt: str) -> dict[str, Path]:
    """Where the platform puts the submission and reads the results: its format's recipe
    (report/formats: Platform)."""
    return formats.get(fmt).platform.paths()


@dataclass
class AutograderConfig:
    stages: list[str] = field(default_factory=list)   # empty: every stage found in the submission
    seed: str = ""                                    # the hidden datasets' seed; empty: none
    backend: str = "auto"
    perf_basis: str = "auto"                          # gpu | model | auto (GradeOptions)
    hidden_visibility: str = formats.RenderOptions.hidden_visibility
    # The graded questions' verdicts: shown once the due date has passed, so resubmitting cannot
    # read off which answers are right, and only the first `question_attempts` different sets of
    # answers a student hands in are graded (quiz.attempt; 0: every set). Until then nothing about
    # a question is in any field the student sees (formats.common.student_view); PrairieLearn,
    # which has no per-test visibility, leaves them out of its results unless this is "visible".
    # docs/instructor.md.
    question_visibility: str = formats.RenderOptions.question_visibility
    question_attempts: int = 3
    timeout: float = 1200                             # per stage, build and checks each
    starter_level: str = "guided"                     # the starters in the zip's kit (starter.py): guided | bare

    def __post_init__(self):
        # tilelab-autograder.json may hold a number or text: one form, the text (seed.py); a list,
        # a float or true is refused here, when the zip is made, not when a student submits.
        self.seed = seed_mod.text(self.seed) or ""

    @classmethod
    def load(cls, root: Path = ROOT) -> "AutograderConfig":
        p = root / CONFIG
        if not p.exists():
            return cls()
        d = json.loads(p.read_text())
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def overridden(self, **given) -> "AutograderConfig":
        """This config with the options given on the command line (None: not given) in place."""
        return replace(self, **{k: v for k, v in given.items() if v is not None})


def _failure(name: str, exc: BaseException, backend: str) -> GradeReport:
    msg = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return GradeReport(name, "submission", backend, status="error",
                       message=f"the autograder failed; tell your instructor: {msg}")


def student_of(submission: Path) -> str | None:
    """The student's e-mail from Gradescope's submission_metadata.json (beside submission/), whose
    quiz code (quiz.code_for) the graded questions use; None where there is none (PrairieLearn)."""
    meta = Path(submission).parent / "submission_metadata.json"
    try:
        users = json.loads(meta.read_text()).get("users") or []
        return str(users[0].get("email") or users[0].get("sid") or "") or None
    except (OSError, ValueError, AttributeError, IndexError):
        return None


def variant_code(submission: Path) -> str | None:
    """The quiz code of the PrairieLearn variant being graded (quiz.variant_code), from the
    variant_seed PrairieLearn writes to /grade/data/data.json (beside /grade/student); None where
    there is none (Gradescope, a local run). PrairieLearn, not the student, writes that file, so the
    numbers graded are the variant's whatever code answers.toml names: one shared answers.toml no
    longer fits everybody, and each new variant (one per graded attempt) draws new numbers."""
    data = Path(submission).parent / "data" / "data.json"
    try:
        seed = json.loads(data.read_text()).get("variant_seed")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        return None
    return quiz.variant_code(seed)


def earlier_answers(submission: Path) -> dict[str, list[dict]]:
    """Per stage, the answers graded in the student's earlier submissions, oldest first: Gradescope's
    submission_metadata.json lists them (previous_submissions) with the results.json each wrote,
    whose extra_data holds what was graded (write_results)."""
    meta = Path(submission).parent / "submission_metadata.json"
    out: dict[str, list[dict]] = {}
    try:
        prev = json.loads(meta.read_text()).get("previous_submissions") or []
    except (OSError, ValueError, AttributeError):
        return out
    def when(p):
        return str(p.get("submission_time", "")) if isinstance(p, dict) else ""
    for p in sorted((p for p in prev if isinstance(p, dict)), key=when):
        graded = ((p.get("results") or {}).get("extra_data") or {}).get("tilelab_answers") or {}
        for stage, rec in graded.items() if isinstance(graded, dict) else ():
            if isinstance(rec, dict):
                out.setdefault(stage, []).append(rec)
    return out


def grade_submission(submission: Path, build: Path, cfg: AutograderConfig) -> GradeReport:
    opts = GradeOptions(stages=cfg.stages or None, submission=submission, name="submission", impl="submission",
                        student=student_of(submission), quiz_code=variant_code(submission),
                        earlier_answers=earlier_answers(submission), question_attempts=cfg.question_attempts,
                        backend=cfg.backend, perf_basis=cfg.perf_basis, hidden=bool(cfg.seed), seed=cfg.seed or None,
                        build_dir=Path(build).resolve(), build_timeout=cfg.timeout, check_timeout=cfg.timeout,
                        isolate_network=True)
    try:
        return implementation.grade(opts)
    except Exception as e:  # the results file must still be written
        return _failure("submission", e, cfg.backend)


def write_results(report: GradeReport, results: Path, fmt: str, cfg: AutograderConfig) -> Path:
    text = formats.render(report, fmt, formats.RenderOptions(cfg.hidden_visibility, cfg.question_visibility))
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(text)
    return results


def autograde(fmt: str = "gradescope", submission: Path | None = None, results: Path | None = None,
              build: Path | None = None, cfg: AutograderConfig | None = None) -> tuple[GradeReport, Path]:
    where = platform_paths(fmt)
    cfg = cfg or AutograderConfig.load()
    report = grade_submission(Path(submission or where["submission"]), Path(build or BUILD), cfg)
    return report, write_results(report, Path(results or where["results"]), fmt, cfg)


def prepare(build: Path = BUILD, cfg: AutograderConfig | None = None) -> int:
    """Configure and build, once (setup.sh, the image's build), everything grading a submission
    needs but the student's file: the reference solution of each graded stage stands in for it at
    <build>/submission-src, where implementation.grade puts the student's files, so the configure that
    grading repeats changes nothing and the build recompiles only that file."""
    cfg = cfg or AutograderConfig.load()
    build = Path(build).resolve()
    stages = cfg.stages or [s.id for s in spec.load_all(ROOT)]
    backend = resolve_backend(cfg.backend)
    tree = Tree(build)
    try:
        mat = submission_mod.materialize(ROOT / "solutions", build / SOURCE, stages)
    except (OSError, submission_mod.SubmissionError) as e:
        print(f"tilelab: no reference solutions to prepare with ({e}); only the shared parts are built")
        mat = None
    if not tree.configure([], mat.root if mat and mat.stages else None, cfg.seed or None, backend).ok:
        print((tree.logs / "configure.log").read_text()[-4000:])
        return ExitCode.ERROR
    targets = [f"datasets-{sid}" for sid in stages]
    targets += [t for sid in (mat.stages if mat else []) for t in tree.runner_targets("submission", sid, backend)]
    b = tree.build_targets(targets, "prepare")
    print(f"tilelab: prepared {build} for {', '.join(stages)} on {backend} "
          f"({'ok' if b.ok else 'build failed, see ' + str(tree.logs)})")
    return ExitCode.PASS if b.ok else ExitCode.ERROR


def _add(z: zipfile.ZipFile, arcname: str, text: str, executable: bool = False) -> None:
    info = zipfile.ZipInfo(arcname)
    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, text)


def _starter_at_level(root: Path, name: str, level: str) -> bytes | None:
    """starter/<stage>/matmul.cu at the configured level (the file handed to students, e.g. as a
    PrairieLearn question's clientFilesQuestion/matmul.cu); None for every other file."""
    parts = Path(name).parts
    sol = root / "solutions" / parts[1] / "matmul.cu" if len(parts) == 3 and parts[0] == "starter" else None
    if level == "guided" or parts[-1] != "matmul.cu" or sol is None or not sol.exists():
        return None
    from ..specs import starter
    return starter.make_starter(sol.read_text(), str(sol.relative_to(root)), level).encode()


def make_zip(out: Path, cfg: AutograderConfig, root: Path = ROOT) -> list[str]:
    """The Gradescope autograder zip; returns the names it holds."""
    known = {s.id for s in spec.load_all(root)}
    bad = [s for s in cfg.stages if s not in known]
    if bad:
        raise ValueError(f"unknown stage(s) {bad}; stages are {sorted(known)}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text, executable in formats.get("gradescope").platform.files:
            _add(z, name, text, executable=executable)
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
            z.writestr(info, _starter_at_level(root, name, cfg.starter_level) or (root / name).read_bytes())
        return z.namelist()
