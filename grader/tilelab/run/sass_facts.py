"""The facts of nvcc's back end about one kernel file, for the performance model: per kernel, what
ptxas gave it (registers, spills, stack, static shared memory, barriers, launch bounds) and its hot
loop's instruction mix from the SASS (run/sass.py), with the kernel that does the product named
`main` (the most multiply-adds in its hot loop; of kernels alike, the most registers). One JSON document, written at build time beside the
grading tree's results (grader/cmake/TilelabEmu.cmake) and read by the judge into the perf-model
result (`timing.impls.<name>.model.backend`); where the wheels are missing or nvcc refuses the file,
the document says why and the model is the traffic model alone.

    python3 -m tilelab.run.sass_facts --source matmul.cu --out facts.json [--define NAME ...]
    python3 -m tilelab.run.sass_facts --cubin k.cubin --ptxas-log log.txt --out facts.json

The first compiles (with the kit's nvcc wheel, for sm_90) and reads; the second reads a cubin
compiled before (the build compiles a submission confined, then reads its cubin with this). Either
always exits 0 with a document: the facts are shown, they never fail a build."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import kernel_resources, nvcc_wheel, sass, symbols

SCHEMA = "tilelab-sass-facts/1"


def _demangled(names: list[str]) -> dict[str, str]:
    """Each kernel's name as written, with its parameters (for the student to read); where c++filt
    is missing or gives a name back mangled (an older binutils: symbols.nested_prefix), the
    qualified name it begins with."""
    tool = shutil.which("c++filt")
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines() \
        if tool and names else []
    if len(out) != len(names):
        out = names
    return {n: symbols.nested_prefix(n) if o.strip() == n else o.strip() for n, o in zip(names, out)}


def read_cubin(root: Path, cubin: Path, ptxas_log: str) -> dict:
    """The facts of a compiled cubin (ptxas's report of its compile given as text)."""
    disasm = nvcc_wheel.run(root, "nvdisasm", "-c", str(cubin))
    if disasm.returncode != 0:
        return unread(f"nvdisasm could not read the cubin: {disasm.stderr.strip()[:300]}")
    elf = nvcc_wheel.run(root, "cuobjdump", "-elf", str(cubin)).stdout
    report = kernel_resources.ptxas_report(ptxas_log)
    bounds = kernel_resources.max_threads(elf)
    fns = {f.name: f for f in sass.functions(disasm.stdout)}
    names = [n for n in report if n in fns] or list(fns)
    pretty = _demangled(names)
    kernels = {}
    for n in names:
        fn = fns[n]
        k = {"name": pretty[n], **report.get(n, {}), "max_threads_per_block": bounds.get(n, 0),
             "instructions": len(fn.instructions), "whole": sass.mix(fn.instructions)}
        k["whole"].pop("mnemonics", None)
        k["hot_loop"] = sass.loop_facts(fn)
        kernels[n] = k
    if not kernels:
        return unread("the cubin holds no kernel")

    # The kernel doing the product: the most multiply-adds in its hot loop, then in all; of kernels
    # alike (a template's aligned and general instantiations), the one with the most registers,
    # the fewer blocks per SM: which of them a launch runs is not in the file.
    def weight(n):
        k = kernels[n]
        return (k["hot_loop"].get("products", 0), k["whole"]["products"], k.get("registers", 0))
    return {"schema": SCHEMA, "read": True, "arch": nvcc_wheel.ARCH, "main": max(kernels, key=weight),
            "kernels": kernels}


def unread(why: str) -> dict:
    return {"schema": SCHEMA, "read": False, "why": why}


def of_source(src: Path, defines=(), root: Path | None = None) -> dict:
    """Compile src with the wheel's nvcc and read it; a document saying why where that cannot be done."""
    if root is None:
        root, why = nvcc_wheel.find()
        if root is None:
            return unread(why)
    with tempfile.TemporaryDirectory(prefix="tilelab-sass-") as tmp:
        cubin = Path(tmp) / "k.cubin"
        try:
            done = nvcc_wheel.compile_cubin(root, src, cubin, defines)
        except subprocess.TimeoutExpired:
            return unread("nvcc took longer than its limit")
        except OSError as e:
            return unread(f"nvcc could not be run: {e}")
        if done.returncode != 0 or not cubin.exists():
            return unread("nvcc did not compile the file: " + " ".join(done.stderr.split())[:400])
        log = cubin.with_suffix(".log")
        log.write_text(done.stderr)
        return of_cubin(root, cubin, log)


def of_cubin(root: Path, cubin: Path | None, ptxas_log: Path | None) -> dict:
    """Read a cubin the build compiled (empty where nvcc refused the file: its log says why)."""
    log = ptxas_log.read_text(errors="replace") if ptxas_log and ptxas_log.exists() else ""
    if not cubin or not cubin.exists() or cubin.stat().st_size == 0:
        return unread("nvcc did not compile the file: " + " ".join(log.split())[:400])
    facts = read_cubin(root, cubin, log)
    if facts["read"]:
        facts["nvcc"] = nvcc_wheel.version(root)
    return facts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path)
    ap.add_argument("--cubin", type=Path)
    ap.add_argument("--ptxas-log", type=Path)
    ap.add_argument("--define", action="append", default=[])
    ap.add_argument("--wheel", type=Path, help="the wheels' folder (nvidia/cu13); default: found as nvcc_wheel.find does")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    root, why = (a.wheel, "") if a.wheel else nvcc_wheel.find()
    try:
        facts = of_source(a.source, a.define, root) if a.source and root else unread(why) if not root else \
            of_cubin(root, a.cubin, a.ptxas_log)
    except (OSError, ValueError, subprocess.SubprocessError) as e:   # never fails the build: says why
        facts = unread(f"nvcc's back end could not be read: {e}")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(facts, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
