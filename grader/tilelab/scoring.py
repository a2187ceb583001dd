"""Turn the runner's JSON results into points, as each stage.toml says. Pure functions only:
no files, no processes, so every rule here is unit-tested directly."""

from __future__ import annotations

from dataclasses import dataclass, field

from .contract import hint
from .results import GRADING_ERROR
from .runresult import Result
from .spec import Stage

# The check that decides correctness on each backend (docs/grading.md, "What one check does").
CORRECT_CHECK = {"gpu": "correct", "emu": "emu"}
# Memory-safety checks: reported, worth no points, but a failure means the stage did not pass.
SAFETY_CHECKS = ("memcheck", "racecheck", "synccheck", "initcheck", "emu-asan", "emu-race")
QUESTION = "question"   # the check kind of a graded question's row (quiz.py)
PERF_CHECKS = ("perf", "perf-model")
# What a performance row says when the rest of the stage kept its points from it ([performance]
# requires_all_correct, docs/grading.md); diagnoses.py finds the row by it.
PERF_GATED = ("no performance points: they are credited only to a kernel that is correct and safe on every "
              "dataset of the stage")


@dataclass
class CheckScore:
    name: str           # <impl>.<stage>.<dataset>.<check>
    dataset: str
    check: str
    verdict: str        # pass, wrong, error, timeout, bad_input (answers.toml), skipped, crash, missing,
                        # compile, forbidden, grading_error (the grader's failure, results.GRADING_ERROR)
    points: float
    max_points: float
    message: str = ""
    hint: str = ""
    result: Result | None = None
    hidden: bool = False
    withheld: float = 0.0   # points a memory-safety finding took from this check (safety_penalty)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def skipped(self) -> bool:
        """Not run on this backend: neither passed nor failed (every output format says so)."""
        return self.verdict == "skipped"

    @property
    def clean_pass(self) -> bool:
        """Passed and kept its points: what the platforms that know only pass/fail call passed."""
        return self.passed and self.withheld == 0


@dataclass
class StageScore:
    stage: str
    checks: list[CheckScore] = field(default_factory=list)
    title: str = ""
    error: str = ""     # why the stage could not be checked at all (build failed, forbidden call)

    @property
    def points(self) -> float:
        return sum(c.points for c in self.checks)

    @property
    def max_points(self) -> float:
        return sum(c.max_points for c in self.checks)

    @property
    def skipped_points(self) -> float:
        """Points of checks this backend could not run that are still in max_points ("keep")."""
        return sum(c.max_points for c in self.checks if c.skipped)

    @property
    def passed(self) -> bool:
        return not self.error and all(c.verdict == "pass" for c in self.checks if c.verdict != "skipped")

    @property
    def only_unanswered(self) -> bool:
        """Every check of the kernel passed; what is missing is answers.toml's questions."""
        open_ = [c for c in self.checks if c.verdict not in ("pass", "skipped")]
        return (not self.error and bool(open_)
                and all(c.check == QUESTION and c.verdict == "missing" for c in open_))

    @property
    def all_skipped(self) -> bool:
        return bool(self.checks) and all(c.verdict == "skipped" for c in self.checks)

    def check(self, kind: str) -> CheckScore | None:
        """The first check of a kind (e.g. 'perf'), or None."""
        return next((c for c in self.checks if c.check == kind), None)


def perf_fraction(ratio: float | None, full: float, zero: float) -> float:
    """Credit for a speed ratio to the reference: 1 at >= full, 0 at <= zero, linear between."""
    if ratio is None or ratio <= zero:
        return 0.0
    if ratio >= full:
        return 1.0
    return (ratio - zero) / (full - zero)


def _check(name: str, result: Result | None, max_points: float, points_if_pass: float | None = None,
           hidden: bool = False) -> CheckScore:
    parts = name.split(".")
    dataset, check = (parts[2], parts[3]) if len(parts) == 4 else ("?", "?")
    if result is None:
        return CheckScore(name, dataset, check, "missing", 0.0, max_points,
                          "no result: the check did not run (build failed, or it was killed)", hidden=hidden)
    pts = (max_points if points_if_pass is None else points_if_pass) if result.passed else 0.0
    if result.verdict in ("bad_input", GRADING_ERROR):
        # The judge's bad_input is its own input (options, dataset, spec): the grader's failure.
        msg = (result.message if result.verdict == GRADING_ERROR
               else f"the grader could not run this check ({result.message}); not a verdict on the submission")
        return CheckScore(name, dataset, check, GRADING_ERROR, 0.0, max_points, msg,
                          hint("grading-error")["hint"], result, hidden)
    return CheckScore(name, dataset, check, result.verdict, pts, max_points, result.message,
                      result.hint, result, hidden)


