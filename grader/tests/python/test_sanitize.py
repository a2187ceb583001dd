"""tilelab.run.sanitize: parsing compute-sanitizer logs, folding findings into the result, skipping
where the tool or the GPU is missing (no GPU is needed: the sanitizer is faked)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tilelab.run import allowlist, sanitize

MEMCHECK = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at MatrixMulKernel(const float *, const float *, float *, int)+0x1f0 in /tmp/sub/01-basic/matmul.cu:24
=========     by thread (1,0,0) in block (1,1,0)
=========     Address 0x7f0000000444 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========     Host Frame: [0x2f0e1] in libcuda.so.1
=========
========= Invalid __global__ write of size 4 bytes
=========     at MatrixMulKernel(const float *, const float *, float *, int)+0x2a0 in /tmp/sub/01-basic/matmul.cu:27
=========     by thread (2,0,0) in block (1,1,0)
=========
========= ERROR SUMMARY: 2 errors
"""

RACECHECK = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at MatrixMulKernel(const float *, const float *, float *, int)+0x1c0 in /s/02-tiled/matmul.cu:31
=========     and Read access at MatrixMulKernel(const float *, const float *, float *, int)+0x250 in /s/02-tiled/matmul.cu:35 [4096 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""

SYNCCHECK = """\
========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp
=========     at MatrixMulKernel(const float *, const float *, float *, int)+0x90 in matmul.cu:29
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 1 error
"""

CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"


def test_memcheck_findings_name_kind_file_and_line():
    p = sanitize.parse_log(MEMCHECK)
    assert p["errors"] == 2
    assert [(f["kind"], Path(f["file"]).name, f["line"]) for f in p["findings"]] == [
        ("invalid-global-read", "matmul.cu", 24), ("invalid-global-write", "matmul.cu", 27)]
    assert p["findings"][0]["function"].startswith("MatrixMulKernel")


def test_racecheck_and_synccheck():
    r = sanitize.parse_log(RACECHECK)
    assert r["errors"] == 1 and r["findings"][0]["kind"] == "race" and r["findings"][0]["line"] == 31
    s = sanitize.parse_log(SYNCCHECK)
    assert s["findings"][0]["kind"] == "barrier" and s["findings"][0]["line"] == 29


def test_clean_log_has_no_findings():
    p = sanitize.parse_log(CLEAN)
    assert p == {"findings": [], "errors": 0, "summary": "ERROR SUMMARY: 0 errors", "ignored": 0}


# As seen on an H100 (compute-sanitizer 2025.3.1): a runner that exits 2 (wrong result) with no
# report, and a memcheck log past its --print-limit.
WRONG_BUT_CLEAN = """\
========= COMPUTE-SANITIZER
========= Target application returned an error
========= ERROR SUMMARY: 0 errors
"""
PAST_PRINT_LIMIT = MEMCHECK.replace("========= ERROR SUMMARY: 2 errors\n", """\
========= Target application returned an error
========= ERROR SUMMARY: 240 errors were not printed. Use --print-limit option to adjust the number of printed errors
========= ERROR SUMMARY: 260 errors
""")


def test_a_runner_exit_code_is_not_a_finding():
    p = sanitize.parse_log(WRONG_BUT_CLEAN)
    assert p["findings"] == [] and p["errors"] == 0
    wrong = {"verdict": "wrong", "exit_code": 2, "message": "wrong result"}
    assert sanitize.merge(dict(wrong), "synccheck", 1, p, Path("l"))["verdict"] == "wrong"


def test_initcheck_host_api_report_has_a_kind():
    log = ("========= COMPUTE-SANITIZER\n"
           "========= Host API memory access error at host access to 0x7f8e70800c00 of size 1,156 bytes\n"
           "=========     Uninitialized access to 0x7f8e70800c40 on access by cudaMemcpy source\n"
           "=========     Saved host backtrace up to driver entry point at error\n"
           "========= ERROR SUMMARY: 1 error\n")
    assert [f["kind"] for f in sanitize.parse_log(log)["findings"]] == ["host-api-access"]


def test_error_count_is_the_summary_not_the_unprinted_count():
    p = sanitize.parse_log(PAST_PRINT_LIMIT)
    assert p["errors"] == 260 and len(p["findings"]) == 2


def test_merge_turns_a_report_into_error_and_keeps_a_clean_verdict():
    passed = {"verdict": "pass", "exit_code": 0, "message": "correct"}
    r = sanitize.merge(dict(passed), "memcheck", sanitize.SANITIZER_ERROR_EXIT, sanitize.parse_log(MEMCHECK), Path("l"))
    assert r["verdict"] == "error" and r["exit_code"] == 2 and r["hint_code"] == "sanitizer-memcheck"
    assert "matmul.cu:24" in r["hint"] and r["sanitizer"]["findings"][0]["line"] == 24
    c = sanitize.merge(dict(passed), "memcheck", 0, sanitize.parse_log(CLEAN), Path("l"))
    assert c["verdict"] == "pass" and c["sanitizer"]["errors"] == 0


def _fake_tools(tmp_path: Path, log_text: str, rc: int, gpu: bool = True) -> Path:
    """A fake compute-sanitizer (writes log_text to --log-file, runs the command, exits rc when
    the log has errors) and a fake nvidia-smi."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (tmp_path / "log.txt").write_text(log_text)
    san = bindir / "compute-sanitizer"
    san.write_text(f"""#!{sys.executable}
import subprocess, sys, shutil
a = sys.argv[1:]
log = a[a.index('--log-file') + 1]
shutil.copy({str(tmp_path / 'log.txt')!r}, log)
i = a.index('--log-file') + 2
while a[i] in ('--racecheck-report', '--padding'):   # the tool's own options, then the command
    i += 2
r = subprocess.run(a[i:]).returncode
sys.exit({rc} if {rc} else r)
""")
    smi = bindir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\nexit {0 if gpu else 9}\n")
    for f in (san, smi):
        f.chmod(f.stat().st_mode | stat.S_IEXEC)
    return bindir


def _runner(tmp_path: Path, verdict: str, code: int) -> list[str]:
    """A fake runner writing a result with this verdict to its --json."""
    f = tmp_path / "runner.py"
    f.write_text(f"""import json, sys
a = sys.argv
p = a[a.index('--json') + 1]
json.dump({{"schema": {sanitize.SCHEMA!r}, "stage": "01-basic", "dataset": "w129",
            "verdict": {verdict!r}, "exit_code": {code}, "message": "m"}}, open(p, "w"))
sys.exit({code})
""")
    return [sys.executable, str(f)]


def test_run_reports_sanitizer_errors_as_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{_fake_tools(tmp_path, MEMCHECK, sanitize.SANITIZER_ERROR_EXIT)}:{os.environ['PATH']}")
    out = tmp_path / "r.json"
    rc = sanitize.main(["--tool", "memcheck", "--json", str(out), "--", *_runner(tmp_path, "pass", 0),
                        "--json", str(out)])
    r = json.loads(out.read_text())
    assert rc == 2 and r["verdict"] == "error" and r["check"] == "memcheck"
    assert r["sanitizer"]["findings"][1]["kind"] == "invalid-global-write"


def test_run_keeps_a_clean_pass(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{_fake_tools(tmp_path, CLEAN, 0)}:{os.environ['PATH']}")
    out = tmp_path / "r.json"
    rc = sanitize.main(["--tool", "synccheck", "--json", str(out), "--", *_runner(tmp_path, "pass", 0),
                        "--json", str(out)])
    assert rc == 0 and json.loads(out.read_text())["verdict"] == "pass"


@pytest.mark.parametrize("tool, exact, unwritten", [
    ("memcheck", "1", ""), ("initcheck", "", "1"), ("synccheck", "", ""), ("racecheck", "", "")])
def test_each_tool_gets_the_buffers_it_sees_past_an_end_with(tmp_path, monkeypatch, tool, exact, unwritten):
    """memcheck: exact buffers (padded by the tool), a read past an end lies outside every
    allocation; initcheck: unwritten guard zones, a read past an end reads memory nothing wrote
    (issue #40, item 3); the others: the runner's 0xFF guard zones."""
    monkeypatch.delenv("TILELAB_EXACT_BUFFERS", raising=False)
    monkeypatch.delenv("TILELAB_UNWRITTEN_GUARDS", raising=False)
    monkeypatch.setenv("PATH", f"{_fake_tools(tmp_path, CLEAN, 0)}:{os.environ['PATH']}")
    f = tmp_path / "env_runner.py"
    f.write_text(f"""import json, os, sys
a = sys.argv
json.dump({{"schema": {sanitize.SCHEMA!r}, "verdict": "pass", "exit_code": 0,
            "message": os.environ.get("TILELAB_EXACT_BUFFERS", "") + "," + os.environ.get("TILELAB_UNWRITTEN_GUARDS", "")}},
          open(a[a.index('--json') + 1], "w"))
""")
    out = tmp_path / "r.json"
    assert sanitize.main(["--tool", tool, "--json", str(out), "--", sys.executable, str(f), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["message"] == f"{exact},{unwritten}"


def test_starter_expect_fail(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{_fake_tools(tmp_path, CLEAN, 0)}:{os.environ['PATH']}")
    out = tmp_path / "r.json"
    args = ["--tool", "initcheck", "--json", str(out), "--expect-fail", "--"]
    assert sanitize.main([*args, *_runner(tmp_path, "wrong", 1), "--json", str(out)]) == 0
    assert sanitize.main([*args, *_runner(tmp_path, "pass", 0), "--json", str(out)]) == 1


def test_skips_without_gpu_or_tool(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{_fake_tools(tmp_path, CLEAN, 0, gpu=False)}:{os.environ['PATH']}")
    out = tmp_path / "r.json"
    assert sanitize.main(["--tool", "memcheck", "--json", str(out), "--", "false"]) == 77
    assert json.loads(out.read_text())["verdict"] == "skipped"
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: None)
    assert sanitize.main(["--tool", "racecheck", "--json", str(out), "--expect-fail", "--", "false"]) == 77


@pytest.mark.parametrize("symbol,forbidden_", [
    ("fork", True), ("clone", True), ("setsid", True), ("kill", True), ("posix_spawn", True),
    ("execvp", True), ("dlopen", True), ("dlsym", True), ("fopen", True), ("openat", True), ("mmap", True),
    ("socket", True), ("connect", True), ("cublasSgemm_v2", True), ("cudnnCreate", True), ("syscall", True),
    ("std::basic_ifstream<char, std::char_traits<char> >::basic_ifstream(char const*, std::_Ios_Openmode)", True),
    ("std::thread::_M_start_thread(std::unique_ptr<std::thread::_State>, void (*)())", True),
    ("cudaMalloc", False), ("printf", False), ("fprintf", False), ("exit", False), ("atexit", False),
    ("__cudaRegisterFatBinary", False), ("cudaGetErrorString", False), ("memcpy", False)])
def test_forbidden_symbol_list(symbol, forbidden_):
    assert (allowlist.classify(symbol) is not None) == forbidden_


def test_forbidden_thrust_kernels_are_found_by_their_defined_names():
    assert allowlist.classify_defined("void thrust::cuda_cub::core::_kernel_agent<...>(...)")
    assert allowlist.classify_defined("cub::DeviceReduceKernel<...>") is not None
    assert allowlist.classify_defined("MatrixMulKernel(float const*, float const*, float*, int)") is None


# The differential check's safety verdicts (grader/tests/differential/differential.py; issue #26,
# item 5): its GPU half runs the variants with a memory or race bug under compute-sanitizer through
# this module, and `compare` sets the findings beside the emulator's. No GPU: the tools are faked.
DIFFERENTIAL = Path(__file__).resolve().parents[1] / "differential" / "differential.py"
needs_differential = pytest.mark.skipif(not DIFFERENTIAL.exists(),
                                        reason="the differential check is instructor material (not in a student repository)")


def _differential():
    import importlib.util
    path = DIFFERENTIAL
    spec = importlib.util.spec_from_file_location("tilelab_differential", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rec(vid, backend, dataset, verdict, where=(), **extra):
    return {"id": vid, "stage": "03-boundary", "backend": backend, "dataset": dataset, "verdict": verdict,
            "hint_code": where[0][2] if where else None, "findings": sorted({w[0] for w in where}),
            "hints": sorted({w[2] for w in where if w[2]}), "where": [list(w) for w in where], "rc": 0,
            "output": "", **extra}


def _compare(tmp_path, meta, emu_runs, gpu_runs):
    d = _differential()
    (tmp_path / "emu.json").write_text(json.dumps({"variants": meta, "runs": emu_runs}))
    (tmp_path / "gpu.json").write_text(json.dumps({"variants": meta, "runs": gpu_runs}))
    md = tmp_path / "differential.md"
    args = type("A", (), {"emu": tmp_path / "emu.json", "gpu": tmp_path / "gpu.json", "md": md})
    return d.cmd_compare(args), md.read_text()


@needs_differential
def test_differential_compare_safety_table(tmp_path):
    meta = {vid: {"id": vid, "stage": "03-boundary", "good": bug is None, "bug": bug, "options": {}}
            for vid, bug in [("v000", None), ("v031", "no-barrier-2"), ("v111", "m-load-past-end"),
                             ("v112", "n-load-past-end"), ("v113", "split-k-no-atomics")]}
    oob = ("out-of-bounds-global", 42, "out-of-bounds-global")
    emu = [_rec("v000", "emu", "w17", "pass"), _rec("v031", "emu", "w17", "wrong"),
           _rec("v031", "emu-race", "w17", "error", [("race", 35, "missing-barrier-before-overwrite")]),
           _rec("v111", "emu", "w17", "pass"), _rec("v111", "emu-asan", "w17", "error", [oob]),
           _rec("v112", "emu", "w17", "pass"), _rec("v112", "emu-asan", "w17", "error", [oob]),
           _rec("v113", "emu", "w17", "wrong"),
           _rec("v113", "emu-race", "w17", "error", [("race", 50, "race-between-blocks")])]
    gpu = [_rec("v000", "gpu", "w17", "pass"), _rec("v031", "gpu", "w17", "pass"),   # timing hid the race
           _rec("v111", "gpu", "w17", "pass"), _rec("v112", "gpu", "w17", "pass"), _rec("v113", "gpu", "w17", "wrong"),
           _rec("v031", "gpu-racecheck", "w17", "error", [("race", 35, "")], tool="racecheck", errors=1),
           _rec("v111", "gpu-memcheck", "w17", "error", [("invalid-global-read", 42, "")], tool="memcheck", errors=7),
           _rec("v112", "gpu-memcheck", "w17", "error", [("invalid-global-read", 42, "")], tool="memcheck", errors=3)]
    rc, text = _compare(tmp_path, meta, emu, gpu)
    assert rc == 0, text
    assert "5 (variant, dataset) pairs: 4 same verdict, 1 explained, 0 unexplained" in text
    assert "4 variants with a memory or race bug: 3 agree, 0 disagree (0 failing), 1 with no GPU tool" in text
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if line.startswith("| v")}
    assert "emu-asan: out-of-bounds-global:42 | memcheck: invalid-global-read:42 (7 errors) | agree" in rows["v111"]
    assert "emu-race: race:35 | racecheck: race:35 (1 errors) | agree" in rows["v031"]
    assert "race-between-blocks | emu-race: race:50 |" in rows["v113"] and "no GPU tool" in rows["v113"]

    # memcheck misses the read past the end of N that the asan build found: the script fails
    gpu[-1] = _rec("v112", "gpu-memcheck", "w17", "pass", tool="memcheck", errors=0)
    rc, text = _compare(tmp_path, meta, emu, gpu)
    assert rc == 1 and "1 disagree (1 failing)" in text and "memcheck: none | disagree (fails)" in text
    # a sanitizer that did not run (no record, or skipped) is counted, not failed
    rc, text = _compare(tmp_path, meta, emu, gpu[:5])
    assert rc == 0 and "0 agree, 0 disagree (0 failing), 1 with no GPU tool, 3 not run" in text
    # an out-of-bounds read explains no plain-verdict difference: both backends read a guard zone
    gpu[2] = _rec("v111", "gpu", "w17", "wrong")
    rc, text = _compare(tmp_path, meta, emu, gpu)
    assert rc == 1 and "| v111 | 03-boundary | m-load-past-end | w17 | pass | wrong | unexplained: - |" in text


@needs_differential
def test_differential_runs_the_bugs_under_their_tool(tmp_path, monkeypatch):
    """`run --backends gpu-sanitizer`: the bug's tool (SAFETY), through tilelab.run.sanitize, on the first
    dataset; the variant reaches the runner, memcheck's exact buffers too."""
    d = _differential()
    monkeypatch.setenv("PATH", f"{_fake_tools(tmp_path, MEMCHECK, sanitize.SANITIZER_ERROR_EXIT)}:{os.environ['PATH']}")
    tree = tmp_path / "tree"
    (tree / "runners").mkdir(parents=True)
    judge = tree / "runners" / "tilelab-judge"   # a fake judge: the result says what env it saw
    judge.write_text(f"""#!{sys.executable}
import json, os, sys
a = sys.argv
open({str(tmp_path / "seen.txt")!r}, "w").write(",".join([
    os.environ.get("TILELAB_VARIANT", ""), os.environ.get("TILELAB_EXACT_BUFFERS", ""),
    os.path.basename(a[a.index("--worker") + 1]), os.path.basename(a[a.index("--dataset") + 1])]))
json.dump({{"schema": {sanitize.SCHEMA!r}, "verdict": "pass", "exit_code": 0, "message": "correct"}},
          open(a[a.index("--json") + 1], "w"))
""")
    judge.chmod(judge.stat().st_mode | stat.S_IEXEC)
    variants = tmp_path / "variants"
    variants.mkdir()
    meta = [{"id": vid, "stage": stage, "good": bug is None, "bug": bug, "options": {}}
            for vid, stage, bug in [("v000", "03-boundary", None), ("v111", "03-boundary", "m-load-past-end"),
                                    ("v116", "04-rectangular", "split-k-no-atomics")]]
    (variants / "manifest.json").write_text(json.dumps({"variants": meta}))
    seen = []
    real = d.run_one
    monkeypatch.setattr(d, "run_one", lambda *a: seen.append(a[1:5]) or real(*a))
    args = type("A", (), {"tree": tree, "variants": variants, "backends": "gpu-sanitizer", "out": tmp_path / "gpu.json",
                          "jobs": 2, "timeout": 60})
    assert d.cmd_run(args) == 0
    assert seen == [("03-boundary", "gpu-memcheck", "v111", "w17")]   # no tool for a race between blocks
    r, = json.loads((tmp_path / "gpu.json").read_text())["runs"]
    assert r["backend"] == "gpu-memcheck" and r["tool"] == "memcheck" and r["errors"] == 2
    assert r["verdict"] == "error" and r["hint_code"] == "sanitizer-memcheck"
    assert r["findings"] == ["invalid-global-read", "invalid-global-write"]
    assert ["invalid-global-read", 24, ""] in r["where"]
    assert (tmp_path / "seen.txt").read_text() == "v111,1,run-variants-03-boundary-gpu,w17"


# A clean solution's memcheck log from an H200 (CUDA 13.0): the worker's parameter probe and its
# clearing cudaGetLastError are the only reports (grader/setup/gpu-verify.sh, 2026-11-28).
PROBE_LOG = (Path(__file__).parent / "data" / "memcheck-param-probe-h200.log").read_text()


def test_the_workers_parameter_probe_is_not_a_finding():
    p = sanitize.parse_log(PROBE_LOG)
    assert p["findings"] == [] and p["errors"] == 0 and p["ignored"] == 2
    passed = {"verdict": "pass", "exit_code": 0}
    r = sanitize.merge(dict(passed), "memcheck", sanitize.SANITIZER_ERROR_EXIT, p, Path("l"))
    assert r["verdict"] == "pass"


def test_a_students_own_api_error_is_still_a_finding():
    # cudaGetLastError returning an error that no probe caused (an invalid launch), after the probe pair.
    own = PROBE_LOG.replace("========= ERROR SUMMARY: 2 errors", (
        "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA API call to "
        "cudaGetLastError.\n=========     Saved host backtrace up to driver entry point at error\n=========\n"
        "========= ERROR SUMMARY: 3 errors"))
    p = sanitize.parse_log(own)
    assert [f["kind"] for f in p["findings"]] == ["api-error"] and p["errors"] == 1
    r = sanitize.merge({"verdict": "pass", "exit_code": 0}, "memcheck", sanitize.SANITIZER_ERROR_EXIT, p, Path("l"))
    assert r["verdict"] == "error"
    # ...and a memory error beside the probe stays one.
    mem = sanitize.parse_log(PROBE_LOG.replace("========= ERROR SUMMARY: 2 errors", MEMCHECK.split("\n", 1)[1].replace(
        "ERROR SUMMARY: 2 errors", "ERROR SUMMARY: 4 errors")))
    assert [f["kind"] for f in mem["findings"]] == ["invalid-global-read", "invalid-global-write"] and mem["errors"] == 2
