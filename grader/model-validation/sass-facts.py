#!/usr/bin/env python3
"""nvcc's back end on every kernel of the model's validation, in one JSON, for fitting the model
offline from the stored counts (model-emu.json, heldout/*/model-*-emu.json) and these facts (issue
#44): every held-out set's <name>/<stage>/matmul.cu and the fitting set's variants, as
model_variants.py writes them, each compiled for sm_90 with the kit's nvcc wheel and read by
tilelab.run.sass_facts (registers, spills, shared memory, launch bounds, the hot loop's instruction
mix per kernel; `main`, the kernel doing the product).

    sass-facts.py OUT.json [--jobs N] [--set NAME ...]

OUT.json: {"nvcc": ..., "seconds": ..., "kernels": {name: {"set", "stage", "what", "facts"}}}.
Needs the wheels (grader/setup/install-deps.sh, or TILELAB_CUDA_WHEEL); no GPU."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "grader")]
import model_variants  # noqa: E402
from tilelab.run import nvcc_wheel, sass_facts  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], choices=list(model_variants.SETS))
    a = ap.parse_args(argv)
    root, why = nvcc_wheel.find()
    if root is None:
        print(f"sass-facts: {why}", file=sys.stderr)
        return 1
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tilelab-sass-facts-") as tmp:
        model_variants.write(Path(tmp))
        manifest = json.loads((Path(tmp) / "variants.json").read_text())
        names = [n for n, v in manifest.items() if not a.set or v["set"] in a.set]

        def one(name):
            v = manifest[name]
            return name, sass_facts.of_source(Path(tmp) / name / v["stage"] / "matmul.cu", root=root)
        with ThreadPoolExecutor(max(1, a.jobs)) as pool:
            results = dict(pool.map(one, names))
    kernels = {n: {"set": manifest[n]["set"], "stage": manifest[n]["stage"], "what": manifest[n]["what"],
                   "facts": results[n]} for n in names}
    unread = [n for n, k in kernels.items() if not k["facts"]["read"]]
    doc = {"nvcc": nvcc_wheel.version(root), "arch": nvcc_wheel.ARCH, "seconds": round(time.monotonic() - t0, 1),
           "kernels": kernels}
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"sass-facts: {len(kernels)} kernels in {doc['seconds']} s, {len(unread)} not read"
          + (f" ({', '.join(unread)})" if unread else "") + f": {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
