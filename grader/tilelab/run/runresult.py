"""The runner's result object (grader/contract.toml's result schema, docs/grading.md "The result object") as typed,
read-only data. A result file is parsed once, by `Result.parse`, where it is read (results.py) or
where a report is loaded (model.py); everything after that -- scoring, metrics, diagnoses, every
output format -- reads these objects, never the JSON.

Parsing never raises: a field of the wrong type reads as absent (a result file may have been
written by code under test, see results.disowned), and `raw` keeps the document as it was, so
grade.json round-trips it unchanged."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


def num(v: Any) -> float | None:
    """A JSON number, or the runner's spellings of non-finite ones ("nan", "inf", "-inf")."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if v in ("nan", "inf", "-inf"):
        return float(v)
    return None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _obj(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _ranges(v: Any) -> tuple[tuple[int, int], ...]:
    return tuple((a, b) for a, b in (x for x in _list(v) if isinstance(x, list) and len(x) == 2)
                 if _int(a) is not None and _int(b) is not None)


@dataclass(frozen=True)
class WrongElement:
    row: int
    col: int
    expected: float | None
    actual: float | None
    allowed: float | None

    @classmethod
    def parse(cls, d: dict) -> "WrongElement":
        return cls(_int(d.get("row")) or 0, _int(d.get("col")) or 0, num(d.get("expected")),
                   num(d.get("actual")), num(d.get("allowed")))


@dataclass(frozen=True)
class WrongMap:
    """Where P was wrong, downsampled to at most 64 x 64 cells (docs/grading.md, `wrong_map`):
    cell (i, j) covers rows [i*cell_rows, (i+1)*cell_rows) and the columns likewise; each cell is
    '0' (right), '1' (some element wrong) or '2' (some element never written: NaN or Inf)."""
    cell_rows: int
    cell_cols: int
    cells: tuple[str, ...]

    @classmethod
    def parse(cls, d: dict) -> "WrongMap | None":
        cells = tuple(r for r in _list(d.get("rows")) if isinstance(r, str) and r and set(r) <= {"0", "1", "2"})
        cr, cc = _int(d.get("cell_rows")), _int(d.get("cell_cols"))
        if not cells or not cr or not cc or cr < 1 or cc < 1 or len({len(r) for r in cells}) != 1:
            return None
        return cls(cr, cc, cells)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.cells), len(self.cells[0])


@dataclass(frozen=True)
class Comparison:
    """One comparison of a P with the reference: `kernel`, `host`, `fresh_inputs`, `library_check`."""
    passed: bool
    checked: int | None = None
    wrong: int | None = None
    not_finite: int = 0
    max_abs_error: float | None = None
    rel_fro_error: float | None = None
    first_wrong: tuple[WrongElement, ...] = ()
    wrong_rows: tuple[tuple[int, int], ...] = ()
    wrong_cols: tuple[tuple[int, int], ...] = ()
    wrong_tiles: tuple[tuple[int, int], ...] = ()
    wrong_tile_count: int = 0
    tile: int | None = None
    wrong_map: WrongMap | None = None
    timing: dict[str, float] = field(default_factory=dict)   # host only: its steps timed alone (ms)
    values_withheld: bool = False   # a hidden dataset's: where P is wrong, never a value (docs/grading.md)

    @classmethod
    def parse(cls, v: Any) -> "Comparison | None":
        if not isinstance(v, dict):
            return None
        return cls(v.get("pass", True) is True, _int(v.get("checked")), _int(v.get("wrong")),
                   _int(v.get("not_finite")) or 0, num(v.get("max_abs_error")), num(v.get("rel_fro_error")),
                   tuple(WrongElement.parse(w) for w in _list(v.get("first_wrong")) if isinstance(w, dict)),
                   _ranges(v.get("wrong_rows")), _ranges(v.get("wrong_cols")), _ranges(v.get("wrong_tiles")),
                   _int(v.get("wrong_tile_count")) or 0, _int(v.get("tile")),
                   WrongMap.parse(v["wrong_map"]) if isinstance(v.get("wrong_map"), dict) else None,
                   {k: n for k, x in _obj(v.get("timing")).items() if (n := num(x)) is not None},
                   v.get("values_withheld") is True)


