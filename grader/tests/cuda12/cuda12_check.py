#!/usr/bin/env python3
"""CTest kit.cuda12: the kit's device code compiles with CUDA 12, from NVIDIA's CUDA 12 wheels.

    cuda12_check.py --cache DIR [--sources FILE...]

A student's notebook or a department's server often has CUDA 12; the kit is developed and run on
CUDA 13. No CUDA 12 nvcc is on the package index, but CUDA 12's front end is (NVRTC 12.9, in
nvidia-cuda-nvrtc-cu12), so are its assembler (ptxas 12.9, in nvidia-cuda-nvcc-cu12) and its
headers (nvidia-cuda-runtime-cu12). So, for every reference solution, every starter and every
known-good submission of the kit (the kernels students start from and the idioms the kit promises
to accept), this check takes the device half of the file (device_only.py: what nvcc's split hands
to the device compiler), compiles it with NVRTC 12 to PTX -- each template kernel instantiated as
the file's host code launches it -- and assembles the PTX with ptxas 12 for sm_75 (T4, the usual
free notebook GPU), sm_80 (A100) and sm_90 (H100, H200); a file that uses TF32 tensor cores (07)
(or the kit's PTX wrappers, <tilelab/mma_ptx.cuh>) needs sm_80 and is not compiled for sm_75. It also compiles the runner's launch probe, the host
file with a CUDA 12 branch (it wraps cudaLaunchKernel there; CUDA 13 launches through
__cudaLaunchKernel), against CUDA 12's headers with the host compiler.

What it cannot prove (no CUDA 12 nvcc, cudafe++ or cudart on the index): the host half of a .cu
file as CUDA 12's nvcc splits and compiles it (the launch stubs), the link, and a CUDA 12 build
running on a GPU.

The wheels are downloaded once into DIR (`pip download`, ~135 MB) and unpacked there. Prints one
line per file (registers and spills at sm_90 from ptxas -v). Exit 0: everything compiled; 1: a file
did not (its log is printed); 77: the wheels cannot be had here (no pip, no network to the package
index) -- except under CI=true, where that fails too.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path[:0] = [str(HERE), str(ROOT / "grader"), str(ROOT / "grader" / "tests" / "submissions")]
import device_only  # noqa: E402
from tilelab.specs.compat import tomllib  # noqa: E402

SKIP = 77
WHEELS = ["nvidia-cuda-nvrtc-cu12==12.9.*", "nvidia-cuda-nvcc-cu12==12.9.*", "nvidia-cuda-runtime-cu12==12.9.*",
          "nvidia-cuda-cccl-cu12==12.9.*"]
ARCHS = (75, 80, 90)


class Unavailable(Exception):
    pass


def fetch(cache: Path) -> Path:
    """The unpacked wheels' `nvidia/` folder, downloading them the first time."""
    root = cache / "site"
    if (root / "nvidia" / "cuda_nvrtc").is_dir() and (root / "nvidia" / "cuda_nvcc" / "bin" / "ptxas").exists():
        return root / "nvidia"
    dl = cache / "wheels"
    dl.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--disable-pip-version-check", "--platform", "manylinux2014_x86_64", "-d", str(dl), *WHEELS],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Unavailable(f"pip download {' '.join(WHEELS)} failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    for whl in dl.glob("*.whl"):
        with zipfile.ZipFile(whl) as z:
            z.extractall(root)
    (root / "nvidia" / "cuda_nvcc" / "bin" / "ptxas").chmod(0o755)
    return root / "nvidia"


class NVRTC:
    def __init__(self, lib: Path):
        self.lib = ctypes.CDLL(str(lib))
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.version = f"{major.value}.{minor.value}"
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def ptx(self, source: str, name: str, options: list[str], names: list[str]) -> tuple[str | None, str]:
        """(PTX or None, the compile log)."""
        prog = ctypes.c_void_p()
        heads = (ctypes.c_char_p * len(device_only.HEADERS))(*[t.encode() for t in device_only.HEADERS.values()])
        named = (ctypes.c_char_p * len(device_only.HEADERS))(*[n.encode() for n in device_only.HEADERS])
        self._ok(self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                             len(device_only.HEADERS), heads, named))
        try:
            for n in names:
                self._ok(self.lib.nvrtcAddNameExpression(prog, n.encode()))
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            rc = self.lib.nvrtcCompileProgram(prog, len(options), opts)
            size = ctypes.c_size_t()
            self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            self.lib.nvrtcGetProgramLog(prog, log)
            if rc != 0:
                return None, log.value.decode(errors="replace")
            self.lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
            ptx = ctypes.create_string_buffer(size.value)
            self.lib.nvrtcGetPTX(prog, ptx)
            return ptx.value.decode(), log.value.decode(errors="replace")
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))

    def _ok(self, rc: int) -> None:
        if rc != 0:
            raise RuntimeError(self.lib.nvrtcGetErrorString(rc).decode())


