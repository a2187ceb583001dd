"""Load and validate assignments/<stage>/stage.toml, the one spec of a stage.

This module is the only reader of stage.toml: it checks every key, type, default and bound
(docs/stage-spec.md) and names the file, the key and the allowed values when one is wrong.
Everything else reads what it resolved: Python through `Stage`, CMake and the C++ runner through
the files `tilelab.specs.codegen` writes at configure time (`resolved(stage)` is the C++ side's JSON,
every default filled in).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import ROOT
from .compat import tomllib

APIS = ("square", "rect")
# gridDim.y is at most 65,535 blocks, and every kernel of the kit puts the rows of P on y: the
# handouts promise J <= 65,535 x the rows of P one block covers (the stage's `tile`), and no
# dataset may ask for more (docs/stage-spec.md).
MAX_GRID_Y = 65535
DISTRIBUTIONS = ("normal", "uniform", "integer", "wide")
PRECISIONS = ("float32", "tf32")
THREADS = ("element", "row-or-column")
BASES = ("reference", "cublas")
UNEARNABLE = ("exclude", "keep")
# "perf": timed only, not a correctness check; "large": left out of the emulator's race build.
TAGS = ("perf", "large")
TIMEOUTS = {"correct": 60, "perf": 300}  # seconds per run of the runner, by check
# compute-sanitizer's tools (TilelabSanitizer.cmake registers one check per tool and dataset).
SANITIZER_TOOLS = ("memcheck", "synccheck", "initcheck", "racecheck")
# racecheck instruments every shared-memory access (about 10^4 times slower): its datasets are at
# most this large (Dataset.cost_size). Without [sanitizer] the tools aim at a dataset near
# SANITIZER_TARGET_SIZE (_default_sanitizer_dataset).
RACECHECK_MAX_SIZE = 256
SANITIZER_TARGET_SIZE = 129


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

    @property
    def cost_size(self) -> int:
        """The side of the cube with as many multiply-adds as J x K x L (rounded up): what an
        emulated or sanitized run of it costs (1x2048x1 is tiny)."""
        work = self.J * self.K * self.L
        n = round(work ** (1 / 3))
        while n ** 3 < work:
            n += 1
        return n


@dataclass(frozen=True)
class Sanitizer:
    """[sanitizer]: the public datasets compute-sanitizer's checks run on (the GPU backend;
    TilelabSanitizer.cmake). A finding there withholds that dataset's correctness points, as the
    emulator's ASan and race builds do on theirs. Partial tiles must exist on them, or the edge
    threads whose bugs these tools are for never run (issue #40, item 3)."""
    datasets: tuple[str, ...]   # memcheck, synccheck, initcheck
    racecheck: tuple[str, ...]  # racecheck: each of cost size <= RACECHECK_MAX_SIZE

    def datasets_for(self, tool: str) -> tuple[str, ...]:
        return self.racecheck if tool == "racecheck" else self.datasets


@dataclass(frozen=True)
class Hidden:
    """[hidden]: every size is m * q with q uniform in [ceil(min / m), floor(max / m)] (m =
    multiple_of), redrawn while it is a multiple of avoid_multiple_of (0: no restriction)."""
    rule: str
    count: int
    min: int
    max: int
    avoid_multiple_of: int = 0
    multiple_of: int = 1
    distribution: str = "normal"


@dataclass(frozen=True)
class Performance:
    dataset: str
    full_credit_ratio: float
    zero_credit_ratio: float
    basis: str = "reference"  # the speed is a ratio to the stage's reference, or to cuBLAS FP32
    min_runs: int = 30        # timing: at least this many interleaved runs ...
    max_runs: int = 200       # ... until the standard error is under target_rel_stderr of the mean
    target_rel_stderr: float = 0.01
    model: ModelPerformance | None = None  # [performance.model]: the check from the emulator's counts
    # Performance points only for a kernel that is correct and safe on every dataset of the stage
    # (scoring.py); false: the timed (or modelled) check's own verified result is enough.
    requires_all_correct: bool = True

    @property
    def ratio_key(self) -> str:
        """The runner's timing field the thresholds apply to."""
        return "ratio_to_cublas" if self.basis == "cublas" else "ratio_to_reference"


@dataclass(frozen=True)
class ModelPerformance:
    """[performance.model]: the performance check graded from the emulator's counts (the count
    build, docs/performance.md): the modelled time of the kernel on the shape given, as a ratio to the
    stage's reference counted the same way, with the timed check's linear rule."""
    shape: tuple[int, int, int]
    full_credit_ratio: float
    zero_credit_ratio: float
    book: str = ""  # the book's prediction, shown beside the counts (e.g. "CGMA 16 with 16x16 tiles")
    book_cgma: float | None = None
    caveat: str = ""  # where the model errs most for this stage's kernels, told with the modelled ratio

    @property
    def check_name(self) -> str:
        """The dataset part of the check's name: <impl>.<stage>.<J>x<K>x<L>.perf-model."""
        return "x".join(str(n) for n in self.shape)


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
class TraceExample:
    shape: tuple[int, int, int]   # J, K, L: M is J x K, N is K x L
    caption: str


@dataclass(frozen=True)
class Trace:
    """[trace]: the book's figure `tilelab trace` shows on the student's kernel (tilelab.commands.trace)."""
    kind: str                     # "map": which thread stores which element (untiled); "tiled": the phase table
    bounded: bool                 # the book's kernel checks bounds (03, 04) or not (02)
    examples: tuple[TraceExample, ...]


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
    timeouts: dict[str, int] = field(default_factory=lambda: dict(TIMEOUTS))
    previous: str = ""
    # The stage `./tilelab starter --from-previous` begins from: by default the one before it in the
    # order; a stage numbered out of the book's order names its own (08 reworks 01-basic's kernel).
    begins_from: str = ""
    requires_shared_memory: bool = False
    # The arithmetic the stage asks for, which picks the correctness rule (docs/grading.md):
    # "float32", or "tf32" (07-tensor-cores: inputs rounded to 10 mantissa bits, float32 sums).
    precision: str = "float32"
    # What one thread of the stage's kernels computes: an element of P (01-07), or a row or a
    # column of it (08: launch_matmul picks one thread per row when J >= L, per column otherwise).
    # The judge says from the launch whether the grid covered P in those terms (grid-too-small).
    threads: str = "element"
    # The most global loads of M and N (4-byte floats the lanes asked for, as the emulator's count
    # build counts them) per multiply-add of the product, on [performance.model]'s shape: what tiles
    # in shared memory promise (untiled 2, tiles of width T 2/T). None: no limit.
    max_global_loads_per_fma: float | None = None
    width_multiple: int = 1
    trace: Trace | None = None
    # None only while load() builds the stage; load() always fills it in (the default: _sanitizer).
    sanitizer: Sanitizer | None = None
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


_MISSING = object()


def _model(table, api: str, where: str) -> ModelPerformance:
    t = _Table(table, where)
    shape = t.get("shape", list)
    if len(shape) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in shape):
        raise SpecError(f"{where}: 'shape' must be [J, K, L] of positive integers, got {shape!r}")
    # The modelled run is a checked run too: its shape is of the stage's own class, so a kernel
    # that is right only on squares (K and L confused, the grid's x and y swapped) fails it there.
    if api == "square" and len(set(shape)) != 1:
        raise SpecError(f"{where}: 'shape' must be square (J = K = L) in a square stage, got {shape!r}")
    if api == "rect" and len(set(shape)) != 3:
        raise SpecError(f"{where}: 'shape' of a rect stage must have J, K and L all different, so a kernel "
                        f"that confuses two of them cannot pass it; got {shape!r}")
    out = ModelPerformance(tuple(shape), t.get("full_credit_ratio", float), t.get("zero_credit_ratio", float),
                           t.get("book", str, ""), t.get("book_cgma", float, None), t.get("caveat", str, ""))
    t.done()
    if not 0 <= out.zero_credit_ratio < out.full_credit_ratio:
        raise SpecError(f"{where}: need 0 <= zero_credit_ratio < full_credit_ratio")
    return out


