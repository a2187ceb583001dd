# The CPU emulator backend (grader/emu; docs/emulator.md).
# Included at the end of TilelabStages.cmake, whose tilelab_impl_source, tilelab_api_definitions
# and tilelab_add_check it uses. For every stage x implementation it builds three runners,
#   run-<impl>-<stage>-emu        plain build: correctness, barrier checks, guard zones
#   run-<impl>-<stage>-emu-asan   AddressSanitizer + UBSan: out-of-bounds accesses with the line
#   run-<impl>-<stage>-emu-race   shared-memory races and reads of unwritten shared memory
# and registers the checks <impl>.<stage>.<dataset>.emu|emu-asan|emu-race on the stage's small
# public datasets (label emu). It also builds the known-bad kernels of grader/tests/submissions and
# registers kit.emu.<bug>.<backend>, which assert each one's diagnosis.

option(TILELAB_EMU "Build the CPU emulator backend (needs Boost.Context)" ON)
# Largest dataset each build checks, as the cube root of J*K*L (its cost): the race build is ~10x
# slower than plain. (TILELAB_EMU_MAX_SIZE, the plain build's, is declared in the top-level
# CMakeLists.txt: the dataset generator reads it before this file is included.)
set(TILELAB_EMU_HIDDEN_TIMEOUT_FACTOR 5 CACHE STRING "emu hidden checks: multiple of the stage's timeout")
set(TILELAB_EMU_ASAN_MAX_SIZE 512 CACHE STRING "emu-asan checks: largest dataset size")
set(TILELAB_EMU_RACE_MAX_SIZE 256 CACHE STRING "emu-race checks: largest dataset size")

if(NOT TILELAB_EMU)
  return()
endif()
find_package(Boost 1.66 QUIET COMPONENTS context)
if(NOT Boost_FOUND)
  message(STATUS "tilelab: Boost.Context not found; the CPU emulator (emu checks) is not built. "
                 "Install it with: sudo apt-get install libboost-context-dev")
  return()
endif()

include(TilelabBackendFacts)   # nvcc's back end for the count build's model, where the wheels are
set(_emu_dir "${PROJECT_SOURCE_DIR}/grader/emu")
set(_emu_gen "${PROJECT_BINARY_DIR}/generated/emu")
file(MAKE_DIRECTORY "${_emu_gen}")

# The builds this compiler can make: asan needs libasan and libubsan.
set(TILELAB_EMU_BUILDS plain race)
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
check_cxx_source_compiles("int main() { return 0; }" TILELAB_EMU_HAVE_ASAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(TILELAB_EMU_HAVE_ASAN)
  list(APPEND TILELAB_EMU_BUILDS asan)
else()
  message(STATUS "tilelab: no AddressSanitizer in this compiler; the emu-asan checks are not built")
endif()

# Flags for the student's file in each build. The race build's -fsanitize=thread is used only for its
# instrumentation, a call per load and store: the runtime (runtime/hooks_race.cpp, through
# runtime/instrument.hpp) implements the __tsan_read*/__tsan_write* callbacks, so no sanitizer
# library is linked (instrument.hpp says why ThreadSanitizer's and not AddressSanitizer's).
set(_emu_flags_plain -O2 -gdwarf-4)
# Issue 45: the plain build runs each block's threads as loops between barriers where the rewriter
# could make a kernel's body resumable (grader/emu/rewrite_thread_loops.cpp); the others keep the
# contexts. Off by default until a whole CI run has graded with it.
option(TILELAB_EMU_THREAD_LOOPS "The plain emulator build runs a block's threads as loops between barriers" OFF)
if(TILELAB_EMU_THREAD_LOOPS)
  list(APPEND _emu_flags_plain -DTLEMU_THREAD_LOOPS)
endif()
# -gdwarf-4 where the worker names lines through addr2line (runtime/symbolize.cpp; the plain build's
# host-accessed-device and hidden-code too): binutils 2.40's addr2line reads a DWARF 5 line table's
# file 0 for the file of a #line, naming the rewritten .cpp.
set(_emu_flags_asan -O1 -gdwarf-4 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all)
# -fno-tree-sra: g++ would otherwise split a float4 load whose components are used one by one into
# four 4-byte loads, where nvcc makes one 16-byte load; the count build counts what the GPU does.
# -fdisable-rtl-loop2_unroll: g++ unrolls a loop of run-time trip count that carries #pragma GCC unroll
# (tilelab_emu.h, TLEMU_UNROLL) by its factor, which nvcc does not; complete unrolling of a loop of
# known trip count stays. -fno-var-tracking: the findings need line tables, not where variables
# live, and tracking them in a register-tiled kernel unrolled as nvcc unrolls it took 2.4 of its
# 7 s of compile time.
set(_emu_flags_race -O1 -fno-tree-sra -gdwarf-4 -fno-var-tracking -fno-omit-frame-pointer -fsanitize=thread
    "SHELL:--param tsan-instrument-func-entry-exit=0" -fdisable-rtl-loop2_unroll)
# clang (the emu-clang preset; macOS's compiler) has none of g++'s three tuning flags, and takes the
# instrumentation's parameter through -mllvm: the same callbacks, its own choices of splitting and
# unrolling (the counts the model was fitted on are g++'s).
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(_emu_flags_race -O1 -gdwarf-4 -fno-omit-frame-pointer -fsanitize=thread
      "SHELL:-mllvm -tsan-instrument-func-entry-exit=0")
endif()
# g++ 10 (Debian 11) has no such --param: its function entry/exit callbacks are then made, and the
# runtime's are empty (runtime/instrument.hpp).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=thread --param tsan-instrument-func-entry-exit=0")
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)   # compile only: no sanitizer library is linked
  check_cxx_source_compiles("int f() { return 0; }" TILELAB_EMU_HAVE_TSAN_FUNC_PARAM)
  unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT TILELAB_EMU_HAVE_TSAN_FUNC_PARAM)
    list(REMOVE_ITEM _emu_flags_race "SHELL:--param tsan-instrument-func-entry-exit=0")
  endif()
