"""Load and validate assignments/<stage>/stage.toml, the one spec of a stage.

The schema is documented in docs/stage-spec.md; the C++ side (grader/src/spec.cpp) reads the same
file for dataset generation and timing parameters.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT

APIS = ("square", "rect")
# gridDim.y is at most 65,535 blocks, and every kernel of the kit puts the rows of P on y: the
# handouts promise J <= 65,535 x the rows of P one block covers (the stage's `tile`), and no
# dataset may ask for more (docs/stage-spec.md).
MAX_GRID_Y = 65535
DISTRIBUTIONS = ("normal", "uniform", "integer")


class SpecError(ValueError):
    """A stage.toml that does not follow the schema; the message names the file and the key."""


@dataclass(frozen=True)
class Dataset:
    name: str
    J: int
    K: int
    L: int
    distribution: str
    seed: int
    tags: tuple[str, ...] = ()

    @property
    def flops(self) -> int:
        return 2 * self.J * self.K * self.L


@dataclass(frozen=True)
class Hidden:
    rule: str
    count: int


@dataclass(frozen=True)
class Performance:
    dataset: str
    full_credit_ratio: float
    zero_credit_ratio: float
    basis: str = "reference"  # the speed is a ratio to the stage's reference, or to cuBLAS FP32

    @property
    def ratio_key(self) -> str:
        """The runner's timing field the thresholds apply to."""
        return "ratio_to_cublas" if self.basis == "cublas" else "ratio_to_reference"


UNEARNABLE = ("exclude", "keep")


@dataclass(frozen=True)
class Points:
    public: float
    hidden: float
    host_function: float
    performance: float
    # Points a backend cannot earn (performance on the CPU emulator, a dataset too large for it, a
    # check skipped for a missing tool): "exclude" leaves them out of the maximum, "keep" counts them.
    unearnable: str = "exclude"
    # What a memory-safety finding (ASan, race build, compute-sanitizer, guard zones) costs, per
    # dataset where it was found: None takes all of that dataset's correctness points, a number
    # takes that many (at most what the dataset earned), 0 takes nothing.
    safety_penalty: float | None = None
    # Shared equally by the stage's graded questions (questions.toml, answered in answers.toml).
    questions: float = 0.0

    @property
    def total(self) -> float:
        return self.public + self.hidden + self.host_function + self.performance + self.questions


@dataclass(frozen=True)
class Stage:
    id: str
    title: str
    book: str
    api: str
    host_function: bool
    tile: int
    datasets: tuple[Dataset, ...]
    hidden: Hidden | None
    performance: Performance
    points: Points
    timeouts: dict[str, int] = field(default_factory=dict)
    previous: str = ""
    requires_shared_memory: bool = False
    width_multiple: int = 1
    path: Path | None = None

    def dataset(self, name: str) -> Dataset:
        for d in self.datasets:
            if d.name == name:
                return d
        raise KeyError(name)

    @property
    def correctness_datasets(self) -> tuple[Dataset, ...]:
        """Public datasets checked for correctness (all but the performance-only ones)."""
        return tuple(d for d in self.datasets if "perf" not in d.tags)


def _need(table: dict, key: str, kind, where: str):
    if key not in table:
        raise SpecError(f"{where}: missing key '{key}'")
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise SpecError(f"{where}: '{key}' must be {kind.__name__}, got {value!r}")
    return value


def _dataset(entry: dict, api: str, multiple: int, where: str) -> Dataset:
    name = _need(entry, "name", str, where)
    where = f"{where} '{name}'"
    if api == "square":
        w = _need(entry, "width", int, where)
        J = K = L = w
    else:
        shape = _need(entry, "shape", list, where)
        if len(shape) != 3 or not all(isinstance(x, int) for x in shape):
            raise SpecError(f"{where}: 'shape' must be [J, K, L], got {shape!r}")
        J, K, L = shape
    if min(J, K, L) < 1:
        raise SpecError(f"{where}: sizes must be >= 1, got {J}x{K}x{L}")
    if any(x % multiple for x in (J, K, L)):
        raise SpecError(f"{where}: sizes must be multiples of {multiple}, got {J}x{K}x{L}")
    dist = _need(entry, "distribution", str, where)
    if dist not in DISTRIBUTIONS:
        raise SpecError(f"{where}: distribution must be one of {DISTRIBUTIONS}, got {dist!r}")
    tags = tuple(entry.get("tags", ()))
    return Dataset(name, J, K, L, dist, _need(entry, "seed", int, where), tags)