def _trace(table, where: str) -> Trace:
    t = _Table(table, where)
    kind = t.get("kind", str, choices=("map", "tiled"))
    bounded = t.get("bounded", bool)
    examples = []
    for e in t.get("example", list):
        et = _Table(e, f"{where[:-1]}.example]")
        shape = et.get("shape", list)
        if len(shape) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 8 for x in shape):
            raise SpecError(f"{where[:-1]}.example]: 'shape' must be [J, K, L] of integers 1..8 (a figure), got {shape!r}")
        examples.append(TraceExample(tuple(shape), et.get("caption", str)))
        et.done()
    if not examples:
        raise SpecError(f"{where}: needs at least one [[trace.example]]")
    t.done()
    return Trace(kind, bounded, tuple(examples))


class _Table:
    """One TOML table being read: each key is taken once, with its type and bound checked, and
    `done()` refuses the keys nobody took (a typo is an error, never a silent default)."""

    def __init__(self, table, where: str):
        if not isinstance(table, dict):
            raise SpecError(f"{where}: must be a table, got {table!r}")
        self.table, self.where, self.taken = table, where, set()

    def get(self, key: str, kind, default=_MISSING, *, at_least=None, choices=None):
        self.taken.add(key)
        if key not in self.table:
            if default is _MISSING:
                raise SpecError(f"{self.where}: missing key '{key}'")
            return default
        value = self.table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise SpecError(f"{self.where}: '{key}' must be {kind.__name__}, got {value!r}")
        if choices is not None and value not in choices:
            raise SpecError(f"{self.where}: '{key}' must be one of {choices}, got {value!r}")
        if at_least is not None and value < at_least:
            raise SpecError(f"{self.where}: '{key}' must be >= {at_least}, got {value!r}")
        return value

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.taken)
        if unknown:
            raise SpecError(f"{self.where}: unknown key(s) {unknown}; keys are {sorted(self.taken)}")