endif()
# The count build (performance model, docs/performance.md): the race build's instrumentation, with
# every access counted instead of checked. Not one of TILELAB_EMU_BUILDS: only the perf-model check
# of each stage uses it, not the correctness checks, the known-bad suite or the differential check.
# Its runner links the race build's object of the student's file (_emu_object_count): the two differ
# only in the runtime they link, so a grade compiles the file three times, not four.
# Every build's indirect branches (calls through pointers, virtual calls) go through the runtime's
# check (runtime/indirect_branch.cpp): each must land on a function's first instruction, never on
# machine code hidden inside an instruction or in data (attack3-immediate-loader). g++: a call of
# __x86_indirect_thunk_<reg> for each, no jump tables (their targets are inside a function), and no
# -fcf-protection (Ubuntu's default, which g++ will not combine with thunks); clang's retpoline
# thunk is the same function for %r11 and makes no jump tables. The allow-list scan refuses an
# indirect branch left in the object (disasm.py).
# x86-64 only (the thunks are x86 code): elsewhere (an arm64 dev container) the emulator builds
# without the check, and says so.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(_emu_indirect -mretpoline-external-thunk)
  else()
    set(_emu_indirect -mindirect-branch=thunk-extern -mindirect-branch-register -fno-jump-tables -fcf-protection=none)
  endif()
  set(CMAKE_REQUIRED_FLAGS "${_emu_indirect}")
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  check_cxx_source_compiles("int f(int (*g)(int)) { return g(1); }" TILELAB_EMU_HAVE_INDIRECT_THUNKS)
  unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT TILELAB_EMU_HAVE_INDIRECT_THUNKS)
    message(FATAL_ERROR "tilelab: ${CMAKE_CXX_COMPILER} cannot route indirect branches through the emulator's "
                        "check (${_emu_indirect}): the emulator needs g++ 8 or later, or clang")
  endif()
  foreach(build plain asan race)
    list(APPEND _emu_flags_${build} ${_emu_indirect})
  endforeach()
else()
  message(STATUS "tilelab: on ${CMAKE_SYSTEM_PROCESSOR} the emulator does not check indirect branches "
                 "(docs/integrity.md): grade on x86-64")
endif()
set(_emu_flags_count ${_emu_flags_race})
set(_emu_object_count race)
set(_emu_suffix_plain emu)
set(_emu_suffix_asan emu-asan)
set(_emu_suffix_race emu-race)
set(_emu_suffix_count emu-count)

# ---- the rewriter and the runtime, once per build (a TILELAB_KIT tree imports them) ----
# The rewriter's library sources (rewrite.hpp), for the tool and for its tests.
set(_emu_rewrite_sources rewrite.cpp rewrite_source.cpp rewrite_refusals.cpp rewrite_device_memory.cpp
                         rewrite_launch.cpp rewrite_launch_api.cpp rewrite_shared.cpp rewrite_unroll.cpp rewrite_set_constant.cpp
                         rewrite_thread_loops.cpp)
list(TRANSFORM _emu_rewrite_sources PREPEND "${_emu_dir}/")
if(NOT TILELAB_KIT)
add_executable(tilelab-emu-rewrite ${_emu_rewrite_sources} "${_emu_dir}/rewrite_main.cpp")
target_compile_options(tilelab-emu-rewrite PRIVATE -Wall -Wextra)
endif()

# The runtime's files (grader/emu/runtime/internal.hpp says what each holds): the common ones, and
# per build its hooks file (the interface `hooks` of internal.hpp) with the helpers it uses. A new
# build adds a hooks_<build>.cpp, a _emu_rt_sources_<build>, its _emu_flags_<build> and
# _emu_suffix_<build> above, and appends itself to TILELAB_EMU_BUILDS.
set(_emu_rt_common core.cpp scheduler.cpp context.cpp cuda_api.cpp occupancy.cpp symbolize.cpp wmma.cpp ptx.cpp
                  indirect_branch.cpp)
