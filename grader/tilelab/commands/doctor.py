"""`tilelab doctor`: what this machine has for the kit, and a command that works *here* to get
what is missing.

Every fix is written for this machine, as probed (Probe): no `sudo` when the user is root or
there is no sudo (then it says to run the command as root); a package that no configured apt
repository offers comes with the step that adds its repository (NVIDIA's CUDA repository for
this distribution, or `apt-get update` where the package lists are empty, as in a fresh
container); CUDA packages match the nvcc found, a toolkit to install matches what the driver can
run, and a driver too old for the nvcc found is reported with both ways out. A machine with no
NVIDIA GPU gets no driver to install: its checks run on the CPU emulator and performance is
graded on a GPU machine (the instructor's grading run).
"""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import ROOT

DEBS = {  # Debian 12 / Ubuntu 24.04 package -> what it gives the kit
    "cmake": "build system (>= 3.25)", "ninja-build": "fast re-grades (make works, slower)", "g++": "C++ compiler", "doctest-dev": "C++ unit tests",
    "libopenblas-dev": "float64 reference products", "libboost-context-dev": "CPU emulator fibers",
    "nlohmann-json3-dev": "JSON results", "libcli11-dev": "runner options",
}
PIPS = {"rich": "tables and progress bars", "jinja2": "HTML reports", "matplotlib": "plots", "pytest": "kit tests",
        "copydetect": "similarity of kernels (winnowing)",
        "watchfiles": "check --watch",
        # tilelab.specs.compat: the standard library's tomllib from Python 3.11, tomli before it
        **({"tomli": "reading TOML (tomllib before Python 3.11)"} if sys.version_info < (3, 11) else {})}
CUDA_REPO = "https://developer.download.nvidia.com/compute/cuda/repos/{distro}/x86_64/cuda-keyring_1.1-1_all.deb"
CUDA_DEFAULT = (12, 8)          # the toolkit suggested where nothing says which one fits
NO_GPU = ("none here: the checks run on the CPU emulator; performance is graded on a machine with an NVIDIA "
          "GPU (your instructor's grading run) and shows as skipped here, so there is nothing to install")


def _out(cmd: list[str]) -> str | None:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def _version(text: str | None) -> str:
    m = re.search(r"(\d+\.\d+(\.\d+)?)", text or "")
    return m.group(1) if m else ""


def cuda_home() -> Path | None:
    nvcc = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    return Path(nvcc).resolve().parents[1] if nvcc else None


def _apt_candidate(pkg: str) -> bool:
    """Whether a configured apt repository offers pkg (apt-cache policy's Candidate)."""
    out = _out(["apt-cache", "policy", pkg]) or ""
    m = re.search(r"Candidate:\s*(\S+)", out)
    return bool(m and m.group(1) != "(none)")


def _deb_installed(pkg: str) -> bool:
    out = _out(["dpkg-query", "-W", "-f=${Status}", pkg])
    return bool(out and "install ok installed" in out)


def _distro() -> str:
    """NVIDIA's repository name for this OS (debian12, ubuntu2404 ...), '' when unknown."""
    try:
        rel = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
    except OSError:
        return ""
    ident, ver = rel.get("ID", "").strip('"'), rel.get("VERSION_ID", "").strip('"')
    return f"{ident}{ver.replace('.', '')}" if ident in ("debian", "ubuntu") and ver else ""


