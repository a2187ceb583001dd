"""Read what a CTest run left behind: the runner's JSON result files and CTest's JUnit report.

The JSON files are the measurements. The JUnit report only fills gaps: a check that CTest killed
(its hard timeout) or that died without writing its file still gets a result, built from the
JUnit status -- never from the human-readable output.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ..specs.contract import SCHEMAS, ExitCode, hint
from .result import GRADING_ERROR, Result

SCHEMA = SCHEMAS["result"]


@dataclass(frozen=True)
class JunitCase:
    name: str
    status: str      # run | fail | notrun | disabled (CTest's own words)
    seconds: float
    message: str     # the failure/skip message CTest wrote ("Timeout", "Failed", ...)


def load(path: Path) -> Result | None:
    """One result file, parsed; None when it is missing, half-written or not a result object."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return Result.parse(doc) if isinstance(doc, dict) and doc.get("schema", SCHEMA) == SCHEMA else None


def read_json_results(results_dir: Path, prefix: str = "") -> dict[str, Result]:
    """Every <name>.json in results_dir whose name starts with prefix, keyed by test name, parsed
    once into a Result (result.py)."""
    out: dict[str, Result] = {}
    for f in sorted(Path(results_dir).glob(f"{prefix}*.json")):
        if (r := load(f)) is not None:
            out[f.stem] = r   # a half-written file is a missing result
    return out


def read_junit(path: Path) -> dict[str, JunitCase] | None:
    """CTest's --output-junit file, keyed by test name; None when it is missing, not a file (a
    folder put in its place), unreadable or malformed: nothing then vouches for any result."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    if root.tag not in ("testsuite", "testsuites"):
        return None
    cases = {}
    for tc in root.iter("testcase"):
        name = tc.get("name", "")
        status = tc.get("status", "")
        msg = ""
        for tag in ("failure", "error", "skipped"):
            el = tc.find(tag)
            if el is not None:
                msg = el.get("message", "") or tag
                if not status:
                    status = "notrun" if tag == "skipped" else "fail"
        try:
            seconds = float(tc.get("time", "0") or 0)
        except ValueError:
            seconds = 0.0
        cases[name] = JunitCase(name, status or "run", seconds, msg)
    return cases


def synthesize(case: JunitCase) -> Result:
    """A result object for a check that left no JSON file behind."""
    return Result.parse(_synthesized(case))


def _synthesized(case: JunitCase) -> dict:
    base = {"schema": SCHEMA, "synthesized": True, "seconds": case.seconds}
    msg = case.message.lower()
    if "timeout" in msg:
        return base | {"verdict": "timeout", "exit_code": int(ExitCode.TIMEOUT),
                       "message": f"killed by CTest after {case.seconds:.0f} s (hang or far too slow)",
                       **hint("timeout")}
    if case.status == "disabled" or (case.status == "notrun" and "SKIP" in case.message.upper()):
        return base | {"verdict": "skipped", "exit_code": int(ExitCode.SKIPPED),
                       "message": f"not run ({case.message or case.status})"}
    if case.status == "notrun":
        return base | {"verdict": "missing", "message": f"not run: {case.message or 'CTest did not start it'}"}
    if case.status == "run":
        return base | {"verdict": "missing", "message": "the check passed but wrote no result file"}
    # The judge writes a result for everything the code under test can do (crash, hang, exit: its
    # worker is another process) and for its own bad input (bad_input): one that ended with no
    # result at all died on its own -- the grader or the machine, not the submission.
    return base | {"verdict": GRADING_ERROR, "exit_code": -1,
                   "message": f"the grader's check ended without a result ({case.message or 'failed'}); "
                              "not a verdict on the submission",
                   **hint("grading-error")}


def disowned(result: Result, case: JunitCase) -> Result | None:
    """A `pass` the check's own exit status does not back: CTest saw it fail or not run, so the file
    was written by something else -- the code under test of another check, which may write the
    results folder. The replacement result, or None when the two agree."""
    if result.verdict != "pass" or case.status == "run":
        return None
    return Result.parse({"schema": SCHEMA, "verdict": "error", "exit_code": int(ExitCode.ERROR), **hint("forged-result"),
            "message": f"the result file says pass, but the check {'failed' if case.status == 'fail' else 'did not run'} "
                       "(CTest's exit status): the file was not written by this check's runner"})


def collect(results_dir: Path, junit: Path | None, prefix: str = "") -> dict[str, Result]:
    """JSON results, checked against CTest's JUnit status, plus synthesized ones for JUnit cases
    (matching prefix) that left no file. Fails closed: with a JUnit report asked for, a result
    counts only where the report has its check (a file for a check this run did not start was not
    written by it), and a missing, unreadable or malformed report vouches for nothing (every result
    is dropped: the checks count as not run, never as passed)."""
    out = read_json_results(results_dir, prefix)
    if junit is not None:
        cases = read_junit(junit)
        if cases is None:
            return {}
        out = {k: v for k, v in out.items() if k in cases}
        for name, case in cases.items():
            if not name.startswith(prefix):
                continue
            if name not in out:
                out[name] = synthesize(case)
            elif (replaced := disowned(out[name], case)) is not None:
                out[name] = replaced
    return out


def clear(results_dir: Path, prefix: str) -> None:
    """Remove earlier results, so a check that does not run this time cannot reuse an old file."""
    for f in Path(results_dir).glob(f"{prefix}*.json"):
        f.unlink(missing_ok=True)