PERF_BASES = ("auto", "gpu", "model")


def perf_basis(requested: str, backend: str) -> str:
    """What the performance points are judged on: "gpu" (the timed check) or "model" (the emulator's
    counts, [performance.model]). auto: the timed check on a GPU, the model on the emulator."""
    if requested not in PERF_BASES:
        raise ValueError(f"perf basis must be one of {PERF_BASES}, got {requested!r}")
    return ("gpu" if backend == "gpu" else "model") if requested == "auto" else requested


def _perf_model(stage: Stage, impl: str, results: dict[str, Result]) -> CheckScore:
    """The performance check from the count build (docs/performance.md): the modelled ratio to the
    reference, counted in the same run whose P was verified, with the [performance.model] thresholds."""
    m = stage.performance.model
    pts = stage.points.performance
    if m is None:
        return CheckScore(f"{impl}.{stage.id}.model.perf-model", "model", "perf-model", "skipped", 0.0, pts,
                          "not graded here: this stage has no [performance.model] and its performance is "
                          "measured on a GPU only")
    name = f"{impl}.{stage.id}.{m.check_name}.perf-model"
    r = results.get(name)
    timing = r.timing if r is not None else None
    ratio = timing.ratio_to_reference if timing is not None else None
    c = _check(name, r, pts, pts * perf_fraction(ratio, m.full_credit_ratio, m.zero_credit_ratio))
    if c.passed and ratio is None:
        c.points, c.message = 0.0, c.message + "; no reference counted here to compare with, so no performance points"
    elif c.passed and timing.basis != "model":
        c.points, c.message = 0.0, c.message + "; the runner gave no modelled times"
    elif c.passed:
        c.message = (f"modelled on an H100 SXM from the emulator's counts: {ratio:.0%} of the reference's "
                     f"speed (full credit from {m.full_credit_ratio:.0%}, none at or below "
                     f"{m.zero_credit_ratio:.0%})")
    return c


def _perf(stage: Stage, impl: str, results: dict[str, Result], backend: str, basis: str = "auto") -> CheckScore:
    if perf_basis(basis, backend) == "model":
        return _perf_model(stage, impl, results)
    name = f"{impl}.{stage.id}.{stage.performance.dataset}.perf"
    pts = stage.points.performance
    if backend != "gpu":
        return CheckScore(name, stage.performance.dataset, "perf", "skipped", 0.0, pts,
                          "not timed here: performance is measured on a GPU only (the emulator's times "
                          "mean nothing)")
    r = results.get(name)
    timing = r.timing if r else None
    ratio = timing.ratio(stage.performance.ratio_key) if timing else None
    c = _check(name, r, pts, pts * perf_fraction(ratio, stage.performance.full_credit_ratio,
                                                 stage.performance.zero_credit_ratio))
    full, zero = stage.performance.full_credit_ratio, stage.performance.zero_credit_ratio
    if c.passed and ratio is not None and ratio < full:
        what = "cuBLAS FP32's" if stage.performance.basis == "cublas" else "the reference's"
        c.message += (f"; {ratio:.0%} of {what} speed: full credit from {full:.0%}, "
                      f"none at or below {zero:.0%}")
    if c.passed and ratio is None:
        c.message += "; nothing here to compare its speed with, so no performance points"
    elif c.passed and timing is not None and timing.meaningful is False:
        c.points, c.message = 0.0, c.message + "; these timings are not meaningful on this backend"
    return c


@dataclass(frozen=True)
class Stopped:
    """Why some of a stage's checks never ran: the kernel hung on a dataset (the others were not
    started), or the run was stopped (time or memory limit). Scoring gives every check without a
    result `verdict` with `message`, and the stage `error`: grade.py hands this in and sets no
    verdict itself."""
    verdict: str                # "timeout" | "crash"
    error: str                  # the stage's one line
    message: str                # each not-run check's message


def score_stage(stage: Stage, impl: str, results: dict[str, Result | dict], hidden_count: int = 0,
                backend: str = "gpu", registered: set[str] | None = None, basis: str = "auto",
                stopped: Stopped | None = None) -> StageScore:
    """results maps CTest names (<impl>.<stage>.<dataset>.<check>) to runner results (a JSON
    object is parsed here, once: the tests hand in edited documents). stopped: why the checks
    without a result were not run (their verdict is its, not `missing`)."""
    out = _score(stage, impl, {k: Result.of(v) for k, v in results.items()}, hidden_count, backend, registered, basis)
    if stopped:
        out.error = stopped.error
        for c in out.checks:
            if c.verdict == "missing":
                c.verdict, c.message = stopped.verdict, stopped.message
    return out