set(_emu_rt_sources_plain hooks_plain.cpp guard_zones.cpp)
set(_emu_rt_sources_asan hooks_asan.cpp)
set(_emu_rt_sources_race hooks_race.cpp guard_zones.cpp)
set(_emu_rt_sources_count hooks_count.cpp guard_zones.cpp)
set(_emu_rt_builds ${TILELAB_EMU_BUILDS} count)  # every runtime library built

foreach(build IN LISTS _emu_rt_builds)
  if(TILELAB_KIT)
    break()
  endif()
  set(srcs "")
  foreach(f IN LISTS _emu_rt_common _emu_rt_sources_${build})
    list(APPEND srcs "${_emu_dir}/runtime/${f}")
  endforeach()
  add_library(tilelab_emu_rt_${build} STATIC ${srcs})
  target_include_directories(tilelab_emu_rt_${build} PUBLIC "${_emu_dir}" "${_emu_dir}/include")
  target_link_libraries(tilelab_emu_rt_${build} PUBLIC Boost::context ${CMAKE_DL_LIBS})
  target_include_directories(tilelab_emu_rt_${build} PRIVATE "${TILELAB_GENERATED}/include")  # contract.hpp
  # -g1: line tables and function names, which is all a finding names of the runtime's frames; full
  # debug information made three quarters of every runner's 5-14 MB (400 runners: 1.9 GB on a CI disk).
  target_compile_options(tilelab_emu_rt_${build} PRIVATE -Wall -Wextra -O2 -g1)
  if(build STREQUAL "asan")
    # The runtime is instrumented too: its memcpy of a student's wrong size is caught.
    target_compile_options(tilelab_emu_rt_asan PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all
                                                       -fno-omit-frame-pointer)
    target_link_options(tilelab_emu_rt_asan INTERFACE -fsanitize=address,undefined)
  endif()
endforeach()
# ...but for the scheduler and the context switch, which touch only the runtime's own memory (never
# the student's) and run at every barrier of every thread: instrumented, they made a third of an
# ASan check's time. (In the other builds the flag changes nothing.)
set_source_files_properties("${_emu_dir}/runtime/scheduler.cpp" "${_emu_dir}/runtime/context.cpp"
                            PROPERTIES COMPILE_OPTIONS "-fno-sanitize=all")

# The backend does not depend on the build or the implementation; the worker's main (one per role,
# tilelab_worker_main in TilelabStages.cmake) neither. The count build's reference worker
# runners/ref-<stage>-emu-count links the stage's reference solution (and the previous stage's),
# counted on the same inputs, as the GPU's reference worker times them.
if(NOT TILELAB_KIT)
  add_library(tilelab_emu_backend_objs OBJECT "${PROJECT_SOURCE_DIR}/grader/runner/emu_backend.cpp")
  target_include_directories(tilelab_emu_backend_objs PRIVATE "${_emu_dir}" "${_emu_dir}/include")
  target_link_libraries(tilelab_emu_backend_objs PRIVATE tilelab_worker_headers)
endif()
# The rewritten student file: generated/emu/<name>.cpp from src (the rewriter confined to reading
# src: tilelab_confine_rewrite_command).
function(tilelab_emu_rewrite name src out)
  set(dst "${_emu_gen}/${name}.cpp")
  tilelab_confine_rewrite_command("${src}" "${dst}" confined)
  set(deps "")
  if(TARGET tilelab-confine AND NOT TILELAB_KIT)
    set(deps tilelab-confine)
  endif()
  add_custom_command(OUTPUT "${dst}"
    COMMAND ${confined} "$<TARGET_FILE:tilelab-emu-rewrite>" "${src}" "${dst}"
    DEPENDS "${src}" tilelab-emu-rewrite ${deps}
    COMMENT "Rewriting ${src} for the CPU emulator"
    VERBATIM)
  set(${out} "${dst}" PARENT_SCOPE)
endfunction()

# The adapter object (adapter.cpp) of one stage contract and display name; shared by every build.
function(tilelab_emu_adapter stage display out)
  string(MAKE_C_IDENTIFIER "emu_adapter_${display}_${stage}" target)
  if(NOT TARGET ${target})
    tilelab_api_definitions(${stage} defs)
    add_library(${target} OBJECT "${PROJECT_SOURCE_DIR}/grader/runner/adapter.cpp")
    target_compile_definitions(${target} PRIVATE ${defs} "TILELAB_IMPL_VAR=tilelab_impl_under_test"
                                                 "TILELAB_IMPL_NAME=\"${display}\"")
    target_link_libraries(${target} PRIVATE tilelab_worker_headers)
  endif()
  set(${out} ${target} PARENT_SCOPE)
endfunction()