def sources() -> list[tuple[str, str]]:
    """(label, text): the solutions, the starters, and each submission whose every verdict is pass."""
    import mutate
    out = [(str(p.relative_to(ROOT)), p.read_text()) for folder in ("solutions", "starter")
           for p in sorted((ROOT / folder).glob("*/matmul.cu"))]
    for expect in sorted((ROOT / "grader" / "tests" / "submissions").glob("*/expect.toml")):
        doc = tomllib.loads(expect.read_text())
        verdicts = set(re.findall(r'verdict\s*=\s*(?:\[([^\]]*)\]|"(\w+)")', expect.read_text()))
        flat = {v.strip(' "') for pair in verdicts for part in pair for v in part.split(",") if v.strip(' "')}
        if flat != {"pass"}:
            continue
        name, stage = expect.parent.name, doc.get("stage", "")
        if "mutant" in doc:
            out.append((f"submissions/{name} (mutant)", mutate.apply(name, stage, doc["mutant"])))
        elif (expect.parent / stage / "matmul.cu").is_file():
            out.append((f"submissions/{name}", (expect.parent / stage / "matmul.cu").read_text()))
    return out


def compile_one(nvrtc: NVRTC, ptxas: Path, include: list[Path], label: str, text: str, work: Path) -> tuple[bool, str]:
    split = device_only.split(text)
    names = device_only.instantiations(split)
    archs = [a for a in ARCHS if a >= 80] if re.search(r"precision::tf32|__float_to_tf32|tilelab/mma_ptx\.cuh", text) else list(ARCHS)
    notes = []
    for arch in archs:
        opts = [f"--gpu-architecture=compute_{arch}", "-std=c++17", *[f"-I{d}" for d in include],
                f"-I{ROOT / 'grader' / 'include'}"]   # <tilelab/mma_ptx.cuh>, the one kit header a kernel file may include
        ptx, log = nvrtc.ptx(split.device, "matmul.cu", opts, names)
        if ptx is None:
            return False, f"NVRTC {nvrtc.version} (compute_{arch}):\n{log.strip()}"
        ptx_file = work / f"sm_{arch}.ptx"
        ptx_file.write_text(ptx)
        r = subprocess.run([str(ptxas), f"-arch=sm_{arch}", "-v", str(ptx_file), "-o", str(work / f"sm_{arch}.cubin")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return False, f"ptxas (sm_{arch}):\n{r.stderr.strip()}"
        if arch == 90:
            regs = sorted({int(m) for m in re.findall(r"Used (\d+) registers", r.stderr)})
            spills = sum(int(m) for m in re.findall(r"(\d+) bytes spill stores", r.stderr))
            notes.append(f"sm_90 registers {'/'.join(map(str, regs)) or '?'}, spill stores {spills} B")
    kernels = len(re.findall(r"^\.(?:visible|weak)?\s*\.entry\s", ptx, flags=re.M))
    return True, f"{kernels} kernel(s); sm_{'/'.join(map(str, archs))}; " + "; ".join(notes)


def launch_probe(include: list[Path]) -> tuple[bool, str]:
    """The launch probe against CUDA 12's headers, syntax only (no CUDA 12 cudart to link)."""
    cxx = os.environ.get("CXX", "g++")
    args = [cxx, "-fsyntax-only", "-std=c++17", *[f"-I{d}" for d in include],
            f"-I{ROOT / 'grader' / 'include'}", f"-I{ROOT / 'grader' / 'runner'}", str(ROOT / "grader" / "runner" / "launch_probe.cpp")]
    for extra in (ROOT / "grader" / "third_party").glob("*/include"):
        args.insert(-1, f"-I{extra}")
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()[-3000:]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, required=True)
    a = ap.parse_args()
    try:
        nv = fetch(a.cache)
    except Unavailable as e:
        print(f"kit.cuda12: {e}")
        if os.environ.get("CI") == "true":
            return 1
        print("skipped: the CUDA 12 wheels cannot be downloaded here")
        return SKIP
    nvrtc = NVRTC(nv / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    ptxas = nv / "cuda_nvcc" / "bin" / "ptxas"
    include = [nv / "cuda_runtime" / "include", nv / "cuda_nvcc" / "include", nv / "cuda_cccl" / "include"]
    print(f"NVRTC {nvrtc.version}; {subprocess.run([str(ptxas), '--version'], capture_output=True, text=True).stdout.splitlines()[-1]}")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, text) in enumerate(sources()):
            work = Path(tmp) / str(i)
            work.mkdir()
            ok, msg = compile_one(nvrtc, ptxas, include, label, text, work)
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {msg}" if ok else f"FAIL {label}:\n{msg}\n")
            failed += not ok
    ok, msg = launch_probe(include)
    print(f"{'ok  ' if ok else 'FAIL'} grader/runner/launch_probe.cpp against CUDA 12.9's headers" + ("" if ok else f":\n{msg}"))
    failed += not ok
    print(f"{failed} failed" if failed else "every file compiled with CUDA 12")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
