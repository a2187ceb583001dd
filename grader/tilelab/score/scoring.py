"""Turn what became of a stage (its Outcome: the runner's results, or why there are none) into
verdicts and points, as each stage.toml says. Scoring alone decides verdicts, and its scores are
read-only. Pure functions only: no files, no processes, so every rule here is unit-tested directly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import SimpleNamespace

from ..specs.contract import hint
from ..run.result import GRADING_ERROR, Result
from .scores import PERF_CHECKS, Cause, CheckScore, StageScore
from ..specs.codegen import check_timeout
from ..specs.spec import Stage
# What became of a stage (the engine's typed outcome, run/outcome.py) and the correctness check of each
# backend, named here too: scoring's callers and tests hand these in.
from ..run.outcome import CORRECT_CHECK, Built, DidNotCompile, Hung, NotChecked, Outcome, Refused, Stopped  # noqa: F401

# Memory-safety checks: reported, worth no points, but a failure means the stage did not pass.
SAFETY_CHECKS = ("memcheck", "racecheck", "synccheck", "initcheck", "emu-asan", "emu-race")
# Findings of a safety check that say the product may not be a kernel's (docs/integrity.md, family 3):
# they withhold every correctness point of the stage (every dataset, hidden ones and matmul_host
# included), whatever [points] safety_penalty says, since the checks that cannot see them (the
# plain build, the datasets too large for the race build) would still pay the host's product.
INTEGRITY_FINDINGS = ("kernel-accessed-host", "hidden-code")
# What a performance row says when the rest of the stage kept its points from it ([performance]
# requires_all_correct, docs/grading.md); the row's cause is Cause.PERF_GATED.
PERF_GATED = ("no performance points: they are credited only to a kernel that is correct and safe on every "
              "dataset of the stage")


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
        return replace(c, points=0.0, cause=Cause.NO_REFERENCE,
                       message=c.message + "; no reference counted here to compare with, so no performance points")
    if c.passed and timing.basis != "model":
        return replace(c, points=0.0, message=c.message + "; the runner gave no modelled times")
    if c.passed:
        return replace(c, message=f"modelled on an H100 SXM from the emulator's counts: {ratio:.0%} of the "
                                  f"reference's speed (full credit from {m.full_credit_ratio:.0%}, none at or "
                                  f"below {m.zero_credit_ratio:.0%}); an estimate: for some kernels a GPU's "
                                  f"timing falls in another band{', ' + m.caveat if m.caveat else ''} "
                                  f"(docs/performance.md, \"Validation\")")
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
        c = replace(c, message=c.message + (f"; {ratio:.0%} of {what} speed: full credit from {full:.0%}, "
                                            f"none at or below {zero:.0%}"))
    if c.passed and ratio is None:
        return replace(c, cause=Cause.NO_REFERENCE,
                       message=c.message + "; nothing here to compare its speed with, so no performance points")
    if c.passed and timing is not None and timing.meaningful is False:
        return replace(c, points=0.0, message=c.message + "; these timings are not meaningful on this backend")
    return c


# The outcomes where no check ran (run/outcome.py: what the engine found), each giving every check one verdict.
NOT_RUN = {NotChecked: "missing", Refused: "forbidden", DidNotCompile: "compile"}


def verdict_of(outcome: NotChecked | Refused | DidNotCompile) -> str:
    """The verdict every check of a stage gets when none of them ran."""
    return NOT_RUN[type(outcome)]


def _cut_short(why: Hung | Stopped) -> tuple[str, str, str]:
    """(verdict, the stage's error, each not-run check's message) of a run cut short."""
    if isinstance(why, Hung):
        said = why.message or "timed out"
        return ("timeout", f"the kernel hung on {why.dataset}: {said}",
                f"not run: the kernel hung on {why.dataset} ({said})")
    timed_out = why.limit == "time"
    said = (f"the checks were stopped after {why.seconds:.0f} s" if timed_out
            else "the checks were stopped: memory limit")
    return ("timeout" if timed_out else "crash"), said, said


def score_stage(stage: Stage, impl: str, outcome: Outcome | Mapping[str, Result | dict], hidden_count: int = 0,
                backend: str = "gpu", basis: str = "auto") -> StageScore:
    """The stage's score from what became of it (Outcome; a mapping of results is short for
    Built(results), a run nothing cut short). Every verdict is decided here: from a check's result,
    or, for a check that never ran, by its stage's outcome."""
    if isinstance(outcome, tuple(NOT_RUN)):
        return _not_run(stage, impl, outcome, hidden_count, backend)
    if not isinstance(outcome, Built):
        outcome = Built(outcome)
    out = _score(stage, impl, {k: Result.of(v) for k, v in outcome.results.items()}, hidden_count, backend,
                 outcome.registered, basis)
    if outcome.cut_short is None:
        return out
    verdict, error, message = _cut_short(outcome.cut_short)
    cause = Cause.HUNG if isinstance(outcome.cut_short, Hung) else None
    return replace(out, error=error, checks=[replace(c, verdict=verdict, message=message, cause=cause)
                                             if c.verdict == "missing" else c for c in out.checks])