def _dataset(entry, api: str, multiple: int, where: str) -> Dataset:
    t = _Table(entry, where)
    name = t.get("name", str)
    t.where = where = f"{where} '{name}'"
    if api == "square":
        J = K = L = t.get("width", int)
    else:
        shape = t.get("shape", list)
        if len(shape) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) for x in shape):
            raise SpecError(f"{where}: 'shape' must be [J, K, L], got {shape!r}")
        J, K, L = shape
    if min(J, K, L) < 1:
        raise SpecError(f"{where}: sizes must be >= 1, got {J}x{K}x{L}")
    if any(x % multiple for x in (J, K, L)):
        raise SpecError(f"{where}: sizes must be multiples of {multiple}, got {J}x{K}x{L}")
    dist = t.get("distribution", str, choices=DISTRIBUTIONS)
    seed = t.get("seed", int, at_least=0)
    tags = t.get("tags", list, [])
    for tag in tags:
        if tag not in TAGS:
            raise SpecError(f"{where}: tags must be among {TAGS}, got {tag!r}")
    t.done()
    return Dataset(name, J, K, L, dist, seed, tuple(tags))


def _hidden(table, where: str) -> Hidden:
    t = _Table(table, where)
    h = Hidden(rule=t.get("rule", str), count=t.get("count", int, at_least=1),
               min=t.get("min", int, at_least=1), max=t.get("max", int, at_least=1),
               avoid_multiple_of=t.get("avoid_multiple_of", int, 0, at_least=0),
               multiple_of=t.get("multiple_of", int, 1, at_least=1),
               distribution=t.get("distribution", str, "normal", choices=DISTRIBUTIONS))
    t.done()
    if h.max < h.min:
        raise SpecError(f"{where}: needs min <= max, got min = {h.min}, max = {h.max}")
    lo, hi = -(-h.min // h.multiple_of), h.max // h.multiple_of
    if lo > hi:
        raise SpecError(f"{where}: no multiple of multiple_of = {h.multiple_of} lies in [{h.min}, {h.max}]")
    # m * q mod a repeats with q every a steps: some size qualifies iff one of the first a does.
    # (None does, and drawing a size would never end: the runner redraws until one qualifies.)
    if h.avoid_multiple_of and not any((h.multiple_of * q) % h.avoid_multiple_of
                                       for q in range(lo, min(hi, lo + h.avoid_multiple_of) + 1)):
        raise SpecError(f"{where}: every multiple of multiple_of = {h.multiple_of} in [{h.min}, {h.max}] "
                        f"is also a multiple of avoid_multiple_of = {h.avoid_multiple_of}: no size can be drawn")
    return h


def _performance(table, names: list[str], api: str, where: str) -> Performance:
    t = _Table(table, where)
    p = Performance(dataset=t.get("dataset", str),
                    full_credit_ratio=t.get("full_credit_ratio", float),
                    zero_credit_ratio=t.get("zero_credit_ratio", float),
                    basis=t.get("basis", str, "reference", choices=BASES),
                    min_runs=t.get("min_runs", int, 30, at_least=1),
                    max_runs=t.get("max_runs", int, 200, at_least=1),
                    target_rel_stderr=t.get("target_rel_stderr", float, 0.01),
                    model=_model(table["model"], api, f"{where[:-1]}.model]") if "model" in table else None,
                    requires_all_correct=t.get("requires_all_correct", bool, True))
    t.taken.add("model")
    t.done()
    if p.dataset not in names:
        raise SpecError(f"{where}: dataset '{p.dataset}' is not defined; datasets are {names}")
    if not 0 <= p.zero_credit_ratio < p.full_credit_ratio:
        raise SpecError(f"{where}: need 0 <= zero_credit_ratio < full_credit_ratio")
    if p.max_runs < p.min_runs:
        raise SpecError(f"{where}: need min_runs <= max_runs, got {p.min_runs} and {p.max_runs}")
    if not 0 < p.target_rel_stderr < 1:
        raise SpecError(f"{where}: 'target_rel_stderr' must be in (0, 1), got {p.target_rel_stderr}")
    return p


def _points(table, where: str) -> Points:
    """[points], with unearnable and safety_penalty (docs/stage-spec.md)."""
    t = _Table(table, where)
    shares = [t.get(k, float, at_least=0) for k in ("public", "hidden", "host_function", "performance")]
    unearnable = t.get("unearnable", str, "exclude", choices=UNEARNABLE)
    t.taken.add("safety_penalty")
    penalty = table.get("safety_penalty", "dataset")
    if penalty == "dataset":
        penalty = None
    elif isinstance(penalty, bool) or not isinstance(penalty, (int, float)) or penalty < 0:
        raise SpecError(f"{where}: 'safety_penalty' must be \"dataset\" (all of the dataset's correctness "
                        f"points) or a number of points >= 0 per dataset, got {penalty!r}")
    else:
        penalty = float(penalty)
    questions = t.get("questions", float, 0.0, at_least=0)
    t.done()
    return Points(*shares, unearnable=unearnable, safety_penalty=penalty, questions=questions)


def _edges(d: Dataset) -> int:
    """How many of J, K, L are odd: not a multiple of any power-of-two tile, so partial tiles exist."""
    return sum(x % 2 for x in (d.J, d.K, d.L))


def _default_sanitizer_dataset(datasets: tuple[Dataset, ...], cap: int) -> str:
    """A stage without [sanitizer]: the correctness dataset not tagged large, of cost size at most
    cap (0: any), with the most odd sizes (edge threads and partial tiles) and, among those, the
    nearest SANITIZER_TARGET_SIZE."""
    ds = [d for d in datasets if not set(d.tags) & {"perf", "large"} and (not cap or d.cost_size <= cap)]
    if not ds:
        return ""
    return min(ds, key=lambda d: (-_edges(d), abs(d.cost_size - SANITIZER_TARGET_SIZE))).name


def _sanitizer(table, datasets: tuple[Dataset, ...], where: str) -> Sanitizer:
    """[sanitizer] (docs/stage-spec.md): lists of correctness datasets, racecheck's small enough.
    Without the table, or a key of it, the default rule picks one (_default_sanitizer_dataset);
    racecheck's default is `datasets` where they are small enough."""
    t = _Table(table, where)
    by_name = {d.name: d for d in datasets if "perf" not in d.tags}
    main = t.get("datasets", list, None)
    race = t.get("racecheck", list, None)
    t.done()
    for key, names in (("datasets", main), ("racecheck", race)):
        if names is None:
            continue
        if not names:
            raise SpecError(f"{where}: '{key}' names no dataset: give at least one")
        for n in names:
            if not isinstance(n, str) or n not in by_name:
                raise SpecError(f"{where}: '{key}': {n!r} is not a correctness dataset of the stage; "
                                f"they are {sorted(by_name)}")
        if len(set(names)) != len(names):
            raise SpecError(f"{where}: '{key}' names a dataset twice: {names}")
    if main is None:
        main = [n] if (n := _default_sanitizer_dataset(datasets, 0)) else []
    if race is None:
        race = [n for n in main if by_name[n].cost_size <= RACECHECK_MAX_SIZE] or (
            [n] if (n := _default_sanitizer_dataset(datasets, RACECHECK_MAX_SIZE)) else [])
    for n in race:
        if by_name[n].cost_size > RACECHECK_MAX_SIZE:
            raise SpecError(f"{where}: 'racecheck': '{n}' is too large for racecheck (about 10^4 times "
                            f"slower): its cost size (the cube root of J K L) is {by_name[n].cost_size}, "
                            f"at most {RACECHECK_MAX_SIZE}")
    return Sanitizer(tuple(main), tuple(race))


def _timeouts(table, where: str) -> dict[str, int]:
    t = _Table(table, where)
    out = {k: t.get(k, int, default, at_least=1) for k, default in TIMEOUTS.items()}
    t.done()
    return out


def load(path: Path) -> Stage:
    path = Path(path)
    where = str(path)
    try:
        with open(path, "rb") as f:
            doc = _Table(tomllib.load(f), where)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{where}: not valid TOML: {e}") from None
    s = _Table(doc.get("stage", dict), f"{where} [stage]")
    api = s.get("api", str, choices=APIS)
    multiple = s.get("width_multiple", int, 1, at_least=1)
    entries = doc.get("dataset", list)
    if not entries:
        raise SpecError(f"{where}: needs at least one [[dataset]]")
    datasets = tuple(_dataset(e, api, multiple, f"{where} [[dataset]]") for e in entries)
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise SpecError(f"{where}: dataset names must be unique: {names}")
    hidden = _hidden(doc.get("hidden", dict), f"{where} [hidden]") if "hidden" in doc.table else None
    doc.taken.add("hidden")
    tile = s.get("tile", int, 16, at_least=1)
    rows = MAX_GRID_Y * tile
    for d in datasets:
        if d.J > rows:
            raise SpecError(f"{where} [[dataset]] '{d.name}': J = {d.J} rows need more than {MAX_GRID_Y} blocks "
                            f"in the grid's y dimension (at most {rows} rows with tile {tile}): "
                            "the handouts promise no more")
    if hidden and hidden.max > rows:
        raise SpecError(f"{where} [hidden]: max = {hidden.max} is past the {rows} rows the grid's y "
                        f"dimension can cover ({MAX_GRID_Y} blocks)")

    stage = Stage(
        id=s.get("id", str),
        title=s.get("title", str),
        book=s.get("book", str, ""),
        api=api,
        host_function=s.get("host_function", bool, False),
        tile=tile,
        datasets=datasets,
        hidden=hidden,
        performance=_performance(doc.get("performance", dict), names, api, f"{where} [performance]"),
        points=_points(doc.get("points", dict), f"{where} [points]"),
        timeouts=_timeouts(doc.get("timeouts", dict, {}), f"{where} [timeouts]"),
        previous=s.get("previous", str, ""),
        begins_from=s.get("begins_from", str, ""),
        requires_shared_memory=s.get("requires_shared_memory", bool, False),
        precision=s.get("precision", str, "float32", choices=PRECISIONS),
        threads=s.get("threads", str, "element", choices=THREADS),
        max_global_loads_per_fma=s.get("max_global_loads_per_fma", float, None),
        width_multiple=multiple,
        trace=_trace(doc.table["trace"], f"{where} [trace]") if "trace" in doc.table else None,
        sanitizer=_sanitizer(doc.get("sanitizer", dict, {}), datasets, f"{where} [sanitizer]"),
        path=path,
    )
    doc.taken.add("trace")
    s.done()
    doc.done()
    _check_max_loads(stage, f"{where} [stage]")
    return stage


def tiled_loads_per_fma(shape: tuple[int, int, int], tile: int) -> float:
    """Global loads of M and N per multiply-add of a kernel with square tiles of width `tile`, each
    element loaded once per tile and the loads past the edges skipped: every tile row of M is
    loaded once per block column, every tile column of N once per block row."""
    J, K, L = shape
    return -(-L // tile) / L + -(-J // tile) / J


def _check_max_loads(stage: Stage, where: str) -> None:
    limit = stage.max_global_loads_per_fma
    if limit is None:
        return
    model = stage.performance.model
    if model is None:
        raise SpecError(f"{where}: 'max_global_loads_per_fma' is judged from the emulator's counts on "
                        "[performance.model]'s shape, and this stage has no [performance.model]")
    if not 0 < limit < 2:
        raise SpecError(f"{where}: 'max_global_loads_per_fma' must be in (0, 2): the untiled kernel loads 2 "
                        f"floats per multiply-add, so a limit of 2 or more catches nothing; got {limit!r}")
    need = tiled_loads_per_fma(model.shape, stage.tile)
    if limit < need:
        raise SpecError(f"{where}: 'max_global_loads_per_fma' = {limit} is below the {need:.4g} loads per "
                        f"multiply-add that tiles of {stage.tile} (the stage's tile) make on the model shape "
                        f"{list(model.shape)}: the stage's own kernel would fail it")


def resolved(stage: Stage) -> dict:
    """The stage as the C++ side reads it (generated/stages/<id>.json, written by tilelab.specs.codegen):
    every key of the schema with its default filled in, shapes as [J, K, L] whatever the api."""
    from .contract import SCHEMAS

    doc = asdict(stage)
    doc["datasets"] = [{"name": d.name, "shape": [d.J, d.K, d.L], "distribution": d.distribution,
                        "seed": d.seed, "tags": list(d.tags)} for d in stage.datasets]
    doc["path"] = str(stage.path) if stage.path else ""
    return {"schema": SCHEMAS["spec"], **doc}


def resolved_path(build: Path, stage_id: str) -> Path:
    """The resolved spec of a stage in a configured build tree: what the runner's and datagen's
    --spec take. tilelab.specs.codegen writes it into CMake's TILELAB_GENERATED (<build>/generated)."""
    return Path(build) / "generated" / "stages" / f"{stage_id}.json"


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
                raise SpecError(f"{s.path}: previous stage '{s.previous}' does not exist; stages are {sorted(by_id)}")
            if prev.api != s.api:
                raise SpecError(f"{s.path}: previous stage '{s.previous}' has api '{prev.api}', "
                                f"this stage '{s.api}': its reference cannot be timed on these shapes")
        if s.begins_from and s.begins_from not in by_id:
            raise SpecError(f"{s.path}: begins_from stage '{s.begins_from}' does not exist; stages are {sorted(by_id)}")
    return stages
