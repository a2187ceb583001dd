#!/bin/sh
# Installs what tilelab needs on Debian 12 (and derivatives): the Debian packages, then a Python
# virtual environment in .venv with the grader's Python packages. Safe to run again.
# `--test-deps` (what .ci/run passes) also installs what only the kit's own tests use: slurm-wlm and
# munge for kit.slurm (it starts a one-node cluster of its own and uses none of the packages'
# services or configuration) and ccache, which shares that test's compiles. copydetect
# fingerprints kernels for `tilelab similarity`.
# Used by `./tilelab setup` and by .ci/run. Needs root or sudo for apt-get.
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)

DEBS="cmake ninja-build g++ make python3 python3-venv doctest-dev libopenblas-dev libboost-context-dev \
nlohmann-json3-dev libcli11-dev"
if [ "${1:-}" = "--test-deps" ]; then DEBS="$DEBS slurm-wlm munge ccache"; fi
PIPS="rich jinja2 matplotlib pytest copydetect watchfiles"
# TILELAB_BROWSER=1 (CI): also Chromium, for the kit's test of the HTML report in a real browser
# (kit.report.browser); students and graders do not need it.
[ "${TILELAB_BROWSER:-0}" = 1 ] && DEBS="$DEBS chromium"

missing=""
for p in $DEBS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "tilelab: need root or sudo to install:$missing" >&2; exit 1; fi
  echo "tilelab: installing Debian packages:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# A Python >= 3.11 for the venv: Debian's (3.11 on Debian 12) first, since the sandbox user that
# runs untrusted checks when the grader is root must be able to run it (a pyenv under /root is not
# readable by others); else python3 on PATH.
py=/usr/bin/python3
if ! $py -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null; then py=python3; fi
if [ ! -x "$here/.venv/bin/python3" ]; then
  echo "tilelab: creating $here/.venv"
  $py -m venv "$here/.venv"
fi
if ! "$here/.venv/bin/python3" -c 'import rich, jinja2, matplotlib, pytest, copydetect, watchfiles' 2>/dev/null; then
  echo "tilelab: installing Python packages: $PIPS"
  "$here/.venv/bin/python3" -m pip install -q --disable-pip-version-check $PIPS
fi
echo "tilelab: dependencies ready"
