#!/bin/sh
# Downloads the Debian packages tilelab builds against into .deps/debs/ (no root needed), so the
# tree can be copied to a GPU machine that has CUDA but no network and no Debian packages. Carry
# .deps/debs (about 23 MB: compressed, where the unpacked tree is over 200 MB with Boost's headers);
# there, the GPU scripts source offline-env.sh, which unpacks them into .deps/usr and points CMake
# and the loader at them.
#   pack-offline-deps.sh           download (here, with apt) and unpack
#   pack-offline-deps.sh --unpack  unpack what .deps/debs holds (on the machine with no network)
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
# Boost.Context for the CPU emulator (its headers come in libboost1.*-dev, the only large one),
# OpenBLAS for the reference, CLI11, nlohmann/json and doctest for the runner and its tests. The
# download and the unpacking are grader/setup/debs.sh's, which install-deps.sh also uses for a user
# without root.
. "$here/grader/setup/debs.sh"
debs="$here/.deps/debs"
if [ "${1:-}" != "--unpack" ]; then
  tilelab_debs_download "$debs" doctest-dev libcli11-dev nlohmann-json3-dev libopenblas-dev \
    libboost-context-dev || { cat "$debs/apt.log" >&2; exit 1; }
fi
tilelab_debs_unpack "$debs"
du -sh "$debs" "$here/.deps/usr"
