"""Run a GPU runner under NVIDIA compute-sanitizer and fold its findings into the runner's result.

    python3 -m tilelab.run.sanitize --tool memcheck|racecheck|synccheck|initcheck --json RESULT
                                [--expect-fail] [--timeout S] -- RUNNER ARGS...

The runner is run as `compute-sanitizer --tool T --error-exitcode 10 --print-limit 20
--target-processes all --log-file LOG RUNNER ARGS` (the runner's own --json must be RESULT). Then:
  * no compute-sanitizer (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin) or no GPU: exit 77 (skipped),
    with a result saying so;
  * the sanitizer's reports become RESULT["sanitizer"] = {tool, exit_code, errors, findings: [{kind,
    file, line, function, message}], summary, log}; any report turns the verdict into `error`
    (exit 2) with hint_code `sanitizer-<tool>` and a hint naming the first finding's file:line
    (the kernels are built with -lineinfo);
  * otherwise the runner's verdict and exit code stand.
--expect-fail (the starter in the kit's self-test): exit 0 when the check failed the way an
unfinished kernel fails (wrong, or error from a sanitizer report), 1 when it passed, crashed or
timed out; 77 passes through.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..specs import contract
from ..specs.contract import SCHEMAS, ExitCode

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
SANITIZER_ERROR_EXIT = 10          # --error-exitcode: distinct from every runner code
PRINT_LIMIT = 20
SCHEMA = SCHEMAS["result"]

_PREFIX = "========="
_LOCATION = re.compile(r"(?:at\s+(?:0x[0-9a-f]+\s+in\s+)?(?P<func>.+?)(?:\+0x[0-9a-f]+)?\s+in\s+)?"
                       r"(?P<file>[^\s:]+\.(?:cu|cuh|cpp|cc|h|hpp)):(?P<line>\d+)")
_KINDS = [  # (pattern of a report's first line, kind)
    (r"Invalid __global__ (read|write)", "invalid-global-{0}"),
    (r"Invalid __shared__ (read|write)", "invalid-shared-{0}"),
    (r"Invalid __local__ (read|write)", "invalid-local-{0}"),
    (r"Misaligned", "misaligned-address"),
    (r"Race reported|hazard", "race"),
    (r"Barrier error|Divergent thread", "barrier"),
    (r"Uninitialized __global__ memory read", "uninitialized-global-read"),
    (r"Uninitialized", "uninitialized"),
    (r"Program hit (\w+)", "api-error"),
    (r"Host API memory access error", "host-api-access"),   # initcheck: a copy of memory never written
    (r"Leaked", "leak"),
    (r"Out-of-range|out of bounds", "out-of-bounds"),
]
# Lines that are not reports. "Target application returned an error" only says the runner's exit
# code was not 0 (a wrong result exits 2): the runner's own verdict already says that.
_IGNORED = ("ERROR SUMMARY", "RACECHECK SUMMARY", "COMPUTE-SANITIZER", "LEAK SUMMARY",
            "Target application returned an error")
# The counts: "ERROR SUMMARY: 436 errors" (one per process), racecheck's "(100866 errors, ...)";
# not "ERROR SUMMARY: 416 errors were not printed".
_COUNT = re.compile(r"ERROR SUMMARY:\s*(\d+) errors?\s*$|SUMMARY:.*\((\d+) errors?")


_PROBE_CALL = "on CUDA API call to cudaFuncGetParamInfo"
_CLEAR_CALL = "on CUDA API call to cudaGetLastError"


def find_sanitizer() -> str | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if base and (Path(base) / "bin" / "compute-sanitizer").is_file():
            return str(Path(base) / "bin" / "compute-sanitizer")
    return None


def gpu_present() -> bool:
    """Whether an NVIDIA GPU answers here (`nvidia-smi -L`): for a sanitizer check, and for a grade's
    backend `auto` (grading/options.py: resolve_backend)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _kind(header: str) -> str:
    for pat, kind in _KINDS:
        m = re.search(pat, header, re.I)
        if m:
            return kind.format(*(g.lower() for g in m.groups() if g)) if "{0}" in kind else kind
    return "error"