@dataclass(frozen=True)
class Finding:
    """One thing a backend's analysis found: the emulator, compute-sanitizer or the guard zones."""
    kind: str
    file: str = ""
    line: int | None = None
    message: str = ""
    hint_code: str = ""
    count: int = 1
    function: str = ""
    advice: str = ""                    # a warning's: what to change (findings carry the analysis's hint)

    @classmethod
    def parse(cls, d: dict) -> "Finding":
        return cls(_str(d.get("kind")) or "finding", _str(d.get("file")), _int(d.get("line")),
                   _str(d.get("message")), _str(d.get("hint_code")), _int(d.get("count")) or 1,
                   _str(d.get("function")), _str(d.get("advice")))

    @property
    def where(self) -> str:
        """'matmul.cu:38', or '' when the finding names no line."""
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.file and self.line else ""


@dataclass(frozen=True)
class Analysis:
    """`emulator`, `guard` or `sanitizer`: what a backend found, each finding failing the check;
    warnings (the emulator's: a duplicate store of equal values, shared memory read unwritten
    where it reaches no stored element) fail nothing and are shown beside the verdict."""
    findings: tuple[Finding, ...] = ()
    hint_code: str = ""
    hint: str = ""
    message: str = ""
    tool: str = ""                      # sanitizer only
    warnings: tuple[Finding, ...] = ()

    @classmethod
    def parse(cls, v: Any) -> "Analysis | None":
        if not isinstance(v, dict):
            return None
        return cls(tuple(Finding.parse(f) for f in _list(v.get("findings")) if isinstance(f, dict)),
                   _str(v.get("hint_code")), _str(v.get("hint")), _str(v.get("message")), _str(v.get("tool")),
                   tuple(Finding.parse(f) for f in _list(v.get("warnings")) if isinstance(f, dict)))


@dataclass(frozen=True)
class Occupancy:
    active_blocks_per_sm: int | None = None
    active_threads_per_sm: int | None = None
    fraction: float | None = None
    limits: dict[str, int] = field(default_factory=dict)   # blocks per SM each resource allows
    binding_limit: str = ""

    @classmethod
    def parse(cls, v: Any) -> "Occupancy | None":
        if not isinstance(v, dict):
            return None
        limits = {k: x for k, x in _obj(v.get("limits")).items() if _int(x) is not None}
        return cls(_int(v.get("active_blocks_per_sm")), _int(v.get("active_threads_per_sm")),
                   num(v.get("fraction")), limits, _str(v.get("binding_limit")))


@dataclass(frozen=True)
class Launch:
    launches: int | None = None
    grid: tuple[int, ...] = ()
    block: tuple[int, ...] = ()
    dynamic_shared_bytes: int = 0
    registers_per_thread: int | None = None      # the compiled kernel's attributes
    static_shared_bytes: int | None = None
    local_bytes_per_thread: int | None = None
    occupancy: Occupancy | None = None

    @classmethod
    def parse(cls, v: Any) -> "Launch | None":
        if not isinstance(v, dict):
            return None
        k = _obj(v.get("kernel"))
        dims = lambda x: tuple(i for i in _list(x) if _int(i) is not None)  # noqa: E731
        return cls(_int(v.get("launches")), dims(v.get("grid")), dims(v.get("block")),
                   _int(v.get("dynamic_shared_bytes")) or 0, _int(k.get("registers_per_thread")),
                   _int(k.get("static_shared_bytes")), _int(k.get("local_bytes_per_thread")),
                   Occupancy.parse(v.get("occupancy")))

    @property
    def shared_bytes(self) -> int | None:
        """Shared memory per block: static plus dynamic; None when the kernel's attributes are unknown."""
        return None if self.static_shared_bytes is None else self.static_shared_bytes + self.dynamic_shared_bytes


@dataclass(frozen=True)
class ImplTiming:
    median_ms: float | None = None
    gflops: float | None = None
    pct_of_peak: float | None = None
    runs: int | None = None
    model: dict = field(default_factory=dict)   # the count build's figures (docs/performance.md, "The model")

    @classmethod
    def parse(cls, v: Any) -> "ImplTiming":
        v = _obj(v)
        return cls(num(v.get("median_ms")), num(v.get("gflops")), num(v.get("pct_of_peak")), _int(v.get("runs")),
                   _obj(v.get("model")))


