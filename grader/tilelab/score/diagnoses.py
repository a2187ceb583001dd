"""Diagnoses: what went wrong in a stage, as a short list of distinct problems rather than one row
per dataset and check. Every output format shows these (the terminal, the platforms' results
files, the HTML report), so a student reads the same few sentences everywhere.

A diagnosis says where (file:line, thread, block, element), what (the finding), the datasets and
checks it was seen on, and what to do (the hint). One diagnosis per distinct problem: the same
emulator finding on nine datasets is one diagnosis naming nine datasets. Root causes come first:

  0. the stage could not be checked (compile error, forbidden call, a hang), or a check could not
     be run for a reason that is not the submission's (a grading error);
  1. a backend's analysis found something (the emulator's barrier, bounds, race and overrun
     findings in the emulator's own order, compute-sanitizer, the GPU's guard zones);
  2. a wrong result the runner recognised (transposed, swapped index, boundary, last phase ...);
  3. a wrong result only described by its symptom (a hint code of kind "symptom", contract.toml [hints]);
  4. other failures (a crash, a timeout, a missing result);
  5. correct but short of full performance credit.

Pure functions of a StageScore; no files, no processes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..specs import contract
from ..specs.contract import HINT_CODES, HINTS
from ..run.result import GRADING_ERROR, Finding, Result, spans
from .scores import PERF_CHECKS, Cause, CheckScore, StageScore

# The emulator's order of findings to fix first: contract.toml [findings], as the runner sorts them.
FINDING_ORDER = contract.FINDING_ORDER
MAX_DATASETS = 4   # named in a diagnosis's text; the rest are counted


@dataclass
class Diagnosis:
    what: str                                   # the finding, one line
    where: str = ""                             # "matmul.cu:40", "P[16][0], rows 16-16", ""
    hint: str = ""                              # what to do
    detail: str = ""                            # the first instance in full (thread, block, element)
    rank: int = 4                               # the order above; lower is shown first
    order: int = 0                              # within a rank (the emulator's finding order)
    datasets: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    withheld: float = 0.0                       # correctness points a safety finding took
    names: list[str] = field(default_factory=list)   # the checks' CTest names

    def seen_on(self) -> str:
        """'w17, w33, w64-int (emu-race, emu)' with at most MAX_DATASETS datasets named."""
        ds = self.datasets[:MAX_DATASETS] + ([f"+{len(self.datasets) - MAX_DATASETS} more"]
                                            if len(self.datasets) > MAX_DATASETS else [])
        return ", ".join(ds) + (f" ({', '.join(self.checks)})" if self.checks else "")

    def headline(self) -> str:
        """The first line: what, where, and the datasets."""
        return (self.what + (f" at {self.where}" if self.where else "")
                + (f" -- on {self.seen_on()}" if self.datasets else ""))

    def lines(self) -> list[str]:
        """The diagnosis as plain text: headline, the first instance, the hint, points withheld."""
        out = [self.headline()]
        if self.detail:
            out.append(self.detail)
        if self.withheld:
            out.append(f"unsafe code: {self.withheld:g} correctness points withheld")
        if self.hint:
            out.append(f"Hint: {self.hint}")
        return out

    def text(self) -> str:
        return "\n".join(self.lines())


def _add(found: dict, key, make, c: CheckScore | None) -> Diagnosis:
    d = found.get(key)
    if d is None:
        d = found[key] = make()
    if c is not None:
        if c.dataset not in d.datasets and c.dataset != "?":
            d.datasets.append(c.dataset + (" (hidden)" if c.hidden and "hidden" not in c.dataset else ""))
        if c.check not in d.checks:
            d.checks.append(c.check)
        if c.name not in d.names:
            d.names.append(c.name)
        d.withheld += c.withheld
    return d


def _advice(hint: str, f: Finding) -> str:
    """What to do about a finding: the runner writes it as the finding's `advice` field
    (contract.toml [findings.advice]); a result without it (another backend's) keeps the hint."""
    return f.advice or hint


def _finding_title(f: Finding) -> str:
    """'race: missing barrier before use', 'out of bounds global'."""
    title = f.kind.replace("-", " ")
    return title + (f": {f.hint_code.replace('-', ' ')}" if f.hint_code and f.hint_code != f.kind else "")


def _compile_where(error: str) -> str:
    m = re.search(r"([\w./-]*matmul\.cu):(\d+)", error)
    return f"matmul.cu:{m.group(2)}" if m else ""


def _wrong_where(c: CheckScore) -> tuple[str, str]:
    """(where, detail) of a wrong result: the first wrong element and the wrong rows and columns."""
    k = c.result.kernel if c.result else None
    if k is None or k.passed:
        return "", ""
    # The first wrong element says where only when some elements came out right.
    where = f"P[{k.first_wrong[0].row}][{k.first_wrong[0].col}]" if k.first_wrong and k.wrong != k.checked else ""
    shape = c.result.shape_text
    detail = (f"{k.wrong} of {k.checked} elements wrong" + (f" in a {shape} product" if shape else "")
              + (f"; rows {spans(k.wrong_rows, 3)}" if k.wrong_rows else "")
              + (f", columns {spans(k.wrong_cols, 3)}" if k.wrong_cols else ""))
    if k.values_withheld:   # a hidden dataset: where, never what (the judge sends no value)
        detail += "; the values of a hidden dataset are not shown"
    elif k.first_wrong:
        w = k.first_wrong[0]
        exp = "?" if w.expected is None else f"{w.expected:.6g}"
        got = "?" if w.actual is None else f"{w.actual:.6g}"
        detail += f"; first: P[{w.row}][{w.col}] is {got}, expected {exp}"
    return where, detail


def of_stage(s: StageScore) -> list[Diagnosis]:
    """The stage's distinct problems, root causes first (see the module's order)."""
    found: dict = {}
    covered = set()
    if s.error:
        kind = next((c.verdict for c in s.checks if c.message == s.error or c.verdict in ("compile", "forbidden")),
                    "error")
        hang = next((c for c in s.checks if c.verdict == "timeout" and c.hint), None)
        first = s.error.strip().splitlines()[0] if s.error.strip() else kind
        what = {"compile": "it does not compile", "forbidden": "it calls what this assignment forbids"}.get(kind, first)
        detail = "\n".join(s.error.strip().splitlines()[1 if what == first else 0:][:6])
        removed_call = any(c.cause is Cause.REMOVED_CUDA_CALL for c in s.checks)
        hint = (hang.hint if hang else
                HINTS["removed-thread-api"] if kind == "compile" and removed_call else
                "Fix the first error the compiler reports: the others often follow from it."
                if kind == "compile" else "")
        d = _add(found, ("stage",), lambda: Diagnosis(what, _compile_where(s.error) if kind == "compile" else "",
                                                      hint, detail, rank=0), None)
        for c in s.checks:
            if c.message == s.error or c.cause is Cause.HUNG or c is hang:
                covered.add(c.name)
                if c is hang:
                    _add(found, ("stage",), lambda: d, c)
    # Checks whose analysis found something first: a right result whose points a finding withheld
    # joins that finding's diagnosis.
    for c in sorted(s.checks, key=lambda c: not (c.result and c.result.findings)):
        if c.name in covered or c.skipped or (c.passed and not c.withheld and c.points >= c.max_points - 1e-9
                                               and c.cause not in (Cause.NO_REFERENCE, Cause.PERF_GATED)):
            continue
        r = c.result
        fs = r.findings if r else ()
        if fs and not c.passed:
            top = next(a for a in r.analyses if a.findings)
            top_hint = top.hint or c.hint
            for i, f in enumerate(fs):
                key = ("finding", f.kind)
                order = FINDING_ORDER.index(f.kind) if f.kind in FINDING_ORDER else len(FINDING_ORDER)
                d = _add(found, key, lambda f=f, i=i, order=order: Diagnosis(
                    _finding_title(f), f.where, _advice(top_hint, f) if i == 0 else "", f.message,
                    rank=1, order=order), c)
                if i == 0 and not d.hint:
                    d.hint = _advice(top_hint, f)
                if f.where and f.where not in d.where.split(", "):
                    d.where = ", ".join(x for x in (d.where, f.where) if x)
            continue
        if c.withheld:   # right result, unsafe code: the safety check's finding is the diagnosis
            key = next((k for k in found if k[0] == "finding"), None)
            if key:
                _add(found, key, lambda: found[key], c)
                continue
        code = r.hint_code if r else ""
        if c.verdict == GRADING_ERROR:   # the grader's failure: first, and never worded as the student's
            first = c.message.splitlines()[0] if c.message else ""
            _add(found, ("grading-error",), lambda: Diagnosis(
                "grading error, not a verdict on your code", "", c.hint, first, rank=0), c)
        elif c.check in PERF_CHECKS and c.passed and c.cause is Cause.PERF_GATED:
            continue   # not slow: kept back by the problems diagnosed above (its row says so)
        elif c.check == "perf" and c.passed:
            _add(found, ("perf",), lambda: Diagnosis("correct, but slower than full performance credit",
                                                      "", "", c.message, rank=5), c)
        elif code and c.verdict in ("wrong", "error", "bad_input"):
            where, detail = _wrong_where(c)
            declared = HINT_CODES.get(code)   # contract.toml [hints]: its title and kind
            _add(found, ("hint", code), lambda: Diagnosis(
                (declared.title if declared else "") or c.message or code, where, c.hint, detail,
                rank=3 if declared and declared.symptom else 2), c)
        else:
            _add(found, ("verdict", c.verdict, c.hint or c.check), lambda: Diagnosis(
                f"{c.verdict}: {c.message.splitlines()[0] if c.message else c.verdict}", "", c.hint, rank=4), c)
    out = list(found.values())
    firsts = {id(d): i for i, d in enumerate(out)}
    return sorted(out, key=lambda d: (d.rank, d.order, firsts[id(d)]))


def first(s: StageScore) -> Diagnosis | None:
    ds = of_stage(s)
    return ds[0] if ds else None


def of_check(s: StageScore, c: CheckScore) -> Diagnosis | None:
    """The stage's diagnosis that a check is part of (the platforms' per-check text), or None."""
    return next((d for d in of_stage(s) if c.name in d.names), None)


def of_result(r: Result, name: str = "") -> list[Diagnosis]:
    """The diagnoses of one runner result alone (the known-bad suite's per-build checks)."""
    c = CheckScore(name or f"{r.impl}.{r.stage}.{r.dataset}.{r.check}", r.dataset or "?", r.check or "?",
                   r.verdict, 0.0, 1.0, r.message, r.hint, r)
    return of_stage(StageScore(r.stage, [c]))


def missing_words(ds: list[Diagnosis], words: list[str]) -> list[str]:
    """The words (case-insensitive) the first diagnosis does not contain: an expect.toml's
    `diagnosis = [...]` says what the first thing a student reads must name."""
    text = ds[0].text().lower() if ds else ""
    return [w for w in words if w.lower() not in text]
