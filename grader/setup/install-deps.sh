#!/bin/sh
# Installs what tilelab needs on Debian 11, 12 and 13 (and derivatives with apt): the Debian
# packages, then a Python virtual environment in .venv with the grader's Python packages. Safe to
# run again. Used by `./tilelab setup` and by .ci/run.
#   * as root or with sudo: apt-get installs the Debian packages the release has; what it lacks or
#     has too old is filled in without it (decided per package from apt-cache policy, never from
#     the release's name): cmake >= 3.25 and ninja from PyPI wheels into .venv, CLI11 from the
#     kit's vendored copy (grader/third_party/CLI11, which CMake takes when it finds no CLI11);
#   * as a user without root or sudo, with only the distribution's g++ and python3: nothing is
#     installed into the system. The -dev packages are fetched with `apt-get download` and unpacked
#     into the checkout's .deps/ (grader/setup/debs.sh, shared with pack-offline-deps.sh), a venv is
#     made without python3-venv (pip bootstrapped from Debian's python3-pip-whl), cmake and ninja
#     come from PyPI. `./tilelab` then puts .venv's cmake and .deps on the path
#     (grader/setup/kit-env.sh).
# Where none of that can work (macOS, Windows outside WSL, a Linux without apt) it says so in one
# line and what to use instead. Every failure is one line of its own saying what to do.
# `--test-deps` (what .ci/run passes) also installs what only the kit's own tests use: slurm-wlm and
# munge for kit.slurm (it starts a one-node cluster of its own and uses none of the packages'
# services or configuration) and ccache, which shares that test's compiles. copydetect
# fingerprints kernels for `tilelab similarity`.
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
say() { echo "tilelab: $*"; }
die() { echo "tilelab: $*" >&2; exit 1; }
instead="use WSL 2 with Debian or Ubuntu, the dev container in .devcontainer/, or a Debian/Ubuntu Linux machine"

case "$(uname -s)" in
  Linux) ;;
  Darwin) die "macOS is not supported (the kit needs Linux: Landlock, Debian's packages); $instead" ;;
  MINGW*|MSYS*|CYGWIN*) die "Windows outside WSL is not supported; $instead" ;;
  *) die "$(uname -s) is not supported; $instead" ;;
esac
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null ||
  die "this Linux has no apt/dpkg (the kit installs Debian packages); $instead"

DEBS="cmake ninja-build g++ make python3 python3-venv doctest-dev libopenblas-dev libboost-context-dev \
nlohmann-json3-dev libcli11-dev"
if [ "${1:-}" = "--test-deps" ]; then DEBS="$DEBS slurm-wlm munge ccache"; fi
PIPS="rich jinja2 matplotlib pytest copydetect watchfiles"
IMPORTS="rich, jinja2, matplotlib, pytest, copydetect, watchfiles"
# TILELAB_BROWSER=1 (CI): also Chromium, for the kit's test of the HTML report in a real browser
# (kit.report.browser); students and graders do not need it.
[ "${TILELAB_BROWSER:-0}" = 1 ] && DEBS="$DEBS chromium"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# Succeeds when version $1 >= $2 (dotted numbers; a Debian epoch or revision is cut off).
version_ge() {
  a=${1#*:}; a=${a%%[-+~]*}
  [ "$(printf '%s\n%s\n' "$2" "$a" | sort -t. -k1,1n -k2,2n -k3,3n | head -1)" = "$2" ]
}
cmake_ok() { v=$("$1" --version 2>/dev/null | awk 'NR==1{print $3}'); [ -n "$v" ] && version_ge "$v" 3.25; }

. "$here/grader/setup/debs.sh"
# What is missing, less what an earlier run filled in without apt (so that a second run does nothing).
missing=""
for p in $DEBS; do
  installed "$p" && continue
  case "$p" in
    cmake) { command -v cmake >/dev/null && cmake_ok cmake; } || cmake_ok "$here/.venv/bin/cmake" && continue ;;
    ninja-build) [ -x "$here/.venv/bin/ninja" ] && continue ;;
    make) [ -x "$here/.venv/bin/ninja" ] && continue ;;
    libcli11-dev) [ -z "$(tilelab_deb_candidate "$p")" ] && [ -n "$(tilelab_deb_candidate g++)" ] && continue ;;
  esac
  grep -qx "$p" "$here/.deps/debs/packages" 2>/dev/null && continue
  missing="$missing $p"
