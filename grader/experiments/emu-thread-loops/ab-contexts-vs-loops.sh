#!/usr/bin/env bash
# A/B of the plain build's two ways of running a block (issue 45.2): for each CTest check given
# (regex), the worker as CMake built it with TILELAB_EMU_THREAD_LOOPS=ON (threads as loops) and the
# same rewritten file compiled without -DTLEMU_THREAD_LOOPS (the contexts), run alternately ROUNDS
# times through the same judge command; prints each run's CPU (user+sys of the judge and worker)
# and whether the two result documents are equal but for their times.
#   grader/experiments/emu-thread-loops/ab-contexts-vs-loops.sh 'solution\.02-tiled\..*\.emu$' [ROUNDS]
# Run from the repository root, with build/default configured with -DTILELAB_EMU_THREAD_LOOPS=ON
# and the checks' workers and datasets built.
set -euo pipefail
regex=$1 rounds=${2:-1}
build=$PWD/build/default
work=$(mktemp -d)
ctest --test-dir "$build" -V -N -R "$regex" | grep "Test command" | sed 's/^[0-9]*: Test command: *//' >"$work/cmds"
normalize='import json,sys
d=json.load(open(sys.argv[1]))
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if "second" not in k and k not in ("elapsed", "wall", "timing", "time_ms")}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
print(json.dumps(strip(d), sort_keys=True))'
while read -r cmd; do
  eval "set -- $cmd"
  args=("$@") json="" at=-1
  for ((i = 0; i < ${#args[@]}; ++i)); do
    [[ ${args[i]} == --json ]] && json=${args[i + 1]}
    [[ ${args[i]} == --worker || ${args[i]} == --runner ]] && at=$((i + 1))
  done
  worker=${args[at]}
  name=$(basename "$worker")
  ctx="$build/runners/$name-ctx"
  if [[ ! -x $ctx ]]; then  # the same rewritten file, compiled without the define, linked as CMake links it
    base=${name%-emu}
    obj=$(ls "$build"/CMakeFiles/emu_plain_"${base//-/_}".dir/generated/emu/*.o)
    flags=$(grep CXX_FLAGS "$build/CMakeFiles/emu_plain_${base//-/_}.dir/flags.make" | sed 's/^CXX_FLAGS = //; s/-DTLEMU_THREAD_LOOPS//; s/-Wa,[^ ]*//')
    g++ $flags -I"$PWD/grader/emu/include" -c "$build/generated/emu/$base.cpp" -o "$work/$base.o"
    link=$(grep -o '/usr/bin/c++.*' "$build/CMakeFiles/$name.dir/link.txt")
    (cd "$build" && eval "${link//\"$(realpath --relative-to="$build" "$obj")\"/$work/$base.o} -o runners/$name-ctx" 2>/dev/null ||
      eval "$(echo "$link" | sed "s#\"[^\"]*generated/emu/[^\"]*\.o\"#$work/$base.o#; s#-o runners/$name #-o runners/$name-ctx #")")
  fi
  for ((r = 0; r < rounds; ++r)); do
    for w in "$ctx" "$worker"; do
      a=("${args[@]}"); a[at]=$w
      (cd "$PWD/grader" && /usr/bin/time -f "%U %S" -o "$work/time" "${a[@]}" >/dev/null 2>&1) || true
      python3 -c "$normalize" "$json" >"$work/$(basename "$w").json"
      echo "$(basename "$json" .json) $( [[ $w == "$ctx" ]] && echo contexts || echo loops) cpu $(awk '{print $1 + $2}' "$work/time") s verdict $(python3 -c "import json;print(json.load(open('$json')).get('verdict'))")"
    done
    cmp -s "$work/$name-ctx.json" "$work/$name.json" && echo "  same result document" || { echo "  RESULTS DIFFER"; diff <(tr ',' '\n' <"$work/$name-ctx.json") <(tr ',' '\n' <"$work/$name.json") | head -8; }
  done
done <"$work/cmds"
rm -rf "$work"