def _score(stage: Stage, impl: str, results: dict[str, Result], hidden_count: int, backend: str,
           registered: set[str] | None, basis: str = "auto") -> StageScore:
    """registered, when given, names the checks this build has: a public dataset without one (too
    large for the CPU emulator) is listed as skipped and its share goes to the datasets checked."""
    out = StageScore(stage.id, title=stage.title)
    kind = CORRECT_CHECK.get(backend, "correct")
    public = stage.correctness_datasets
    each = stage.points.public / len(public) if public else 0.0
    if registered is not None:
        checked = [d for d in public if f"{impl}.{stage.id}.{d.name}.{kind}" in registered]
        # "exclude": the public points are shared by the datasets this backend checks, so all of
        # them stay earnable; "keep": an unchecked dataset keeps its share, earned by none.
        share = checked and stage.points.unearnable == "exclude"
        for d in public:
            if d not in checked:
                out.checks.append(CheckScore(f"{impl}.{stage.id}.{d.name}.{kind}", d.name, kind, "skipped",
                                             0.0, 0.0 if share else each, "not checked on this backend: too "
                                             "large for the CPU emulator (a GPU run checks it)"
                                             + ("; its share of the points goes to the datasets checked here"
                                                if share else "")))
        if share:
            each = stage.points.public / len(checked)
        public = tuple(checked) or public
    for d in public:
        name = f"{impl}.{stage.id}.{d.name}.{kind}"
        out.checks.append(_check(name, results.get(name), each))
    if stage.host_function and public:
        # matmul_host: its points when every public dataset's host result passed.
        rs = [results.get(f"{impl}.{stage.id}.{d.name}.{kind}") for d in public]
        host_ok = all(r and r.host and r.host.passed for r in rs)
        skipped = all(r and r.verdict == "skipped" for r in rs)
        out.checks.append(CheckScore(f"{impl}.{stage.id}.matmul_host.{kind}", "matmul_host", kind,
                                     "pass" if host_ok else "skipped" if skipped else "wrong",
                                     stage.points.host_function if host_ok else 0.0,
                                     stage.points.host_function,
                                     ("matmul_host correct on every public dataset" if host_ok
                                      else "not run: the datasets were skipped" if skipped
                                      else "matmul_host wrong or not run on some dataset")
                                     + transfer_costs(public, rs)))
    if hidden_count and stage.hidden:
        each_h = stage.points.hidden / hidden_count
        for i in range(hidden_count):
            name = f"{impl}.{stage.id}.hidden{i}.{kind}"
            out.checks.append(_check(name, results.get(name), each_h, hidden=True))
    out.checks.append(_perf(stage, impl, results, backend, basis))
    prefix = f"{impl}.{stage.id}."
    for name in sorted(results):
        parts = name.split(".")
        if name.startswith(prefix) and len(parts) == 4 and parts[3] in SAFETY_CHECKS:
            out.checks.append(_check(name, results[name], 0.0, hidden=parts[2].startswith("hidden")))
    _apply_safety_penalty(out, stage, kind)
    _gate_performance(out, stage, kind)
    _settle_skipped(out, stage)
    return out


def _gate_performance(out: StageScore, stage: Stage, kind: str) -> None:
    """Performance points only for a kernel that is correct and safe on every dataset of the stage:
    every public and hidden correctness check this backend ran passed, and no memory-safety check
    found anything (whatever safety_penalty takes). The timed or modelled run verifies only its own
    shape, which a wrong kernel may happen to compute right. stage.toml [performance]
    requires_all_correct = false restores the old rule (docs/stage-spec.md)."""
    if not stage.performance.requires_all_correct:
        return
    perf = next((c for c in out.checks if c.check in PERF_CHECKS), None)
    if perf is None or perf.points <= 0:
        return
    # (a grading error says nothing about the kernel: the grader's failure costs it nothing more)
    wrong = [c for c in out.checks if c.check == kind and c.dataset != "matmul_host"
             and c.verdict not in ("pass", "skipped", GRADING_ERROR)]
    unsafe = [c for c in out.checks if (c.check == kind and c.withheld) or safety_finding(c)]
    names: list[str] = []
    for c in wrong + unsafe:
        n = c.dataset + (" (hidden)" if c.hidden else "")
        if n not in names:
            names.append(n)
    if not names:
        return
    what = ("wrong or not run on" if wrong and not unsafe else "unsafe on" if not wrong
            else "wrong, not run or unsafe on")
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    perf.message += (f"; {PERF_GATED} (this one is {what} {shown}), and would have earned "
                     f"{perf.points:g} of {perf.max_points:g}")
    perf.points = 0.0


