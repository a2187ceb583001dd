# Sourced (from the repository root, $root set) by the scripts run on the offline GPU machine: the
# Debian packages carried in .deps/debs (pack-offline-deps.sh) unpacked once into .deps/usr, CMake
# and the loader pointed at them, compute-sanitizer on PATH. Where there is no .deps (a machine with
# the packages installed) it changes nothing but PATH.
if [ -d "$root/.deps/debs" ] && [ ! -d "$root/.deps/usr" ]; then
  sh "$root/grader/setup/pack-offline-deps.sh" --unpack >/dev/null
fi
[ -d "$root/.deps/usr" ] && export CMAKE_PREFIX_PATH="$root/.deps/usr"
. "$root/grader/setup/kit-env.sh"   # the loader pointed at .deps (and .venv's cmake, where there is one)
[ -x /usr/local/cuda/bin/compute-sanitizer ] && export PATH="$PATH:/usr/local/cuda/bin"