done
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"
elif command -v sudo >/dev/null && [ -t 0 ] && sudo -v 2>/dev/null; then sudo="sudo"; else sudo="none"; fi
# python3 is in DEBS: root or sudo installs it with the rest (the dev container's base image has
# none); without them it is the one thing the user must already have.
command -v python3 >/dev/null || [ "$sudo" != none ] ||
  die "python3 is missing and there is no root or sudo to install it: ask for python3 (apt-get install python3), or $instead"

need_pip_cmake=0; need_pip_ninja=0; need_debs=""
if [ -n "$missing" ] && [ "$sudo" != none ]; then
  # ---- root or sudo: apt-get installs what the release has ----
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get update -qq >/tmp/tilelab-apt.$$ 2>&1; then
    # The mirror cannot be reached (a notebook or server whose only way out is the package index,
    # an air-gapped machine with the -dev packages installed): go on when nothing else needs apt.
    why=$(grep -m1 '^[EW]:' /tmp/tilelab-apt.$$ || echo 'no message')
    apt_needed=""
    for p in $missing; do
      case "$p" in
        cmake) need_pip_cmake=1 ;;
        ninja-build|make) need_pip_ninja=1 ;;
        libcli11-dev) ;;   # the vendored copy
        python3-venv) python3 -c 'import ensurepip' 2>/dev/null || apt_needed="$apt_needed $p" ;;
        slurm-wlm|munge|ccache|chromium) say "$p: apt-get cannot reach its mirror; left out (CI only)" ;;
        *) apt_needed="$apt_needed $p" ;;
      esac
    done
    [ -z "$apt_needed" ] ||
      die "apt-get update failed ($why), and the kit needs$apt_needed from it: check the network and /etc/apt/sources.list, then run ./tilelab setup again"
    say "apt-get update failed ($why); nothing else needs apt: cmake and ninja come from PyPI"
    missing=""
  fi
  apt_install=""
  for p in $missing; do
    cand=$(tilelab_deb_candidate "$p")
    case "$p" in
      cmake) if [ -n "$cand" ] && version_ge "$cand" 3.25; then apt_install="$apt_install $p"
             else say "cmake: this release's is ${cand:-absent}, the kit needs >= 3.25: taking PyPI's cmake into .venv"; need_pip_cmake=1; fi ;;
      ninja-build) if [ -n "$cand" ]; then apt_install="$apt_install $p"; else need_pip_ninja=1; fi ;;
      libcli11-dev) if [ -n "$cand" ]; then apt_install="$apt_install $p"
                    else say "libcli11-dev: not in this release: the kit's vendored CLI11 (grader/third_party/CLI11) is used"; fi ;;
      *) [ -n "$cand" ] || die "the Debian package $p is not in this system's package lists (apt-cache policy $p: no candidate): add the release's main archive to /etc/apt/sources.list, or $instead"
         apt_install="$apt_install $p" ;;
    esac
  done
  if [ -n "$apt_install" ]; then
    say "installing Debian packages:$apt_install"
    if ! $sudo apt-get install -y -qq --no-install-recommends $apt_install >/tmp/tilelab-apt.$$ 2>&1; then
      # One at a time, to name the package that fails.
      for p in $apt_install; do
        $sudo apt-get install -y -qq --no-install-recommends "$p" >/tmp/tilelab-apt.$$ 2>&1 ||
          die "apt-get could not install $p ($(grep -m1 '^E:' /tmp/tilelab-apt.$$ || tail -1 /tmp/tilelab-apt.$$)): fix that (try: ${sudo:+sudo }apt-get install $p), then run ./tilelab setup again"
      done
    fi
  fi
  rm -f /tmp/tilelab-apt.$$
