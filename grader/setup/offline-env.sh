# Sourced (from the repository root, $root set) by the scripts run on the offline GPU machine: the
# Debian packages carried in .deps/debs (pack-offline-deps.sh) unpacked once into .deps/usr, CMake
# and the loader pointed at them, compute-sanitizer on PATH. Where there is no .deps (a machine with
# the packages installed) it changes nothing but PATH.
if [ -d "$root/.deps/debs" ] && [ ! -d "$root/.deps/usr" ]; then
  sh "$root/grader/setup/pack-offline-deps.sh" --unpack >/dev/null
fi
if [ -d "$root/.deps/usr" ]; then
  export CMAKE_PREFIX_PATH="$root/.deps/usr"
  export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu/openblas-pthread:$root/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -x /usr/local/cuda/bin/compute-sanitizer ] && export PATH="$PATH:/usr/local/cuda/bin"
