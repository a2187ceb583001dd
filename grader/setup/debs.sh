# Sourced by pack-offline-deps.sh (the offline GPU machine) and install-deps.sh (a user without root):
# the one piece of code that fetches Debian packages with `apt-get download` (no root needed: it
# only reads the package lists) and unpacks them with `dpkg-deb -x` into the checkout's .deps/, where
# CMake finds them (grader/cmake/TilelabDependencies.cmake) and grader/setup/kit-env.sh points the
# loader. Nothing is installed into the system. POSIX sh; $here is the repository root.

# The candidate version of Debian package $1 in this machine's package lists; empty when the
# release has no such package (or no lists).
tilelab_deb_candidate() {
  v=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/{print $2; exit}')
  [ "$v" = "(none)" ] && v=""
  echo "$v"
}

# The packages to download for the -dev packages named: libboost-context-dev is a metapackage, so
# what it names (the versioned -dev, its library and Boost's headers), not the rest of its
# dependency tree (thread, atomic...: not used); libopenblas-dev's pthread variant and the run-time
# libraries it loads that a machine with only g++ may lack. Prints one name a line.
tilelab_debs_closure() {
  for p in "$@"; do
    case "$p" in
      libboost-context-dev)
        ctx=$(apt-cache depends libboost-context-dev 2>/dev/null | awk '/Depends: libboost-context/{print $2; exit}')
        ver=${ctx#libboost-context}; ver=${ver%-dev}
        [ -n "$ctx" ] && printf '%s\n' "$p" "$ctx" "libboost-context$ver.0" "libboost$ver-dev" ;;
      libopenblas-dev)
        printf '%s\n' libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0 ;;
      *) echo "$p" ;;
    esac
  done
}

# tilelab_debs_download DIR PKG...: the .debs of PKG... (closure above) into DIR, replacing what it
# held. Fails (status 1, apt's messages in DIR/apt.log) when apt-get cannot download them.
tilelab_debs_download() {
  dir=$1; shift
  rm -rf "$dir" && mkdir -p "$dir"
  # shellcheck disable=SC2046 # one word per package
  (cd "$dir" && apt-get download $(tilelab_debs_closure "$@") >"$dir/apt.log" 2>&1)
}

# tilelab_debs_unpack DIR: unpacks every .deb in DIR into $here/.deps (its usr/ tree afresh).
tilelab_debs_unpack() {
  rm -rf "$here/.deps/usr"
  for f in "$1"/*.deb; do dpkg-deb -x "$f" "$here/.deps" || return 1; done
  rm -rf "$here/.deps/usr/share/doc" "$here/.deps/usr/share/man"
  # Debian selects cblas.h and libopenblas through update-alternatives; the unpacked tree has no
  # alternatives, so link the pthread variant where the compiler looks.
  for d in "$here"/.deps/usr/include/*/openblas-pthread; do
    [ -f "$d/cblas.h" ] && ln -sf openblas-pthread/cblas.h "${d%/openblas-pthread}/cblas.h"
  done
  return 0
}