elif [ -n "$missing" ]; then
  # ---- no root, no sudo: nothing into the system; the -dev packages into .deps ----
  say "no root or sudo: installing into $here (.deps, .venv), not into the system"
  for p in $missing; do
    case "$p" in
      g++) die "g++ is missing, and without root or sudo the kit cannot install a compiler: ask an administrator for g++ (apt-get install g++), or $instead" ;;
      python3) ;;   # present (checked above); the package is not needed as such
      cmake) need_pip_cmake=1 ;;
      ninja-build|make) need_pip_ninja=1 ;;
      python3-venv) ;;   # the venv is made without it, below
      slurm-wlm|munge|ccache|chromium) say "$p: needs root (CI only); left out" ;;
      *) need_debs="$need_debs $p" ;;
    esac
  done
fi
if ! command -v cmake >/dev/null || ! cmake_ok cmake; then
  [ -x "$here/.venv/bin/cmake" ] && cmake_ok "$here/.venv/bin/cmake" || need_pip_cmake=1
fi

if [ -n "$need_debs" ]; then
  debs=""
  for p in $need_debs; do
    if [ -n "$(tilelab_deb_candidate "$p")" ]; then debs="$debs $p"
    elif [ "$p" = libcli11-dev ]; then say "libcli11-dev: not in this release: the kit's vendored CLI11 (grader/third_party/CLI11) is used"
    else die "the Debian package $p is not in this system's package lists (apt-cache policy $p: no candidate), and without root the kit cannot add it: ask an administrator to install $p, or $instead"; fi
  done
  if [ -n "$debs" ]; then
    say "downloading Debian packages into .deps (apt-get download, dpkg-deb -x):$debs"
    tilelab_debs_download "$here/.deps/debs" $debs ||
      die "apt-get download failed ($(grep -m1 '^E:' "$here/.deps/debs/apt.log" || tail -1 "$here/.deps/debs/apt.log")): the package lists may be stale or absent; ask an administrator to run apt-get update, or $instead"
    tilelab_debs_unpack "$here/.deps/debs" || die "dpkg-deb could not unpack the packages in .deps/debs; delete .deps and run ./tilelab setup again"
    printf '%s\n' $debs >"$here/.deps/debs/packages"
  fi
fi

# ---- Python: a venv with the grader's packages ----
# Debian's python3 first (3.9 on Debian 11, 3.11 on 12, 3.13 on 13), since the sandbox user that
# runs untrusted checks when the grader is root must be able to run it (a pyenv under /root is not
# readable by others); else python3 on PATH. tomli reads TOML where Python < 3.11 has no tomllib.
py=/usr/bin/python3
if ! $py -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null; then py=python3; fi
$py -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null ||
  die "$($py --version 2>&1) is too old: the grader needs Python >= 3.9 (Debian 11 or later has it); $instead"