@dataclass(frozen=True)
class Timing:
    impls: dict[str, ImplTiming] = field(default_factory=dict)   # the implementation, reference, previous, cublas
    ratio_to_reference: float | None = None
    ratio_to_previous: float | None = None
    ratio_to_cublas: float | None = None
    meaningful: bool | None = None
    basis: str = ""            # "model": the times are the performance model's, from the emulator's counts

    @classmethod
    def parse(cls, v: Any) -> "Timing | None":
        if not isinstance(v, dict) or not v:
            return None
        m = v.get("meaningful")
        return cls({k: ImplTiming.parse(x) for k, x in _obj(v.get("impls")).items()},
                   num(v.get("ratio_to_reference")), num(v.get("ratio_to_previous")),
                   num(v.get("ratio_to_cublas")), m if isinstance(m, bool) else None, _str(v.get("basis")))

    def ratio(self, key: str) -> float | None:
        """A ratio by its result key (stage.toml's performance ratio_key)."""
        return {"ratio_to_reference": self.ratio_to_reference, "ratio_to_previous": self.ratio_to_previous,
                "ratio_to_cublas": self.ratio_to_cublas}.get(key)

    def gflops(self, impl: str) -> float | None:
        return self.impls[impl].gflops if impl in self.impls else None


@dataclass(frozen=True)
class Result:
    """One check of one dataset, as the runner (or results.synthesize) reported it."""
    verdict: str
    stage: str = ""
    impl: str = ""
    backend: str = ""
    dataset: str = ""
    check: str = ""
    exit_code: int | None = None
    message: str = ""
    hint_code: str = ""
    hint: str = ""
    shape: tuple[int, int, int] | None = None       # J, K, L
    kernel: Comparison | None = None
    host: Comparison | None = None
    fresh_inputs: Comparison | None = None
    inputs_unchanged: bool | None = None
    launch: Launch | None = None
    timing: Timing | None = None
    device: dict = field(default_factory=dict)
    emulator: Analysis | None = None
    guard: Analysis | None = None
    sanitizer: Analysis | None = None
    synthesized: bool = False
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def parse(cls, d: dict) -> "Result":
        """The result object of a parsed JSON document (see the module's contract)."""
        s = _obj(d.get("shape"))
        shape = tuple(_int(s.get(k)) for k in "JKL")
        iu = d.get("inputs_unchanged")
        return cls(_str(d.get("verdict")) or "crash", _str(d.get("stage")), _str(d.get("impl")),
                   _str(d.get("backend")), _str(d.get("dataset")), _str(d.get("check")), _int(d.get("exit_code")),
                   _str(d.get("message")), _str(d.get("hint_code")), _str(d.get("hint")),
                   shape if None not in shape else None,   # type: ignore[arg-type]
                   Comparison.parse(d.get("kernel")), Comparison.parse(d.get("host")),
                   Comparison.parse(d.get("fresh_inputs")), iu if isinstance(iu, bool) else None,
                   Launch.parse(d.get("launch")), Timing.parse(d.get("timing")), _obj(d.get("device")),
                   Analysis.parse(d.get("emulator")), Analysis.parse(d.get("guard")),
                   Analysis.parse(d.get("sanitizer")), d.get("synthesized") is True, d)

    @classmethod
    def of(cls, v: "Result | dict | None") -> "Result | None":
        """v itself when it is already parsed; the one entry point for code handed either."""
        return v if isinstance(v, Result) or v is None else cls.parse(v)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def analyses(self) -> tuple[Analysis, ...]:
        """The emulator's, compute-sanitizer's and the guard zones' reports, in that order."""
        return tuple(a for a in (self.emulator, self.sanitizer, self.guard) if a is not None)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings of the first analysis that has any (the order of `analyses`)."""
        return next((a.findings for a in self.analyses if a.findings), ())

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Every analysis's warnings: things worth changing that cost no points."""
        return tuple(w for a in self.analyses for w in a.warnings)

    @property
    def comparisons(self) -> dict[str, Comparison]:
        """The failed and passed comparisons by their result key, kernel first."""
        return {k: c for k, c in (("kernel", self.kernel), ("host", self.host),
                                  ("fresh_inputs", self.fresh_inputs)) if c is not None}

    @property
    def shape_text(self) -> str:
        return "x".join(map(str, self.shape)) if self.shape else ""

    @property
    def size(self) -> float:
        """J*K*L, for choosing the smallest dataset that shows a problem (inf when unknown)."""
        return math.prod(self.shape) if self.shape else math.inf
