"""NVIDIA's compiler as the package index ships it, found and run without root and without a GPU:
`nvidia-cuda-nvcc` 13 (nvcc, cudafe++, ptxas; with `nvidia-nvvm`'s cicc and the runtime's headers,
which it requires), `nvidia-cuda-nvdisasm` and `nvidia-cuda-cuobjdump`, installed by
grader/setup/install-deps.sh into the kit's .venv. Only the wheel is used, never a CUDA toolkit on
the machine: every grade reads the same compiler's output (docs/performance.md, "What nvcc's back
end says").

    python3 -m tilelab.run.nvcc_wheel      prints the tools' folder, or says why there is none (exit 1)
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from .. import ROOT

ARCH = "sm_90"        # the model's GPU: H100 (H200 the same)
TOOLS = ("nvcc", "ptxas", "nvdisasm", "cuobjdump")
ENV = "TILELAB_CUDA_WHEEL"   # a folder holding bin/nvcc ... (the wheels' nvidia/cu13), instead of the search
# The folder of the kit's headers written for students (<tilelab/mma_ptx.cuh>), on the path as in the
# GPU build, so that a file using the PTX wrappers is read as the GPU will run it. The build's
# confined compile may read only that header of it (TilelabBackendFacts.cmake).
STUDENT_INCLUDE = ROOT / "grader" / "include"


def _candidates() -> list[Path]:
    if os.environ.get(ENV):
        return [Path(os.environ[ENV])]
    out = []
    spec = importlib.util.find_spec("nvidia")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        out.append(Path(loc) / "cu13")
    out += sorted((ROOT / ".venv" / "lib").glob("python3*/site-packages/nvidia/cu13"))
    return out


def find() -> tuple[Path | None, str]:
    """The wheels' folder (bin/nvcc, bin/nvdisasm, bin/cuobjdump in it), or None and why."""
    for root in _candidates():
        missing = [t for t in TOOLS if not os.access(root / "bin" / t, os.X_OK)]
        if not missing:
            return root, ""
        if (root / "bin").is_dir():
            return None, (f"{root}/bin lacks {', '.join(missing)}: install nvidia-cuda-nvcc, nvidia-cuda-nvdisasm "
                          "and nvidia-cuda-cuobjdump (grader/setup/install-deps.sh)")
    return None, ("NVIDIA's compiler wheels are not installed (nvidia-cuda-nvcc, nvidia-cuda-nvdisasm, "
                  "nvidia-cuda-cuobjdump; grader/setup/install-deps.sh installs them into .venv)")


def run(root: Path, tool: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(root / "bin" / tool), *args], capture_output=True, text=True, timeout=timeout)


def compile_cubin(root: Path, src: Path, cubin: Path, defines=()) -> subprocess.CompletedProcess:
    """src compiled for ARCH into cubin, with ptxas's report (-v) on stderr."""
    return run(root, "nvcc", f"-arch={ARCH}", "-cubin", "-Xptxas", "-v", f"-I{STUDENT_INCLUDE}",
               *(f"-D{d}" for d in defines),
               "-o", str(cubin), str(src), timeout=300)


def version(root: Path) -> str:
    """'nvcc 13.5 (V13.5.37)', from nvcc's release line ('Cuda compilation tools, release 13.5, V13.5.37')."""
    m = re.search(r"release ([\d.]+), (V[\d.]+)", run(root, "nvcc", "--version").stdout)
    return f"nvcc {m[1]} ({m[2]})" if m else "nvcc"


if __name__ == "__main__":
    found, why = find()
    print(found if found else why)
    sys.exit(0 if found else 1)