if ! $py -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null; then PIPS="$PIPS tomli"; IMPORTS="$IMPORTS, tomli"; fi
if [ ! -x "$here/.venv/bin/python3" ] || ! "$here/.venv/bin/python3" -m pip --version >/dev/null 2>&1; then
  say "creating $here/.venv"
  rm -rf "$here/.venv"
  if ! $py -m venv "$here/.venv" >/dev/null 2>&1; then
    # No python3-venv (no ensurepip): a venv without pip, then pip run from Debian's own pip wheel
    # (python3-pip-whl; python-pip-whl before Debian 12: whichever the lists have).
    rm -rf "$here/.venv"
    $py -m venv --without-pip "$here/.venv" || die "python3 -m venv --without-pip failed; install python3-venv, or $instead"
    whl="$here/.deps/pip-whl"; pkg=""
    for p in python3-pip-whl python-pip-whl; do [ -n "$(tilelab_deb_candidate "$p")" ] && { pkg=$p; break; }; done
    [ -n "$pkg" ] || die "python3-venv is missing and this release's lists have no python3-pip-whl nor python-pip-whl: ask an administrator for python3-venv, or $instead"
    # Debian's python3 before 3.12 keeps distutils in python3-distutils, which pip < 3.10 imports:
    # unpacked into .deps/python and put on the venv's path (a .pth) when the python lacks it.
    if ! $py -c 'import distutils.util' 2>/dev/null && [ -n "$(tilelab_deb_candidate python3-distutils)" ]; then
      pkg="$pkg python3-distutils"
    fi
    # shellcheck disable=SC2086 # one or two packages
    tilelab_debs_download "$whl" $pkg ||
      die "python3-venv is missing and apt-get download $pkg failed ($(grep -m1 '^E:' "$whl/apt.log")): ask an administrator for python3-venv, or $instead"
    for f in "$whl"/*.deb; do dpkg-deb -x "$f" "$whl/x"; done
    if [ -d "$whl/x/usr/lib/$(basename "$(readlink -f "$py")")/distutils" ]; then
      rm -rf "$here/.deps/python" && mv "$whl/x/usr/lib" "$here/.deps/python"
      site=$("$here/.venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
      # The stdlib keeps distutils/__init__.py (a stub without util), the package the rest: its
      # folder joins the stub package's path.
      for d in "$here"/.deps/python/python3*/distutils; do echo "import distutils; distutils.__path__.append('$d')"; done >"$site/tilelab-distutils.pth"
    fi
    # Debian's pip is debundled: it imports its vendored libraries from the wheels beside it (which
    # it looks for under /usr/share/python-wheels, not here): they go on PYTHONPATH for this once.
    pipwhl=$(ls "$whl"/x/usr/share/python-wheels/pip-*.whl | head -1)
    wheels=$(ls "$whl"/x/usr/share/python-wheels/*.whl | tr '\n' ':')
    PYTHONPATH="$wheels" "$here/.venv/bin/python3" "$pipwhl/pip" install -q --disable-pip-version-check pip >/dev/null ||
      die "bootstrapping pip from Debian's python3-pip-whl failed (no access to PyPI?); ask an administrator for python3-venv, or $instead"
    rm -rf "$whl"
  fi
fi
vpip() { "$here/.venv/bin/python3" -m pip install -q --disable-pip-version-check "$@" ||
  die "pip could not install $* from PyPI (no network, or a proxy?): fix that, then run ./tilelab setup again"; }
if ! "$here/.venv/bin/python3" -c "import $IMPORTS" 2>/dev/null; then
  say "installing Python packages: $PIPS"
  vpip $PIPS
fi
# NVIDIA's compiler as wheels from the package index (no root, no GPU, no CUDA toolkit): the
# performance model reads what nvcc's back end makes of each kernel it models (ptxas's registers,
# the SASS of the hot loop; docs/performance.md, "What nvcc's back end says"). nvcc, cicc and the
# headers are CUDA 13.0.88's, the compiler of the GPU measurements the model is validated on; the
# disassemblers have no 13.0 wheel (13.2 is their first) and read its cubins. About 107 MB to
# download, 260 MB installed. TILELAB_NO_CUDA_WHEELS=1 leaves them out; where pip cannot fetch them
# the set-up goes on, and the model reads the emulator's counts alone (the report says which).
CUDA_WHEELS="nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-runtime==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-cccl==13.0.85
nvidia-cuda-nvdisasm==13.5.37 nvidia-cuda-cuobjdump==13.5.37"
if [ "${TILELAB_NO_CUDA_WHEELS:-0}" != 1 ] && ! { ls "$here"/.venv/lib/python3*/site-packages/nvidia/cu13/bin/nvdisasm && ls "$here"/.venv/lib/python3*/site-packages/nvidia/cu13/include/nv/target; } >/dev/null 2>&1; then
  say "installing NVIDIA's compiler wheels for the performance model (nvcc 13.0, nvdisasm; about 107 MB)"
  # shellcheck disable=SC2086 # the list
  "$here/.venv/bin/python3" -m pip install -q --disable-pip-version-check $CUDA_WHEELS ||
    say "pip could not install NVIDIA's compiler wheels: the performance model reads the emulator's counts alone (./tilelab setup again retries)"
fi
if [ "$need_pip_cmake" = 1 ] && ! cmake_ok "$here/.venv/bin/cmake"; then
  say "installing cmake >= 3.25 from PyPI into .venv"
  vpip "cmake>=3.25"
fi
if [ "$need_pip_ninja" = 1 ] && [ ! -x "$here/.venv/bin/ninja" ]; then
  say "installing ninja from PyPI into .venv"
  vpip ninja
fi
say "dependencies ready"
