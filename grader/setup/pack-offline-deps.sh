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
# OpenBLAS for the reference, CLI11, nlohmann/json and doctest for the runner and its tests.
pkgs="doctest-dev libcli11-dev nlohmann-json3-dev libopenblas-dev libopenblas-pthread-dev \
libopenblas0-pthread libgfortran5 libquadmath0 libboost-context-dev"
debs="$here/.deps/debs"
if [ "${1:-}" != "--unpack" ]; then
  rm -rf "$debs" && mkdir -p "$debs"
  # libboost-context-dev is a metapackage: fetch what it names (the versioned -dev, its library and
  # Boost's headers), not the rest of its dependency tree (thread, atomic...: not used).
  ctx=$(apt-cache depends libboost-context-dev | awk '/Depends: libboost-context/{print $2; exit}')
  ver=${ctx#libboost-context}; ver=${ver%-dev}
  (cd "$debs" && apt-get download $pkgs "$ctx" "libboost-context$ver.0" "libboost$ver-dev" >/dev/null)
fi
rm -rf "$here/.deps/usr"
for f in "$debs"/*.deb; do dpkg-deb -x "$f" "$here/.deps"; done
rm -rf "$here/.deps/usr/share/doc" "$here/.deps/usr/share/man"
# Debian selects cblas.h and libopenblas through update-alternatives; the unpacked tree has no
# alternatives, so link the pthread variant where the compiler and linker look.
arch=x86_64-linux-gnu
ln -sf openblas-pthread/cblas.h "$here/.deps/usr/include/$arch/cblas.h"
du -sh "$debs" "$here/.deps/usr"
