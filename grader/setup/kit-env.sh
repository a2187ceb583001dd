# Sourced by ./tilelab (and offline-env.sh), $root set to the repository root: the tools and
# libraries that install-deps.sh put into the checkout instead of the system, on the paths.
#   * .venv/bin first on PATH when it holds cmake or ninja (PyPI's: the system's cmake was missing or
#     older than 3.25, or a user without root had none), so that the grader, CMake's presets and
#     `./tilelab test` use them; with ninja and no make, CMake's generator is Ninja.
#   * .deps/usr (Debian packages unpacked without root, or carried to the offline GPU machine):
#     CMake finds it by itself (grader/cmake/TilelabDependencies.cmake, after the system's own
#     packages) and the built programs carry its library folders as their rpath; LD_LIBRARY_PATH
#     names them too, for the sandboxed workers: Landlock lets them read only the system's folders
#     and those (grader/runner/confine.cpp).
# Where neither exists (Debian 12/13 with the packages installed) it changes nothing.
if [ -x "$root/.venv/bin/cmake" ] || [ -x "$root/.venv/bin/ninja" ]; then
  case ":$PATH:" in *":$root/.venv/bin:"*) ;; *) PATH="$root/.venv/bin:$PATH"; export PATH ;; esac
  if [ -z "${CMAKE_GENERATOR:-}" ] && ! command -v make >/dev/null && command -v ninja >/dev/null; then
    export CMAKE_GENERATOR=Ninja
  fi
fi
if [ -d "$root/.deps/usr/lib" ]; then
  for _d in "$root"/.deps/usr/lib/*-linux-gnu*/openblas-pthread "$root"/.deps/usr/lib/*-linux-gnu*; do
    [ -d "$_d" ] || continue
    case ":${LD_LIBRARY_PATH:-}:" in *":$_d:"*) ;; *) LD_LIBRARY_PATH="$_d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac
  done
  export LD_LIBRARY_PATH
  unset _d
fi