def _not_run(stage: Stage, impl: str, outcome: NotChecked | Refused | DidNotCompile, hidden_count: int,
             backend: str) -> StageScore:
    """A stage none of whose checks ran: each check it would have had (those worth points, and the
    rows a backend lists as skipped; on the default performance basis) gets the outcome's verdict,
    its reason as the message, and no points."""
    s = _score(stage, impl, {}, hidden_count, backend, None)
    verdict = verdict_of(outcome)
    cause = Cause.REMOVED_CUDA_CALL if isinstance(outcome, DidNotCompile) and outcome.removed_cuda_call else None
    return replace(s, error=outcome.why, checks=[replace(c, verdict=verdict, message=outcome.why, points=0.0,
                                                         cause=cause)
                                                 for c in s.checks if c.max_points > 0 or c.verdict != "missing"])


def _score(stage: Stage, impl: str, results: dict[str, Result], hidden_count: int, backend: str,
           registered: frozenset[str] | set[str] | None, basis: str = "auto") -> StageScore:
    """registered, when given, names the checks this build has: a public dataset without one (too
    large for the CPU emulator) is listed as skipped and its share goes to the datasets checked."""
    checks: list[CheckScore] = []
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
                checks.append(CheckScore(f"{impl}.{stage.id}.{d.name}.{kind}", d.name, kind, "skipped",
                                         0.0, 0.0 if share else each, "not checked on this backend: too "
                                         "large for the CPU emulator (a GPU run checks it)"
                                         + ("; its share of the points goes to the datasets checked here"
                                            if share else "")))
        if share:
            each = stage.points.public / len(checked)
        public = tuple(checked) or public
    for d in public:
        name = f"{impl}.{stage.id}.{d.name}.{kind}"
        checks.append(_check(name, results.get(name), each))
    if stage.host_function and public:
        # matmul_host: its points when every public dataset's host result passed.
        rs = [results.get(f"{impl}.{stage.id}.{d.name}.{kind}") for d in public]
        host_ok = all(r and r.host and r.host.passed for r in rs)
        skipped = all(r and r.verdict == "skipped" for r in rs)
        checks.append(CheckScore(f"{impl}.{stage.id}.matmul_host.{kind}", "matmul_host", kind,
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
            checks.append(_check(name, results.get(name), each_h, hidden=True))
    checks.append(_perf(stage, impl, results, backend, basis))
    prefix = f"{impl}.{stage.id}."
    for name in sorted(results):
        parts = name.split(".")
        if name.startswith(prefix) and len(parts) == 4 and parts[3] in SAFETY_CHECKS:
            checks.append(_check(name, results[name], 0.0, hidden=parts[2].startswith("hidden")))
    checks = [_emulator_speed(c, stage) for c in checks]
    checks = _apply_safety_penalty(checks, stage, kind)
    checks = _gate_performance(checks, stage, kind)
    checks = _settle_skipped(checks, stage)
    return StageScore(stage.id, checks, title=stage.title)


# The slowest pace, in multiply-adds per second, at which any GPU the kit grades on runs the basic
# kernel: docs/grading.md's timeout table measured far above 10^10 (loaded), so a launch's work at
# this pace is an upper bound of a GPU's time for it.
GPU_SLOWEST_RATE = 1e10


def _emulator_speed(c: CheckScore, stage: Stage) -> CheckScore:
    """An emulator `too-slow` timeout (the run was still making progress: docs/grading.md, "Hung or
    too slow") is the emulator's pace, not a measurement of the kernel on a GPU. Where the result
    says how much work the launch does -- its blocks' phases against the ceil(K/tile) the product
    needs, so J*K*L times that ratio multiply-adds -- and that work at GPU_SLOWEST_RATE takes at most
    half the time a GPU check of the dataset gets (codegen.check_timeout), the message and the hint
    (so every output format) say that this check would pass on a GPU (issue #40, item 6). The verdict
    and the points stay the emulator's."""
    r = c.result
    if (r is None or c.verdict != "timeout" or r.hint_code != "too-slow" or not r.backend.startswith("emu")
            or not r.shape):
        return c
    p = r.raw.get("progress")
    p = p if isinstance(p, dict) else {}
    phases, needed = p.get("phases_per_block"), p.get("phases_needed")
    if not (isinstance(phases, (int, float)) and isinstance(needed, (int, float)) and phases > 0 and needed > 0):
        return c
    J, K, L = r.shape
    work = J * K * L * max(1.0, phases / needed)
    limit = check_timeout(stage, SimpleNamespace(J=J, K=K, L=L), "correct")   # reads only J, K, L
    seconds = work / GPU_SLOWEST_RATE
    if seconds > limit / 2:
        return c
    note = (f"This timeout is the emulator's pace (it runs every thread on the CPU), not a measurement: on a GPU "
            f"this check would pass -- the launch's {work:.2g} multiply-adds take at most {seconds:.2g} s at "
            f"{GPU_SLOWEST_RATE:.0e} a second, well within the {limit} s a GPU check of {r.shape_text} gets.")
    return replace(c, message=f"{c.message}; on a GPU this check would pass (the emulator's pace timed it out)",
                   hint=f"{c.hint} {note}".strip())


def _gate_performance(checks: list[CheckScore], stage: Stage, kind: str) -> list[CheckScore]:
    """Performance points only for a kernel that is correct and safe on every dataset of the stage:
    every public and hidden correctness check this backend ran passed, and no memory-safety check
    found anything (whatever safety_penalty takes). The timed or modelled run verifies only its own
    shape, which a wrong kernel may happen to compute right. stage.toml [performance]
    requires_all_correct = false restores the old rule (docs/stage-spec.md)."""
    if not stage.performance.requires_all_correct:
        return checks
    at = next((i for i, c in enumerate(checks) if c.check in PERF_CHECKS), None)
    if at is None or checks[at].points <= 0:
        return checks
    perf = checks[at]
    # (a grading error says nothing about the kernel: the grader's failure costs it nothing more)
    wrong = [c for c in checks if c.check == kind and c.dataset != "matmul_host"
             and c.verdict not in ("pass", "skipped", GRADING_ERROR)]
    unsafe = [c for c in checks if (c.check == kind and c.withheld) or safety_finding(c)]
    names: list[str] = []
    for c in wrong + unsafe:
        n = c.dataset + (" (hidden)" if c.hidden else "")
        if n not in names:
            names.append(n)
    if not names:
        return checks
    what = ("wrong or not run on" if wrong and not unsafe else "unsafe on" if not wrong
            else "wrong, not run or unsafe on")
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    gated = replace(perf, points=0.0, cause=Cause.PERF_GATED, message=perf.message + (f"; {PERF_GATED} (this one is {what} {shown}), and "
                                                              f"would have earned {perf.points:g} of "
                                                              f"{perf.max_points:g}"))
    return checks[:at] + [gated] + checks[at + 1:]


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


def _settle_skipped(checks: list[CheckScore], stage: Stage) -> list[CheckScore]:
    """A check this backend cannot run earns nothing and fails nothing. [points] unearnable says
    whether its points leave the maximum ("exclude", the default: a correct submission scores
    full marks here) or stay in it ("keep": the maximum is the stage's whole total)."""
    keep = stage.points.unearnable == "keep"

    def settled(c: CheckScore) -> CheckScore:
        if not c.skipped or c.max_points <= 0:
            return c
        if not keep:
            return replace(c, max_points=0.0,
                           message=c.message + f"; its {c.max_points:g} points are left out of the maximum here")
        return replace(c, message=c.message + (f"; its {c.max_points:g} points stay in the maximum (stage.toml "
                                               "[points] unearnable = \"keep\") and cannot be earned here"))
    return [settled(c) for c in checks]


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


def _apply_safety_penalty(checks: list[CheckScore], stage: Stage, kind: str) -> list[CheckScore]:
    """A memory-safety finding on a dataset costs that dataset's correctness points, or the number
    of points stage.toml's [points] safety_penalty says (docs/stage-spec.md). The correctness row
    keeps its verdict (the result was right) and says what was withheld and why; so does the
    safety row."""
    found: dict[str, list[str]] = {}
    everywhere: list[str] = []  # integrity findings: they cost every correctness row of the stage
    for c in checks:
        if c.check in SAFETY_CHECKS and (what := safety_finding(c)):
            found.setdefault(c.dataset, []).append(what)
            if c.result and any(f.kind in INTEGRITY_FINDINGS for f in c.result.findings):
                everywhere.append(what)
    penalty = stage.points.safety_penalty
    cost: dict[str, float] = {}

    def withheld(c: CheckScore) -> CheckScore:
        if everywhere and c.check == kind and c.points > 0:
            found.setdefault(c.dataset, everywhere)
            take = c.points
            cost[c.dataset] = take
            return replace(c, points=0.0, withheld=take, message=c.message + (
                f"; all of its points withheld: {'; '.join(everywhere)} -- a kernel reached host "
                "memory, so host code may have computed P (on a GPU the kernel faults)"))
        if c.check != kind or c.dataset not in found or c.points <= 0 or penalty == 0:
            return c
        take = c.points if penalty is None else min(c.points, penalty)
        cost[c.dataset] = take
        return replace(c, points=c.points - take, withheld=take, message=c.message + (
            f"; {take:g} of its points withheld: unsafe code ({'; '.join(found[c.dataset])}) "
            "-- the handout forbids out-of-bounds accesses, races, and values read from shared "
            "memory no thread wrote that reach P"))
    checks = [withheld(c) for c in checks]
    return [replace(c, message=c.message + f"; costs {cost[c.dataset]:g} points of {c.dataset}'s correctness check")
            if c.check in SAFETY_CHECKS and c.dataset in cost and safety_finding(c) else c for c in checks]