def parse_log(text: str) -> dict:
    """The reports of a compute-sanitizer log: one finding per report, with the first source
    location that names a file (the student's line when the kernel was built with -lineinfo)."""
    findings: list[dict] = []
    summary = ""
    counted = 0
    current: dict | None = None
    for raw in text.splitlines():
        if not raw.startswith(_PREFIX):
            continue
        body = raw[len(_PREFIX):]
        stripped = body.strip()
        if not stripped:
            continue
        if any(stripped.startswith(k) for k in _IGNORED):
            m = _COUNT.search(stripped)
            if m:
                summary = stripped
                counted += int(m.group(1) or m.group(2))
            continue
        indented = body.startswith(" ") and len(body) - len(body.lstrip()) >= 2
        if not indented and not stripped.startswith(("Saved host backtrace", "Host Frame", "by thread",
                                                     "Address", "Access at", "at ")):
            current = {"kind": _kind(stripped), "file": "", "line": 0, "function": "",
                       "message": stripped.removeprefix("Error: ").strip()}
            findings.append(current)
            m = _LOCATION.search(stripped)       # racecheck puts both locations on the first line
            if m:
                current.update(file=m.group("file"), line=int(m.group("line")),
                               function=(m.group("func") or "").strip())
            continue
        if current is not None and not current["file"]:
            m = _LOCATION.search(stripped)
            if m:
                current.update(file=m.group("file"), line=int(m.group("line")),
                               function=(m.group("func") or "").strip())
    errors = max(len(findings), counted)
    # The worker's own question to the runtime (launch_probe.cpp, account_arguments): it asks each
    # kernel's parameters one index past the last, as CUDA's API has no count, then clears that
    # answer with cudaGetLastError; memcheck reports both as API errors. Neither is the student's
    # (a student's own such pair is as harmless), so the pair is dropped, and only the pair.
    kept, probe, last_was_probe = [], 0, False
    for f in findings:
        api = f["kind"] == "api-error"
        if api and _PROBE_CALL in f["message"]:
            probe, last_was_probe = probe + 1, True
            continue
        if api and last_was_probe and _CLEAR_CALL in f["message"] and "cudaErrorInvalidValue" in f["message"]:
            probe, last_was_probe = probe + 1, False
            continue
        kept.append(f)
        last_was_probe = False
    findings = kept
    errors -= probe
    return {"findings": findings[:PRINT_LIMIT], "errors": errors, "summary": summary, "ignored": probe}


def _display(f: dict) -> str:
    where = f"{Path(f['file']).name}:{f['line']}" if f.get("file") else "no source line"
    return f"{f['kind']} at {where}: {f['message']}"


# The hint per tool: contract.toml [sanitizer_advice], the one home of the kit's advice texts.
HINTS = contract.SANITIZER_ADVICE


def merge(result: dict, tool: str, rc: int, parsed: dict, log: Path) -> dict:
    """The runner's result with the sanitizer's findings; a report makes the verdict `error`."""
    san = {"tool": tool, "exit_code": rc, "errors": parsed["errors"], "findings": parsed["findings"],
           "summary": parsed["summary"], "log": str(log)}
    result["sanitizer"] = san
    # The tool's exit code says "some error", the probe's included: only when every report was the
    # probe's (parse_log) does the code not count.
    reported = parsed["errors"] > 0 or (rc == SANITIZER_ERROR_EXIT and not parsed.get("ignored"))
    if reported:
        first = parsed["findings"][0] if parsed["findings"] else None
        what = _display(first) if first else "errors reported (see the log)"
        result["verdict"] = "error"
        result["exit_code"] = int(ExitCode.ERROR)
        result["message"] = f"compute-sanitizer {tool}: {parsed['errors']} error(s); first: {what}"
        result["hint_code"] = f"sanitizer-{tool}"
        hint = HINTS[tool]
        if first and first.get("file"):
            hint = f"{Path(first['file']).name}:{first['line']}: {hint}"
        result["hint"] = hint
    return result


