#!/bin/bash
# On the offline GPU machine: docs/notebook.ipynb cell by cell (notebook-run.py), the way a student
# runs it in a GPU notebook, in this checkout (no clone: the machine has no network). What a
# notebook reaches over the network is stood in for by what was carried in $TILELAB_NB_DEPS
# (default .deps/nb): wheels/ for the package index (PIP_FIND_LINKS, PIP_NO_INDEX: setup's own pip
# reads them) and debs/ for the one -dev package this machine's image lacks (Boost.Context, listed
# in debs/packages and unpacked into .deps as pack-offline-deps.sh does). apt itself cannot reach
# its mirror here, as on a notebook whose only way out is the package index: install-deps.sh goes
# on without it. Arguments go to notebook-run.py (e.g. --skip 12: the test cell in a call of its own).
#   bash grader/setup/gpu-notebook.sh [--skip I,J]      (logs and the executed notebook in $OUT/notebook)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
nb=${TILELAB_NB_DEPS:-$root/.deps/nb}
out=${OUT:-$root/build}/notebook
if [ ! -d "$root/.deps/usr" ]; then
  mkdir -p "$root/.deps" && rm -rf "$root/.deps/debs" && cp -r "$nb/debs" "$root/.deps/debs"
  sh "$root/grader/setup/pack-offline-deps.sh" --unpack >/dev/null || exit 1
fi
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$nb/wheels"
python3 "$root/grader/setup/notebook-run.py" --skip-clone "$root" --impl solution --workdir /tmp/notebook-work \
  --out "$out" "$@"
