# Sourced (from the repository root, $root set) by the scripts run on the offline GPU machine: the
# Debian packages carried in .deps/debs (pack-offline-deps.sh) unpacked once into .deps/usr (CMake
# finds them there itself: TilelabDependencies.cmake), the loader pointed at them, compute-sanitizer
# on PATH. Where there is no .deps (a machine with
# the packages installed) it changes nothing but PATH.
if [ -d "$root/.deps/debs" ] && [ ! -d "$root/.deps/usr" ]; then
  sh "$root/grader/setup/pack-offline-deps.sh" --unpack >/dev/null
fi
. "$root/grader/setup/kit-env.sh"   # the loader pointed at .deps (and .venv's cmake, where there is one)
[ -x /usr/local/cuda/bin/compute-sanitizer ] && export PATH="$PATH:/usr/local/cuda/bin"
