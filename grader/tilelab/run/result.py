"""The runner's result object (grader/result_schema.toml; docs/grading.md "The result object") as
typed, read-only data. The dataclasses are generated from the schema (specs/resultschema.py); this
module adds what is computed from their fields. A result file is parsed once, by `Result.parse`,
where it is read (ctest_results.py) or where a report is loaded (model.py); everything after that --
scoring, metrics, diagnoses, every output format -- reads these objects, never the JSON.

Parsing never raises: a field of the wrong type reads as absent (a result file may have been
written by code under test, see ctest_results.disowned), and `raw` keeps the document as it was, so
grade.json round-trips it unchanged."""

from __future__ import annotations

import math
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..specs import resultschema
from ..specs.resultschema import num

__all__ = ["num", "spans", "GRADING_ERROR", "Result", "Comparison", "WrongElement", "WrongMap", "Finding", "Analysis", "Launch",
           "KernelAttributes", "Occupancy", "Timing", "ImplTiming", "Progress", "Shape"]


# The verdict of a check that could not be judged for a reason that is not the submission's (the
# Python grader's own, given where results are read: ctest_results.py): the judge's own input was
# bad (its exit code bad_input) or it ended without a result. Never the student's crash; it earns
# nothing and tells the student to tell the instructor (docs/grading.md).
GRADING_ERROR = "grading_error"


class _WrongMap:
    """Cell (i, j) covers rows [i*cell_rows, (i+1)*cell_rows) and the columns likewise."""

    @staticmethod
    def _fix(kw: dict, doc: dict) -> dict | None:
        kw["cells"] = tuple(r for r in kw["cells"] if r and set(r) <= {"0", "1", "2"})
        cells, cr, cc = kw["cells"], kw["cell_rows"], kw["cell_cols"]
        if not cells or not cr or not cc or cr < 1 or cc < 1 or len({len(r) for r in cells}) != 1:
            return None
        return kw

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.cells), len(self.cells[0])


class _Finding:
    @property
    def where(self) -> str:
        """'matmul.cu:38', or '' when the finding names no line."""
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.file and self.line else ""


class _Launch:
    @property
    def registers_per_thread(self) -> int | None:
        return self.kernel.registers_per_thread if self.kernel else None

    @property
    def static_shared_bytes(self) -> int | None:
        return self.kernel.static_shared_bytes if self.kernel else None

    @property
    def local_bytes_per_thread(self) -> int | None:
        return self.kernel.local_bytes_per_thread if self.kernel else None

    @property
    def shared_bytes(self) -> int | None:
        """Shared memory per block: static plus dynamic; None when the kernel's attributes are unknown."""
        return None if self.static_shared_bytes is None else self.static_shared_bytes + self.dynamic_shared_bytes


class _Timing:
    @staticmethod
    def _fix(kw: dict, doc: dict) -> dict | None:
        return kw if doc else None   # {}: no timing

    def ratio(self, key: str) -> float | None:
        """A ratio by its result key (stage.toml's performance ratio_key)."""
        return {"ratio_to_reference": self.ratio_to_reference, "ratio_to_previous": self.ratio_to_previous,
                "ratio_to_cublas": self.ratio_to_cublas}.get(key)

    def gflops(self, impl: str) -> float | None:
        return self.impls[impl].gflops if impl in self.impls else None


class _Result:
    """`shape` reads as (J, K, L), or None unless all three are integers; `raw` is the document."""
    _extra = [("raw", dict, field(default_factory=dict, compare=False, repr=False))]

    @staticmethod
    def _fix(kw: dict, doc: dict) -> dict:
        s = kw["shape"]
        kw["shape"] = (s.J, s.K, s.L) if s is not None and None not in (s.J, s.K, s.L) else None
        kw["raw"] = doc
        return kw

    @classmethod
    def of(cls, v: "Result | dict | None") -> "Result | None":
        """v itself when it is already parsed; the one entry point for code handed either."""
        return v if isinstance(v, Result) or v is None else cls.parse(v)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def analyses(self) -> tuple[Any, ...]:
        """The emulator's, compute-sanitizer's and the guard zones' reports, in that order."""
        return tuple(a for a in (self.emulator, self.sanitizer, self.guard) if a is not None)

    @property
    def findings(self) -> tuple[Any, ...]:
        """The findings of the first analysis that has any (the order of `analyses`)."""
        return next((a.findings for a in self.analyses if a.findings), ())

    @property
    def warnings(self) -> tuple[Any, ...]:
        """Every analysis's warnings: things worth changing that cost no points."""
        return tuple(w for a in self.analyses for w in a.warnings)

    @property
    def comparisons(self) -> dict[str, Any]:
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


_CLASSES = resultschema.dataclasses({"Result": _Result, "WrongMap": _WrongMap, "Finding": _Finding,
                                     "Launch": _Launch, "Timing": _Timing}, __name__)
if TYPE_CHECKING:
    Result = Comparison = WrongElement = WrongMap = Finding = Analysis = Launch = Any
    KernelAttributes = Occupancy = Timing = ImplTiming = Progress = Shape = Any
else:
    globals().update(_CLASSES)


def spans(ranges, most: int = 6) -> str:
    """Inclusive ranges (a comparison's wrong_rows, wrong_cols) as text: '0-15, 17', the first `most`
    of them, '...' when there are more."""
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in ranges[:most]) + (" ..." if len(ranges) > most else "")
