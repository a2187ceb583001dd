#!/bin/sh
# Unpacks the Debian packages tilelab builds against into .deps/ (no root needed), so the tree can
# be copied to a GPU machine that has CUDA but no network and no Debian packages. There, point
# CMake at them: CMAKE_PREFIX_PATH=$PWD/.deps/usr LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu/openblas-pthread:$PWD/.deps/usr/lib/x86_64-linux-gnu
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
pkgs="doctest-dev libcli11-dev nlohmann-json3-dev libopenblas-dev \
libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0"
tmp=$(mktemp -d)
(cd "$tmp" && apt-get download $pkgs >/dev/null)
rm -rf "$here/.deps"
mkdir -p "$here/.deps"
for f in "$tmp"/*.deb; do dpkg-deb -x "$f" "$here/.deps"; done
rm -rf "$tmp" "$here/.deps/usr/share/doc" "$here/.deps/usr/share/man"
find "$here/.deps" -name "*.a" -delete  # static archives: not linked, and too large to carry
# Debian selects cblas.h and libopenblas through update-alternatives; the unpacked tree has no
# alternatives, so link the pthread variant where the compiler and linker look.
arch=x86_64-linux-gnu
ln -sf openblas-pthread/cblas.h "$here/.deps/usr/include/$arch/cblas.h"
du -sh "$here/.deps"