def _driver_cuda() -> tuple[int, int] | None:
    """The newest CUDA the installed driver runs (cuDriverGetVersion), None without a driver."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(v)) != 0 or v.value <= 0:
            return None
        return v.value // 1000, (v.value % 1000) // 10
    except (OSError, AttributeError):
        return None


def _nvidia_pci() -> bool:
    """An NVIDIA device (PCI vendor 0x10de) on this machine, driver or not."""
    for vendor in glob.glob("/sys/bus/pci/devices/*/vendor"):
        try:
            if Path(vendor).read_text().strip().lower() == "0x10de":
                return True
        except OSError:
            pass
    return False


@dataclass
class Probe:
    """What doctor asks of the machine; a test passes its own."""
    root: bool = field(default_factory=lambda: os.geteuid() == 0)
    sudo: bool = field(default_factory=lambda: shutil.which("sudo") is not None)
    distro: str = field(default_factory=_distro)
    apt: bool = field(default_factory=lambda: shutil.which("apt-get") is not None)
    candidate: Callable[[str], bool] = _apt_candidate
    installed: Callable[[str], bool] = _deb_installed
    nvidia_pci: Callable[[], bool] = _nvidia_pci
    driver_cuda: Callable[[], tuple[int, int] | None] = _driver_cuda
    gpus: Callable[[], str | None] = lambda: _out(
        ["nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"])


@dataclass
class Item:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True     # False: only for the GPU backend or optional extras
    absent: bool = False      # nothing to install: shown as `none`, not `missing`


class Fixes:
    """Commands that work on the probed machine."""

    def __init__(self, probe: Probe):
        self.p = probe

    def admin(self, cmd: str) -> str:
        """cmd as root: bare when root, through sudo when there is sudo, else with a word to say so."""
        if self.p.root:
            return cmd
        if self.p.sudo:
            return " && ".join(f"sudo {c}" if not c.startswith(("wget ", "cd ")) else c for c in cmd.split(" && "))
        return f"as root (su -): {cmd}"

    def cuda_repo(self) -> str:
        distro = self.p.distro or "debian12"
        url = CUDA_REPO.format(distro=distro)
        return f"wget {url} && dpkg -i {url.rsplit('/', 1)[1]} && apt-get update"

    def install(self, *pkgs: str, nvidia: bool = False) -> str:
        """apt-get install pkgs, after adding the repository that offers them when none does."""
        if not self.p.apt:
            return f"install {' '.join(pkgs)} with this system's package manager"
        steps = []
        if not all(self.p.candidate(p) for p in pkgs):
            steps.append(self.cuda_repo() if nvidia else "apt-get update")
        steps.append(f"apt-get install -y {' '.join(pkgs)}")
        return self.admin(" && ".join(steps))


def _cuda_items(probe: Probe, fx: Fixes) -> list[Item]:
    items = []
    home = cuda_home()
    nvcc_v = _version((_out([str(home / "bin" / "nvcc"), "--version"]) or "").split("release")[-1]) if home else ""
    nvcc = tuple(int(x) for x in nvcc_v.split(".")[:2]) if nvcc_v else None
    drv = probe.driver_cuda()
    gpus = probe.gpus()
    has_gpu = bool(gpus and gpus.strip())
    # A toolkit to install: one the driver runs (no newer than its CUDA), else the kit's default.
    want = CUDA_DEFAULT if not drv or drv[0] < 12 else min(drv, CUDA_DEFAULT) if drv[0] == 12 else drv
    items.append(Item("nvcc (CUDA Toolkit 12 or 13)", bool(home), f"{home} (CUDA {nvcc_v})" if home else "not found",
                      fx.install(f"cuda-toolkit-{want[0]}-{want[1]}", nvidia=True), required=False))
    if home:
        ver = f"{nvcc[0]}-{nvcc[1]}" if nvcc else f"{want[0]}-{want[1]}"
        cublas = glob.glob(str(home / "lib*" / "libcublas.so*")) + glob.glob(str(home / "targets" / "*" / "lib" / "libcublas.so*"))
        items.append(Item("cuBLAS", bool(cublas), cublas[0] if cublas else "not found",
                          fx.install(f"libcublas-dev-{ver}", nvidia=True), required=False))
        san = shutil.which("compute-sanitizer") or (str(home / "bin" / "compute-sanitizer")
                                                     if (home / "bin" / "compute-sanitizer").exists() else "")
        items.append(Item("compute-sanitizer", bool(san), san or "not found",
                          fx.install(f"cuda-sanitizer-{ver}", nvidia=True), required=False))
    if has_gpu:
        items.append(Item("NVIDIA GPU", True, "; ".join(g.strip() for g in gpus.splitlines()), required=False))
    elif probe.nvidia_pci():
        items.append(Item("NVIDIA GPU", False, "an NVIDIA device is here but no driver answers (nvidia-smi)",
                          fx.install("cuda-drivers", nvidia=True) + "; then reboot", required=False))
    else:
        items.append(Item("NVIDIA GPU", False, NO_GPU, required=False, absent=True))
    if nvcc and drv and drv < nvcc:
        same_major = drv[0] == nvcc[0]
        detail = (f"the driver runs CUDA up to {drv[0]}.{drv[1]}, nvcc is {nvcc[0]}.{nvcc[1]}: "
                  + ("kernels built for this GPU run (minor-version compatibility), PTX from this nvcc does not"
                     if same_major else "nothing this nvcc builds can run"))
        fix = f"a newer driver: {fx.install('cuda-drivers', nvidia=True)}, then reboot"
        if drv[0] >= 12:   # the kit needs CUDA 12 or 13
            fix += f"; or the toolkit this driver runs: {fx.install(f'cuda-toolkit-{drv[0]}-{drv[1]}', nvidia=True)}"
        items.append(Item("driver for this nvcc", same_major, detail, fix, required=False))
    return items


def checks(probe: Probe | None = None) -> list[Item]:
    probe = probe or Probe()
    fx = Fixes(probe)
    items = [Item("python >= 3.9", sys.version_info >= (3, 9), sys.version.split()[0],
                  fx.install("python3", "python3-venv"))]
    have_dpkg = shutil.which("dpkg-query") is not None
    for pkg, why in DEBS.items():
        ok = probe.installed(pkg) if have_dpkg else bool(shutil.which(pkg))
        items.append(Item(pkg, ok, why, fx.install(pkg)))
    cm = _version(_out(["cmake", "--version"]))
    venv = ROOT / ".venv" / "bin" / "python3"
    if cm:
        ok = tuple(int(x) for x in cm.split(".")[:2]) >= (3, 25)
        items.append(Item("cmake version", ok, cm, f"{venv if venv.exists() else 'python3'} -m pip install 'cmake>=3.25'"
                          " (then put its bin folder first on PATH), or a newer distribution"))
    for mod, why in PIPS.items():
        ok = importlib.util.find_spec(mod) is not None
        items.append(Item(f"python: {mod}", ok, why,
                          f"{venv} -m pip install {mod}" if venv.exists() else "./tilelab setup"))
    items += _cuda_items(probe, fx)
    from ..run.sandbox import network_isolation
    items.append(Item("network isolation (unshare -n)", bool(network_isolation()),
                      " ".join(network_isolation()) or "not available: untrusted code keeps network access",
                      fx.install("util-linux") + " (and allow user namespaces)", required=False))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    items.append(Item("chromium (report screenshots)", bool(chromium), chromium or "not found",
                      fx.install("chromium"), required=False))
    return items


def report(items: list[Item]) -> tuple[list[str], int]:
    lines = []
    for it in items:
        mark = "ok " if it.ok else "none" if it.absent else ("MISSING" if it.required else "missing")
        lines.append(f"[{mark:7}] {it.name}: {it.detail}")
        if not it.ok and it.fix:
            lines.append(f"          -> {it.fix}")
    missing = [it for it in items if it.required and not it.ok]
    lines.append("everything the kit needs is here" if not missing else
                 f"{len(missing)} required item(s) missing; `./tilelab setup` installs them all")
    return lines, 1 if missing else 0