def _point_rules(pt: dict, where: str) -> dict:
    """[points] unearnable and safety_penalty (docs/stage-spec.md), validated."""
    known = {"public", "hidden", "host_function", "performance", "unearnable", "safety_penalty", "questions"}
    unknown = sorted(set(pt) - known)
    if unknown:
        raise SpecError(f"{where}: unknown key(s) {unknown}; keys are {sorted(known)}")
    unearnable = pt.get("unearnable", "exclude")
    if unearnable not in UNEARNABLE:
        raise SpecError(f"{where}: 'unearnable' must be one of {UNEARNABLE}, got {unearnable!r}")
    penalty = pt.get("safety_penalty", "dataset")
    if penalty == "dataset":
        penalty = None
    elif isinstance(penalty, bool) or not isinstance(penalty, (int, float)) or penalty < 0:
        raise SpecError(f"{where}: 'safety_penalty' must be \"dataset\" (all of the dataset's correctness "
                        f"points) or a number of points >= 0 per dataset, got {penalty!r}")
    else:
        penalty = float(penalty)
    questions = pt.get("questions", 0)
    if isinstance(questions, bool) or not isinstance(questions, (int, float)) or questions < 0:
        raise SpecError(f"{where}: 'questions' must be a number of points >= 0, got {questions!r}")
    return {"unearnable": unearnable, "safety_penalty": penalty, "questions": float(questions)}


def load(path: Path) -> Stage:
    path = Path(path)
    where = str(path)
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{where}: not valid TOML: {e}") from None
    s = _need(doc, "stage", dict, where)
    api = _need(s, "api", str, f"{where} [stage]")
    if api not in APIS:
        raise SpecError(f"{where} [stage]: api must be one of {APIS}, got {api!r}")
    multiple = s.get("width_multiple", 1)
    entries = _need(doc, "dataset", list, where)
    datasets = tuple(_dataset(e, api, multiple, f"{where} [[dataset]]") for e in entries)
    rows = MAX_GRID_Y * int(s.get("tile", 16))
    for d in datasets:
        if d.J > rows:
            raise SpecError(f"{where} [[dataset]] '{d.name}': J = {d.J} rows need more than {MAX_GRID_Y} blocks "
                            f"in the grid's y dimension (at most {rows} rows with tile {s.get('tile', 16)}): "
                            "the handouts promise no more")
    if isinstance(doc.get("hidden", {}).get("max"), int) and doc["hidden"]["max"] > rows:
        raise SpecError(f"{where} [hidden]: max = {doc['hidden']['max']} is past the {rows} rows the grid's y "
                        f"dimension can cover ({MAX_GRID_Y} blocks)")
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise SpecError(f"{where}: dataset names must be unique: {names}")

    p = _need(doc, "performance", dict, where)
    perf = Performance(
        _need(p, "dataset", str, f"{where} [performance]"),
        _need(p, "full_credit_ratio", float, f"{where} [performance]"),
        _need(p, "zero_credit_ratio", float, f"{where} [performance]"),
        p.get("basis", "reference"),
    )
    if perf.basis not in ("reference", "cublas"):
        raise SpecError(f"{where} [performance]: basis must be 'reference' or 'cublas', got {perf.basis!r}")
    if perf.dataset not in names:
        raise SpecError(f"{where} [performance]: dataset '{perf.dataset}' is not defined")
    if not 0 <= perf.zero_credit_ratio < perf.full_credit_ratio:
        raise SpecError(f"{where} [performance]: need 0 <= zero_credit_ratio < full_credit_ratio")

    hidden = None
    if "hidden" in doc:
        h = doc["hidden"]
        hidden = Hidden(_need(h, "rule", str, f"{where} [hidden]"),
                        _need(h, "count", int, f"{where} [hidden]"))

    pt = _need(doc, "points", dict, where)
    points = Points(*(float(_need(pt, k, float, f"{where} [points]"))
                      for k in ("public", "hidden", "host_function", "performance")),
                    **_point_rules(pt, f"{where} [points]"))

    return Stage(
        id=_need(s, "id", str, f"{where} [stage]"),
        title=_need(s, "title", str, f"{where} [stage]"),
        book=s.get("book", ""),
        api=api,
        host_function=bool(s.get("host_function", False)),
        tile=int(s.get("tile", 16)),
        datasets=datasets,
        hidden=hidden,
        performance=perf,
        points=points,
        timeouts=dict(doc.get("timeouts", {})),
        previous=s.get("previous", ""),
        requires_shared_memory=bool(s.get("requires_shared_memory", False)),
        width_multiple=int(multiple),
        path=path,
    )


def stage_dirs(root: Path = ROOT) -> list[Path]:
    """Every assignments/<stage>/ that holds a stage.toml, in stage order."""
    return sorted(p.parent for p in (root / "assignments").glob("*/stage.toml"))


def load_all(root: Path = ROOT) -> list[Stage]:
    stages = [load(d / "stage.toml") for d in stage_dirs(root)]
    by_id = {s.id: s for s in stages}
    for s in stages:
        if s.path and s.id != s.path.parent.name:
            raise SpecError(f"{s.path}: [stage] id '{s.id}' differs from its folder '{s.path.parent.name}'")
        if s.previous:
            prev = by_id.get(s.previous)
            if prev is None:
                raise SpecError(f"{s.path}: previous stage '{s.previous}' does not exist")
            if prev.api != s.api:
                raise SpecError(f"{s.path}: previous stage '{s.previous}' has api '{prev.api}', "
                                f"this stage '{s.api}': its reference cannot be timed on these shapes")
    return stages