def transfer_costs(datasets, results: list[Result | None]) -> str:
    """The host function's lesson, from the largest dataset timed on a GPU (the runner's
    host.timing): "; on w1024: matmul_host 6.1 ms; its steps timed alone: allocation 0.4 ms, copies
    in 1.5 ms, kernel 2.9 ms, copy out 0.8 ms (the copies: 39% of it)", or "" where none was timed."""
    timed = [(d, r.host.timing) for d, r in zip(datasets, results) if r and r.host and r.host.timing]
    if not timed:
        return ""
    d, t = max(timed, key=lambda x: x[0].J * x[0].K * x[0].L)
    try:
        parts = [float(t[k]) for k in ("alloc_ms", "copy_in_ms", "kernel_ms", "copy_out_ms")]
        total = float(t["matmul_host_ms"])
    except KeyError:
        return ""
    steps = sum(parts)
    share = f" (the copies: {(parts[1] + parts[3]) / steps:.0%} of it)" if steps > 0 else ""
    return (f"; on {d.name}: matmul_host {total:.2f} ms; its steps timed alone: allocation {parts[0]:.2f} ms, "
            f"copies in {parts[1]:.2f} ms, kernel {parts[2]:.2f} ms, copy out {parts[3]:.2f} ms{share}")


def _settle_skipped(out: StageScore, stage: Stage) -> None:
    """A check this backend cannot run earns nothing and fails nothing. [points] unearnable says
    whether its points leave the maximum ("exclude", the default: a correct submission scores
    full marks here) or stay in it ("keep": the maximum is the stage's whole total)."""
    keep = stage.points.unearnable == "keep"
    for c in out.checks:
        if not c.skipped:
            continue
        if c.max_points > 0 and not keep:
            c.message += f"; its {c.max_points:g} points are left out of the maximum here"
            c.max_points = 0.0
        elif c.max_points > 0:
            c.message += (f"; its {c.max_points:g} points stay in the maximum (stage.toml [points] "
                          "unearnable = \"keep\") and cannot be earned here")


def finding(c: CheckScore) -> str:
    """The first thing a backend's analysis found in this check -- the emulator's builds,
    compute-sanitizer, the GPU's guard zones -- as one line ("out-of-bounds-global at
    matmul.cu:38 (+2 more)"), or "" when none: a wrong result or a crash is not a finding."""
    fs = c.result.findings if c.result else ()
    if not fs:
        return ""
    where = f" at {fs[0].where}" if fs[0].where else ""
    more = f" (+{len(fs) - 1} more)" if len(fs) > 1 else ""
    return f"{fs[0].kind}{where}{more}"


def safety_finding(c: CheckScore) -> str:
    """What a memory-safety check found ("emu-asan: out-of-bounds-global at matmul.cu:38"), or ""."""
    f = finding(c) if c.check in SAFETY_CHECKS else ""
    return f"{c.check}: {f}" if f else ""


def _apply_safety_penalty(out: StageScore, stage: Stage, kind: str) -> None:
    """A memory-safety finding on a dataset costs that dataset's correctness points, or the number
    of points stage.toml's [points] safety_penalty says (docs/stage-spec.md). The correctness row
    keeps its verdict (the result was right) and says what was withheld and why; so does the
    safety row."""
    found: dict[str, list[str]] = {}
    for c in out.checks:
        if c.check in SAFETY_CHECKS and (what := safety_finding(c)):
            found.setdefault(c.dataset, []).append(what)
    penalty = stage.points.safety_penalty
    cost: dict[str, float] = {}
    for c in out.checks:
        if c.check != kind or c.dataset not in found or c.points <= 0 or penalty == 0:
            continue
        take = c.points if penalty is None else min(c.points, penalty)
        c.points -= take
        c.withheld = take
        cost[c.dataset] = take
        c.message += (f"; {take:g} of its points withheld: unsafe code ({'; '.join(found[c.dataset])}) "
                      "-- the handout forbids out-of-bounds accesses, races, and values read from shared "
                      "memory no thread wrote that reach P")
    for c in out.checks:
        if c.check in SAFETY_CHECKS and c.dataset in cost and safety_finding(c):
            c.message += f"; costs {cost[c.dataset]:g} points of {c.dataset}'s correctness check"


def fail_stage(stage: Stage, impl: str, verdict: str, error: str, hidden_count: int = 0,
               backend: str = "gpu") -> StageScore:
    """A stage that could not be checked (build failed, forbidden call): every check gets the verdict."""
    s = score_stage(stage, impl, {}, hidden_count, backend)
    s.error = error
    s.checks = [c for c in s.checks if c.max_points > 0 or c.verdict != "missing"]
    for c in s.checks:
        c.verdict, c.message, c.points = verdict, error, 0.0
    return s
