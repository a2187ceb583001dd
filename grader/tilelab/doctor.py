"""`tilelab doctor`: what this machine has for the kit, and the exact command to get what is missing."""

from __future__ import annotations

import glob
import importlib.util
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import ROOT

DEBS = {  # Debian 12 package -> what it gives the kit
    "cmake": "build system (>= 3.25)", "g++": "C++ compiler", "doctest-dev": "C++ unit tests",
    "libopenblas-dev": "float64 reference products", "libboost-context-dev": "CPU emulator fibers",
    "nlohmann-json3-dev": "JSON results", "libcli11-dev": "runner options", "libtomlplusplus-dev": "stage.toml in C++",
}
PIPS = {"rich": "tables and progress bars", "jinja2": "HTML reports", "matplotlib": "plots", "pytest": "kit tests"}
CUDA_APT = ("wget https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb"
            " && sudo dpkg -i cuda-keyring_1.1-1_all.deb && sudo apt-get update"
            " && sudo apt-get install -y cuda-toolkit-12-8")


@dataclass
class Item:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True     # False: only for the GPU backend or optional extras


def _out(cmd: list[str]) -> str | None:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def _deb(pkg: str) -> bool:
    out = _out(["dpkg-query", "-W", "-f=${Status}", pkg])
    return bool(out and "install ok installed" in out)


def _version(text: str | None) -> str:
    m = re.search(r"(\d+\.\d+(\.\d+)?)", text or "")
    return m.group(1) if m else ""


def cuda_home() -> Path | None:
    nvcc = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    return Path(nvcc).resolve().parents[1] if nvcc else None


def checks() -> list[Item]:
    items = [Item("python >= 3.11", sys.version_info >= (3, 11), sys.version.split()[0],
                  "sudo apt-get install -y python3 python3-venv")]
    have_dpkg = shutil.which("dpkg-query") is not None
    for pkg, why in DEBS.items():
        ok = _deb(pkg) if have_dpkg else bool(shutil.which(pkg))
        items.append(Item(pkg, ok, why, f"sudo apt-get install -y {pkg}"))
    cm = _version(_out(["cmake", "--version"]))
    if cm:
        ok = tuple(int(x) for x in cm.split(".")[:2]) >= (3, 25)
        items.append(Item("cmake version", ok, cm, "python3 -m pip install 'cmake>=3.25' (or a newer distribution)"))
    venv = ROOT / ".venv" / "bin" / "python3"
    for mod, why in PIPS.items():
        ok = importlib.util.find_spec(mod) is not None
        items.append(Item(f"python: {mod}", ok, why,
                          f"{venv} -m pip install {mod}" if venv.exists() else "./tilelab setup"))
    home = cuda_home()
    nvcc_v = _version((_out([str(home / 'bin' / 'nvcc'), "--version"]) or "").split("release")[-1]) if home else ""
    items.append(Item("nvcc (CUDA Toolkit 12 or 13)", bool(home), f"{home} (CUDA {nvcc_v})" if home else "not found",
                      CUDA_APT, required=False))
    if home:
        ver = nvcc_v.replace(".", "-") if nvcc_v else "12-8"
        cublas = glob.glob(str(home / "lib*" / "libcublas.so*")) + glob.glob(str(home / "targets" / "*" / "lib" / "libcublas.so*"))
        items.append(Item("cuBLAS", bool(cublas), cublas[0] if cublas else "not found",
                          f"sudo apt-get install -y libcublas-dev-{ver}", required=False))
        san = shutil.which("compute-sanitizer") or (str(home / "bin" / "compute-sanitizer")
                                                     if (home / "bin" / "compute-sanitizer").exists() else "")
        items.append(Item("compute-sanitizer", bool(san), san or "not found",
                          f"sudo apt-get install -y cuda-sanitizer-{ver}", required=False))
    gpus = _out(["nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"])
    items.append(Item("NVIDIA GPU", bool(gpus and gpus.strip()),
                      "; ".join(g.strip() for g in gpus.splitlines()) if gpus else
                      "none: checks run on the CPU emulator, performance is not graded",
                      "install the NVIDIA driver: sudo apt-get install -y nvidia-driver (non-free), then reboot",
                      required=False))
    from .sandbox import network_isolation
    items.append(Item("network isolation (unshare -n)", bool(network_isolation()),
                      " ".join(network_isolation()) or "not available: untrusted code keeps network access",
                      "sudo apt-get install -y util-linux  (and allow user namespaces)", required=False))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    items.append(Item("chromium (report screenshots)", bool(chromium), chromium or "not found",
                      "sudo apt-get install -y chromium", required=False))
    return items


def report(items: list[Item]) -> tuple[list[str], int]:
    lines = []
    for it in items:
        mark = "ok " if it.ok else ("MISSING" if it.required else "missing")
        lines.append(f"[{mark:7}] {it.name}: {it.detail}")
        if not it.ok and it.fix:
            lines.append(f"          -> {it.fix}")
    missing = [it for it in items if it.required and not it.ok]
    lines.append("everything the kit needs is here" if not missing else
                 f"{len(missing)} required item(s) missing; `./tilelab setup` installs them all")
    return lines, 1 if missing else 0