# A solution compiled for the count build into namespace `ns` (reference.cu.in, as the GPU runner's
# references) with its adapter defining `var`: objects in ${out} (a target).
function(tilelab_emu_count_impl name stage src ns var display out)
  string(MAKE_C_IDENTIFIER "emu_count_${name}" target)
  if(NOT TARGET ${target})
    tilelab_emu_rewrite(${name} "${src}" rewritten)
    set(wrapped "${_emu_gen}/${name}-ns.cpp")
    tilelab_wrap_reference("${src}" "${rewritten}" "${ns}" "${wrapped}")
    set_source_files_properties("${wrapped}" PROPERTIES OBJECT_DEPENDS "${rewritten}")
    add_library(${target} OBJECT "${wrapped}")
    target_compile_options(${target} PRIVATE -include "${_emu_dir}/include/tilelab_emu.h" ${_emu_flags_count})
    target_include_directories(${target} PRIVATE "${_emu_dir}/include")
    tilelab_api_definitions(${stage} defs)
    add_library(${target}_adapter OBJECT "${PROJECT_SOURCE_DIR}/grader/runner/adapter.cpp")
    target_compile_definitions(${target}_adapter PRIVATE ${defs} "TILELAB_IMPL_NS=${ns}" "TILELAB_IMPL_VAR=${var}"
                                                          "TILELAB_IMPL_NAME=\"${display}\"")
    target_link_libraries(${target}_adapter PRIVATE tilelab_worker_headers)
  endif()
  set(${out} ${target} PARENT_SCOPE)
endfunction()

# The count build's reference worker of a stage, runners/ref-<stage>-emu-count, where solutions/
# has the stage's reference (and the previous stage's).
function(tilelab_emu_reference_worker stage)
  if(TARGET ref-${stage}-emu-count)
    return()
  endif()
  tilelab_impl_source(solution ${stage} ref_src)
  if(NOT ref_src)
    return()
  endif()
  tilelab_emu_count_impl(count-ref-${stage} ${stage} "${ref_src}" tilelab_ref tilelab_impl_reference reference r)
  set(extra $<TARGET_OBJECTS:${r}> $<TARGET_OBJECTS:${r}_adapter>)
  set(role ref)
  set(prev "${TILELAB_${stage}_PREVIOUS}")
  if(prev)
    tilelab_impl_source(solution ${prev} prev_src)
  endif()
  if(prev AND prev_src)
    tilelab_emu_count_impl(count-prev-${prev}-for-${stage} ${prev} "${prev_src}" tilelab_prev
                           tilelab_impl_previous previous p)
    list(APPEND extra $<TARGET_OBJECTS:${p}> $<TARGET_OBJECTS:${p}_adapter>)
    set(role ref_prev)
  endif()
  tilelab_worker_main(emu ${role} main)
  add_executable(ref-${stage}-emu-count $<TARGET_OBJECTS:${main}> $<TARGET_OBJECTS:tilelab_emu_backend_objs> ${extra})
  # nvcc's back end on the reference's file and the previous stage's (TilelabBackendFacts.cmake).
  tilelab_backend_facts(ref-${stage}-reference "${ref_src}" facts facts_target)
  if(facts_target)
    add_dependencies(ref-${stage}-emu-count ${facts_target})
  endif()
  if(prev AND prev_src)
    tilelab_backend_facts(ref-${stage}-previous "${prev_src}" facts facts_target)
    if(facts_target)
      add_dependencies(ref-${stage}-emu-count ${facts_target})
    endif()
  endif()
  target_link_libraries(ref-${stage}-emu-count PRIVATE tilelab_wire tilelab_emu_rt_count)
  set_target_properties(ref-${stage}-emu-count PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners"
                                                          LINKER_LANGUAGE CXX)
endfunction()