def _write(path: Path, doc: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(path)


def _skip(path: Path, tool: str, why: str) -> int:
    _write(path, {"schema": SCHEMA, "check": tool, "verdict": "skipped", "exit_code": int(ExitCode.SKIPPED),
                  "message": why})
    print(f"skipped: {why}")
    return int(ExitCode.SKIPPED)


MEMCHECK_PADDING = 1 << 20
"""Bytes compute-sanitizer leaves after each allocation under memcheck: more than a tile's rows past
the last row of the largest matrix a check runs memcheck on."""


def run(tool: str, json_path: Path, cmd: list[str], timeout: float | None = None) -> int:
    """Run cmd under the sanitizer; write the merged result; return the exit code to report."""
    sanitizer = find_sanitizer()
    if not sanitizer:
        return _skip(json_path, tool, "compute-sanitizer is not installed (CUDA Toolkit bin/)")
    if not gpu_present():
        return _skip(json_path, tool, "no NVIDIA GPU here (nvidia-smi -L failed)")
    log = json_path.with_name(json_path.stem + f".{tool}.log")
    json_path.unlink(missing_ok=True)
    full = [sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_ERROR_EXIT), "--print-limit",
            str(PRINT_LIMIT), "--target-processes", "all", "--log-file", str(log)]
    env = None
    if tool == "racecheck":
        full += ["--racecheck-report", "all"]
    if tool == "memcheck":
        # The worker's buffers without its guard zones, each allocation padded: a read past the end
        # of M or N then lies outside every allocation, where memcheck sees it, as the emulator's
        # AddressSanitizer build does (issue #26, item 5); stores there it finds as well.
        full += ["--padding", str(MEMCHECK_PADDING)]
        env = {**os.environ, "TILELAB_EXACT_BUFFERS": "1"}
    if tool == "initcheck":
        # The worker's guard zones allocated but never written: a read past the end of M or N lands
        # in memory nothing wrote, inside the allocation, where initcheck reports it (issue #40,
        # item 3); with 0xFF guard zones it read initialised memory and saw nothing.
        env = {**os.environ, "TILELAB_UNWRITTEN_GUARDS": "1"}
    full += cmd
    try:
        p = subprocess.run(full, timeout=timeout, env=env)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = int(ExitCode.TIMEOUT)
    text = log.read_text(errors="replace") if log.exists() else ""
    sys.stdout.write(text[-20000:])
    parsed = parse_log(text)
    try:
        result = json.loads(json_path.read_text())
    except (OSError, ValueError):
        result = {"schema": SCHEMA, "check": tool, "verdict": "error", "exit_code": int(ExitCode.ERROR),
                  "message": f"the runner left no result under compute-sanitizer (exit {rc})"}
        if rc == int(ExitCode.TIMEOUT):
            result.update(verdict="timeout", exit_code=int(ExitCode.TIMEOUT),
                          message=f"compute-sanitizer {tool} did not finish within {timeout:.0f} s")
    if result.get("verdict") == "skipped":
        return int(ExitCode.SKIPPED)
    result["check"] = tool
    result = merge(result, tool, rc, parsed, log)
    _write(json_path, result)
    for f in parsed["findings"]:
        print(f"{f.get('file') or '?'}:{f.get('line', 0)}: {f['kind']}: {f['message']}")
    print(f"{result.get('stage', '')} {result.get('dataset', '')} {tool}: {result['verdict']} -- {result.get('message', '')}")
    return int(result.get("exit_code", ExitCode.ERROR))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tilelab.run.sanitize", description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True, choices=TOOLS)
    ap.add_argument("--json", required=True, type=Path, help="the runner's --json path (rewritten in place)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before the sanitized run is stopped")
    ap.add_argument("--expect-fail", action="store_true", help="the starter: a failure is what is expected")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("give the runner command after --")
    rc = run(a.tool, a.json, cmd, a.timeout)
    if not a.expect_fail or rc == ExitCode.SKIPPED:
        return rc
    try:
        hint_code = json.loads(a.json.read_text()).get("hint_code", "")
    except (OSError, ValueError):
        hint_code = ""
    if rc == ExitCode.WRONG or (rc == ExitCode.ERROR and hint_code.startswith("sanitizer-")):
        print(f"as expected for the starter: {'wrong' if rc == ExitCode.WRONG else hint_code}")
        return 0
    print(f"the starter was expected to fail (wrong, or a sanitizer report); exit code {rc}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
