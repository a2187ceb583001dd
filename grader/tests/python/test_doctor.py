"""`tilelab doctor` gives commands that work on the machine it runs on: no sudo where there is
none (or where root needs none), a repository added before a package only it offers, CUDA
packages that match the nvcc and driver found, and no driver to install where there is no GPU."""

import pytest

from tilelab.commands import doctor

NVIDIA_ONLY = ("cuda-", "libcublas", "cuda-sanitizer")


def probe(**kw):
    base = dict(root=False, sudo=True, distro="debian12", apt=True,
                candidate=lambda pkg: not pkg.startswith(NVIDIA_ONLY) and pkg != "chromium",
                installed=lambda pkg: pkg != "libcli11-dev", nvidia_pci=lambda: False,
                driver_cuda=lambda: None, gpus=lambda: None)
    return doctor.Probe(**(base | kw))


def item(items, name):
    return next(i for i in items if i.name.startswith(name))


def fixes(items):
    return [i.fix for i in items if i.fix and not i.ok]


@pytest.mark.parametrize("root, sudo, want", [(True, True, ""), (True, False, ""), (False, True, "sudo "),
                                              (False, False, "as root")])
def test_root_needs_no_sudo_and_no_sudo_is_named_where_there_is_none(root, sudo, want):
    items = doctor.checks(probe(root=root, sudo=sudo))
    fix = item(items, "libcli11-dev").fix
    assert fix.startswith(want) and "apt-get install -y libcli11-dev" in fix
    if not sudo or root:
        assert not any("sudo" in f for f in fixes(items)), fixes(items)


def test_a_package_no_repository_offers_comes_with_its_repository():
    items = doctor.checks(probe(root=True, candidate=lambda pkg: False, distro="ubuntu2404"))
    nvcc = item(items, "nvcc").fix
    assert "repos/ubuntu2404/x86_64/cuda-keyring" in nvcc and nvcc.index("dpkg -i") < nvcc.index("apt-get install")
    assert item(items, "libcli11-dev").fix == "apt-get update && apt-get install -y libcli11-dev"
    offered = doctor.checks(probe(root=True))
    assert item(offered, "libcli11-dev").fix == "apt-get install -y libcli11-dev"


def test_without_any_nvidia_device_there_is_no_driver_to_install():
    items = doctor.checks(probe(nvidia_pci=lambda: False))
    gpu = item(items, "NVIDIA GPU")
    assert not gpu.fix and "driver" not in gpu.detail.lower()
    assert "CPU emulator" in gpu.detail and "graded on a machine with an NVIDIA GPU" in gpu.detail
    lines, _ = doctor.report(items)
    assert any(line.startswith("[none") and "NVIDIA GPU" in line for line in lines)


def test_an_nvidia_device_without_a_driver_gets_one_from_nvidia():
    gpu = item(doctor.checks(probe(nvidia_pci=lambda: True)), "NVIDIA GPU")
    assert "cuda-drivers" in gpu.fix and "cuda-keyring" in gpu.fix


def test_the_toolkit_offered_is_one_the_driver_runs(monkeypatch):
    monkeypatch.setattr(doctor, "cuda_home", lambda: None)
    old = doctor.checks(probe(driver_cuda=lambda: (12, 2), gpus=lambda: "H100, 9.0, 535.1"))
    assert "cuda-toolkit-12-2" in item(old, "nvcc").fix
    new = doctor.checks(probe(driver_cuda=lambda: (13, 0), gpus=lambda: "H100, 9.0, 580.1"))
    assert "cuda-toolkit-13-0" in item(new, "nvcc").fix


@pytest.mark.parametrize("driver, ok", [((12, 2), True), ((11, 8), False)])
def test_a_driver_older_than_nvcc_is_reported_with_both_ways_out(monkeypatch, tmp_path, driver, ok):
    nvcc = tmp_path / "cuda" / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    nvcc.chmod(0o755)
    monkeypatch.setattr(doctor, "cuda_home", lambda: tmp_path / "cuda")
    items = doctor.checks(probe(root=True, driver_cuda=lambda: driver, gpus=lambda: "H100, 9.0, 1"))
    drv = item(items, "driver for this nvcc")
    assert drv.ok is ok and "12.8" in drv.detail and "cuda-drivers" in drv.fix
    assert ("cuda-toolkit-12-2" in drv.fix) is ok, "a CUDA 11 toolkit is never offered: the kit needs 12 or 13"
    assert "libcublas-dev-12-8" in item(items, "cuBLAS").fix, "CUDA libraries match the nvcc found"


def test_the_python_floor_is_3_9():
    """Debian 11's python3 (3.9.2) is the oldest the kit runs on (grader/tests/python/test_compat.py)."""
    python = item(doctor.checks(probe()), "python >=")
    assert python.name == "python >= 3.9" and python.ok