# One worker: the worker's main, the backend, the adapter, the student's object `obj` and the
# runtime of `build`, nothing else; the judge is built with it.
function(tilelab_emu_worker runner adapter obj build)
  tilelab_worker_main(emu under_test main)
  add_executable(${runner} $<TARGET_OBJECTS:${main}> $<TARGET_OBJECTS:tilelab_emu_backend_objs> $<TARGET_OBJECTS:${adapter}>
                           $<TARGET_OBJECTS:${obj}>)
  target_link_libraries(${runner} PRIVATE tilelab_wire tilelab_emu_rt_${build})
  set_target_properties(${runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners"
                                             LINKER_LANGUAGE CXX)
  tilelab_confine_link(${runner} ${main} tilelab_emu_backend_objs ${adapter} ${obj} tilelab_wire tilelab_emu_rt_${build})
  if(NOT TILELAB_KIT)
    add_dependencies(${runner} tilelab-judge)
  endif()
endfunction()

# Workers <base>-emu, <base>-emu-asan, <base>-emu-race, <base>-emu-count (those of `builds`) for
# one matmul.cu: the student's object, the backend and the build's runtime, nothing else. The
# count build's checks also use the stage's reference worker (above).
function(tilelab_emu_runners base display stage src builds)
  string(MAKE_C_IDENTIFIER "${base}" bid)
  tilelab_emu_rewrite(${base} "${src}" rewritten)
  tilelab_emu_adapter(${stage} ${display} adapter)
  foreach(build IN LISTS builds)
    if(NOT build IN_LIST _emu_rt_builds)
      continue()
    endif()
    set(deps "")
    if(build STREQUAL "count")
      tilelab_emu_reference_worker(${stage})
      if(TARGET ref-${stage}-emu-count AND NOT TILELAB_KIT)
        list(APPEND deps ref-${stage}-emu-count)
      endif()
    endif()
    set(objbuild ${build})
    if(DEFINED _emu_object_${build})
      set(objbuild ${_emu_object_${build}})
    endif()
    set(obj emu_${objbuild}_${bid})
    if(NOT TARGET ${obj})
      add_library(${obj} OBJECT "${rewritten}")
      # -include: files that do not include <cuda_runtime.h> (or include it inside a namespace) still
      # see the emulator's declarations first.
      target_compile_options(${obj} PRIVATE -include "${_emu_dir}/include/tilelab_emu.h" ${_emu_flags_${objbuild}})
      target_include_directories(${obj} PRIVATE "${_emu_dir}/include")
      # The rewritten file, and the student's own (its #line directives name it: g++ quotes it).
      tilelab_confine_compile(${obj} CXX "${rewritten}" "${src}")
    endif()
    tilelab_emu_worker("${base}-${_emu_suffix_${build}}" ${adapter} ${obj} ${build})
    if(deps)
      add_dependencies("${base}-${_emu_suffix_${build}}" ${deps})
    endif()
  endforeach()
endfunction()

# ---- the checks of every stage x implementation ----
function(_tilelab_emu_checks impl stage src)
  set(builds ${TILELAB_EMU_BUILDS})
  if(TILELAB_${stage}_MODEL_SHAPE)
    list(APPEND builds count)
  endif()
  tilelab_emu_runners(run-${impl}-${stage} ${impl} ${stage} "${src}" "${builds}")
  # The performance check from the counts ([performance.model]): on a GPU build too, where an
  # instructor grades with --perf-basis model (labels emu and gpu).
  if(TILELAB_${stage}_MODEL_SHAPE)
    string(REPLACE ";" "x" mshape "${TILELAB_${stage}_MODEL_SHAPE}")
    # Named by the model's shape, run on one drawn near it for each grade (--draw-shape: from the
    # grading seed, where the tree has one, and the worker's digest; docs/integrity.md).
    set(mseed 1)
    if(NOT TILELAB_GRADING_SEED STREQUAL "")
      set(mseed ${TILELAB_GRADING_SEED})
    endif()
    # The kit's own solution check, which kit.model.<stage> asserts on, runs on the model's shape
    # itself: the stage's thresholds were set there (the previous stage's kernel earns nothing at
    # 256x192x384, and partial credit on some smaller drawn shapes, where 05's coarsening gains less).
    set(draw --draw-shape)
    if(impl STREQUAL "solution" AND TILELAB_KIT_SUITE)
      set(draw "")
    endif()
    # nvcc's back end on this file and the references' (TilelabBackendFacts.cmake), where the wheels are:
    # the references' facts are built with their worker, in this tree or the prebuilt kit's.
    tilelab_backend_facts(run-${impl}-${stage} "${src}" facts facts_target)
    set(facts_args "")
    if(facts_target)
      add_dependencies(run-${impl}-${stage}-emu-count ${facts_target})
      set(ref_facts "${TILELAB_BACKEND_FACTS_DIR}")
      if(TILELAB_KIT)
        set(ref_facts "${TILELAB_KIT}/backend-facts")
      endif()
      set(facts_args --backend-facts "${impl}=${facts}" --backend-facts "reference=${ref_facts}/ref-${stage}-reference.json"
                     --backend-facts "previous=${ref_facts}/ref-${stage}-previous.json")
    endif()
    tilelab_add_check(${impl} ${stage} ${mshape} perf-model emu-count
      ARGS --shape ${TILELAB_${stage}_MODEL_SHAPE} ${draw} --seed ${mseed} --check perf ${facts_args}
      TIMEOUT 120 COST ${TILELAB_${stage}_MODEL_COST} LABELS "public;emu;gpu;model")
    if(impl STREQUAL "solution" AND TILELAB_KIT_SUITE)
      # The kit's own assertion on it: full credit for the solution, none for the previous stage's
      # kernel where the book says it loads more (grader/model-validation/model_validation.py assert-grades).
      set(check "${impl}.${stage}.${mshape}.perf-model")
      set_tests_properties(${check} PROPERTIES FIXTURES_SETUP model-${stage})
      add_test(NAME kit.model.${stage}
        COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/grader/model-validation/model_validation.py" assert-grades
                "${TILELAB_RESULTS_DIR}/${check}.json" ${stage})
      set_tests_properties(kit.model.${stage} PROPERTIES FIXTURES_REQUIRED model-${stage} LABELS "kit;emu;model"
                                                         TIMEOUT 60)
    endif()
  endif()
  foreach(ds IN LISTS TILELAB_${stage}_DATASETS)
    set(size "${TILELAB_${stage}_${ds}_SIZE}")
    set(tags "${TILELAB_${stage}_${ds}_TAGS}")
    if("perf" IN_LIST tags)
      continue()
    endif()
    foreach(build IN LISTS TILELAB_EMU_BUILDS)
      string(TOUPPER "${build}" BUILD)
      set(cap "${TILELAB_EMU_MAX_SIZE}")
      if(NOT build STREQUAL "plain")
        set(cap "${TILELAB_EMU_${BUILD}_MAX_SIZE}")
        if("large" IN_LIST tags)
          continue()
        endif()
      endif()
      if(size GREATER cap)
        continue()
      endif()
      set(check ${_emu_suffix_${build}})
      tilelab_add_check(${impl} ${stage} ${ds} ${check} ${check}
        ARGS --dataset "${TILELAB_DATASETS_DIR}/${stage}/${ds}" --check correct
        TIMEOUT ${TILELAB_${stage}_${ds}_TIMEOUT_${check}} COST ${TILELAB_${stage}_${ds}_COST_${check}}
        LABELS "public;emu")
    endforeach()
  endforeach()
  # Hidden datasets (made from the grading seed, sizes unknown until then): plain build only.
  # Their sizes are not capped, so they get TILELAB_EMU_HIDDEN_TIMEOUT_FACTOR times the
  # stage's timeout: a 1500^3 product takes the emulator about 20 s on a quiet core.
  math(EXPR hidden_timeout "${TILELAB_${stage}_TIMEOUT_CORRECT} * ${TILELAB_EMU_HIDDEN_TIMEOUT_FACTOR}")
  tilelab_add_hidden_checks(${impl} ${stage} emu emu ${hidden_timeout} "hidden;emu")
endfunction()
tilelab_foreach_impl_source(_tilelab_emu_checks)

# ---- the kit's own tests of the emulator ----
# Known-bad kernels: grader/tests/submissions/<bug>/<stage>/matmul.cu, with expect.toml naming, per
# backend ([emu], [emu-asan], [emu-race]; [emu-count]: the perf check on the count build), the
# dataset and the verdict, hint or finding it must get.
set(_subs_dir "${PROJECT_SOURCE_DIR}/grader/tests/submissions")
set(_expects "")
if(TILELAB_KIT_SUITE)   # instructor material: not in the student repository
  file(GLOB _expects CONFIGURE_DEPENDS "${_subs_dir}/*/expect.toml")
endif()
foreach(expect IN LISTS _expects)
  tilelab_known_bad("${expect}" bug stage bug_dir)
  if(NOT bug)
    continue()
  endif()
  file(STRINGS "${expect}" sections REGEX "^\\[\\[?emu(-asan|-race|-count)?\\]")
  set(builds "")
  foreach(sec IN LISTS sections)
    string(REGEX MATCH "emu[-a-z]*" backend "${sec}")
    string(REPLACE "emu-" "" b "${backend}")
    string(REPLACE "emu" "plain" b "${b}")
    list(APPEND builds ${b})
  endforeach()
  list(REMOVE_DUPLICATES builds)
  tilelab_emu_runners(run-kit-${bug}-${stage} submission ${stage} "${bug_dir}/${stage}/matmul.cu" "${builds}")
  foreach(build IN LISTS builds)
    if(NOT build IN_LIST TILELAB_EMU_BUILDS AND NOT build STREQUAL "count")   # [emu-count]: the perf-model check
      continue()
    endif()
    set(backend ${_emu_suffix_${build}})
    set(name "kit.emu.${bug}.${backend}")
    # The perf-model check with nvcc's back end where the wheels are, as a grade's (its registers
    # and spills are charged: attack2-fp32-wide-thread-tile).
    set(facts_args "")
    if(build STREQUAL "count")
      tilelab_backend_facts(run-kit-${bug}-${stage} "${bug_dir}/${stage}/matmul.cu" facts facts_target)
      if(facts_target)
        add_dependencies(run-kit-${bug}-${stage}-emu-count ${facts_target})
        set(facts_args --backend-facts "submission=${facts}"
                       --backend-facts "reference=${TILELAB_BACKEND_FACTS_DIR}/ref-${stage}-reference.json"
                       --backend-facts "previous=${TILELAB_BACKEND_FACTS_DIR}/ref-${stage}-previous.json")
      endif()
    endif()
    add_test(NAME ${name}
      COMMAND "${Python3_EXECUTABLE}" "${_subs_dir}/check.py" --expect "${expect}" --backend ${backend}
              --runner "${PROJECT_BINARY_DIR}/runners/run-kit-${bug}-${stage}-${backend}"
              --spec "${TILELAB_${stage}_SPEC}" --datasets "${TILELAB_DATASETS_DIR}/${stage}"
              --json "${TILELAB_RESULTS_DIR}/${name}.json" ${facts_args}
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
    set_tests_properties(${name} PROPERTIES LABELS "kit;emu" TIMEOUT 120)
  endforeach()
endforeach()

# The differential check's CPU half: every generated kernel variant on every emulator build
# (grader/tests/differential; the GPU half is gpu-differential.sh there). Instructor material, like
# the known-bad suite (TilelabSubmissions, below): not in the student repository.
if(TILELAB_KIT_SUITE)
  include(TilelabVariants)
  foreach(stage IN LISTS TILELAB_VARIANT_STAGES)
    tilelab_emu_runners(run-variants-${stage} submission ${stage} "${TILELAB_VARIANTS_DIR}/${stage}/matmul.cu"
                        "${TILELAB_EMU_BUILDS}")
  endforeach()
  if(TILELAB_VARIANT_STAGES)
    add_test(NAME kit.emu.differential
      COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/grader/tests/differential/differential.py" ci
              --tree "${PROJECT_BINARY_DIR}" --variants "${TILELAB_VARIANTS_DIR}"
              --out "${TILELAB_RESULTS_DIR}/differential-emu.json")
    set_tests_properties(kit.emu.differential PROPERTIES LABELS "kit;emu" TIMEOUT 600)
  endif()
endif()

if(TILELAB_SELF_TESTS)
# The rewriter's unit tests, and the emulator's CUDA semantics (launch errors, templates, dynamic
# shared memory, streams) on a .cu file that goes through the same rewrite and build as a student's.
# The .cu files are compiled with -Wall -Wextra -Werror: a warning the compiler gives about the
# emulator's headers (a reference to a temporary returned, an unused parameter) fails the kit's tests
# (-Wno-sign-compare: CUDA code compares threadIdx with int, as nvcc lets it).
tilelab_emu_rewrite(emu-features "${_emu_dir}/tests/features.cu" features_cpp)
tilelab_emu_rewrite(emu-device-math "${_emu_dir}/tests/device_math.cu" device_math_cpp)
add_executable(tilelab_emu_tests "${_emu_dir}/tests/test_rewrite.cpp" "${_emu_dir}/tests/test_thread_loops.cpp"
                                 "${_emu_dir}/tests/test_f16.cpp" ${_emu_rewrite_sources}
                                 "${PROJECT_SOURCE_DIR}/grader/tests/cpp/main.cpp" "${features_cpp}"
                                 "${device_math_cpp}")
# With TILELAB_EMU_THREAD_LOOPS, as the plain build compiles a student's file: the kernels the
# rewriter makes resumable run their blocks as loops, and their cases check the same results.
set(_emu_loops_define "")
if(TILELAB_EMU_THREAD_LOOPS)
  set(_emu_loops_define ";-DTLEMU_THREAD_LOOPS")
endif()
set_source_files_properties("${features_cpp}" "${device_math_cpp}" PROPERTIES
  COMPILE_OPTIONS "-include;${_emu_dir}/include/tilelab_emu.h;-Wall;-Wextra;-Werror;-Wno-sign-compare${_emu_loops_define}")
target_include_directories(tilelab_emu_tests PRIVATE "${_emu_dir}" "${_emu_dir}/include")
target_link_libraries(tilelab_emu_tests PRIVATE doctest::doctest tilelab_emu_rt_plain)
# One CTest test for the whole executable: its case names hold launch syntax (<<< >>>, quotes)
# that per-case discovery cannot carry, and a failure still names the failing case.
add_test(NAME kit.emu.unit COMMAND tilelab_emu_tests)
set_tests_properties(kit.emu.unit PROPERTIES LABELS "kit;emu" TIMEOUT 120)
# Cooperative groups (include/tilelab_emu_cg.h): the block and its tiles, on a .cu file built as a
# student's is for the plain build; an executable of its own, so that it needs nothing but the header.
tilelab_emu_rewrite(emu-cooperative-groups "${_emu_dir}/tests/cooperative_groups.cu" cg_cpp)
add_executable(tilelab_emu_cg_tests "${PROJECT_SOURCE_DIR}/grader/tests/cpp/main.cpp" "${cg_cpp}")
set_source_files_properties("${cg_cpp}" PROPERTIES
  COMPILE_OPTIONS "-include;${_emu_dir}/include/tilelab_emu.h;-Wall;-Wextra;-Werror;-Wno-sign-compare${_emu_loops_define}")
target_include_directories(tilelab_emu_cg_tests PRIVATE "${_emu_dir}" "${_emu_dir}/include")
target_link_libraries(tilelab_emu_cg_tests PRIVATE doctest::doctest tilelab_emu_rt_plain)
add_test(NAME kit.emu.cooperative-groups COMMAND tilelab_emu_cg_tests)
set_tests_properties(kit.emu.cooperative-groups PROPERTIES LABELS "kit;emu" TIMEOUT 60)
# The count build's rules (sectors, wavefronts, vector accesses) on kernels small enough to count by
# hand: compiled as a student's file is for the count build, linked with its runtime.
tilelab_emu_rewrite(emu-counting "${_emu_dir}/tests/counting.cu" counting_cpp)
add_library(tilelab_emu_counting_obj OBJECT "${counting_cpp}")
target_compile_options(tilelab_emu_counting_obj PRIVATE -include "${_emu_dir}/include/tilelab_emu.h" ${_emu_flags_count})
target_include_directories(tilelab_emu_counting_obj PRIVATE "${_emu_dir}" "${_emu_dir}/include")
target_link_libraries(tilelab_emu_counting_obj PRIVATE doctest::doctest)
add_executable(tilelab_emu_count_tests "${PROJECT_SOURCE_DIR}/grader/tests/cpp/main.cpp"
                                       $<TARGET_OBJECTS:tilelab_emu_counting_obj>)
target_link_libraries(tilelab_emu_count_tests PRIVATE doctest::doctest tilelab_emu_rt_count)
add_test(NAME kit.emu.count COMMAND tilelab_emu_count_tests)
set_tests_properties(kit.emu.count PROPERTIES LABELS "kit;emu;model" TIMEOUT 60)
# The tensor cores (nvcuda::wmma: include/tilelab_emu_wmma.h, runtime/wmma.cpp) in every build:
# tests/wmma.cu with the complete kernel tests/wmma_matmul.cu, and the kit's PTX wrappers
# (tests/ptx.cu), each compiled as a student's file is for each build (the count build: the race build's object, as a grade links it) and linked with that
# build's runtime; kit.emu.wmma.<emu|emu-asan|emu-race|emu-count>. Cases only one build can check (a
# race, an out-of-bounds read, the traffic) ask the runtime which build runs them.
tilelab_emu_rewrite(emu-wmma "${_emu_dir}/tests/wmma.cu" wmma_cpp)
tilelab_emu_rewrite(emu-wmma-matmul "${_emu_dir}/tests/wmma_matmul.cu" wmma_matmul_cpp)
tilelab_emu_rewrite(emu-ptx "${_emu_dir}/tests/ptx.cu" ptx_cpp)  # the kit's PTX wrappers (tilelab_emu_ptx.h)
foreach(build IN LISTS TILELAB_EMU_BUILDS ITEMS count)
  set(objbuild ${build})
  if(DEFINED _emu_object_${build})
    set(objbuild ${_emu_object_${build}})
  endif()
  if(NOT TARGET tilelab_emu_wmma_obj_${objbuild})
    add_library(tilelab_emu_wmma_obj_${objbuild} OBJECT "${wmma_cpp}" "${wmma_matmul_cpp}" "${ptx_cpp}")
    # -Werror in the plain build only: the race build's unrolling pragmas, put before every `for`,
    # draw "ignoring loop annotation" on the test's host loops that g++ cannot unroll.
    set(werror "")
    if(objbuild STREQUAL "plain")
      set(werror -Werror)
    endif()
    target_compile_options(tilelab_emu_wmma_obj_${objbuild} PRIVATE -include "${_emu_dir}/include/tilelab_emu.h"
                           ${_emu_flags_${objbuild}} -Wall -Wextra ${werror} -Wno-sign-compare)
    target_include_directories(tilelab_emu_wmma_obj_${objbuild} PRIVATE "${_emu_dir}" "${_emu_dir}/include")
    target_link_libraries(tilelab_emu_wmma_obj_${objbuild} PRIVATE doctest::doctest)
  endif()
  add_executable(tilelab_emu_wmma_tests_${build} "${PROJECT_SOURCE_DIR}/grader/tests/cpp/main.cpp"
                                                 $<TARGET_OBJECTS:tilelab_emu_wmma_obj_${objbuild}>)
  target_link_libraries(tilelab_emu_wmma_tests_${build} PRIVATE doctest::doctest tilelab_emu_rt_${build})
  add_test(NAME kit.emu.wmma.${_emu_suffix_${build}} COMMAND tilelab_emu_wmma_tests_${build})
  set_tests_properties(kit.emu.wmma.${_emu_suffix_${build}} PROPERTIES LABELS "kit;emu" TIMEOUT 120)
endforeach()
# The context switch alone (runtime/context.cpp), built twice: the x86-64 switch the runtime uses
# here, and the portable one (Boost.Context's) that other machines use, so both are tested here.
foreach(variant IN ITEMS native portable)
  set(target tilelab_emu_context_tests_${variant})
  add_executable(${target} "${_emu_dir}/tests/test_context.cpp" "${_emu_dir}/runtime/context.cpp"
                           "${PROJECT_SOURCE_DIR}/grader/tests/cpp/main.cpp")
  target_include_directories(${target} PRIVATE "${_emu_dir}/runtime")
  target_link_libraries(${target} PRIVATE doctest::doctest Boost::context)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  set(name kit.emu.context)
  if(variant STREQUAL "portable")
    target_compile_definitions(${target} PRIVATE TLEMU_PORTABLE_CONTEXT)
    set(name kit.emu.context-portable)
  endif()
  add_test(NAME ${name} COMMAND ${target})
  set_tests_properties(${name} PROPERTIES LABELS "kit;emu" TIMEOUT 60)
endforeach()
endif()
# `tilelab trace`: the trace build, its runners trace-<impl>-<stage> and the checks kit.trace.*
# (not in a TILELAB_KIT tree: a batch's submissions are not traced).
if(NOT TILELAB_KIT)
  include(TilelabTrace)
endif()
if(TILELAB_KIT_SUITE)
  include(TilelabSubmissions)
endif()
