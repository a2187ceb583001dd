# `tilelab trace STAGE` (grader/tilelab/commands/trace.py; docs/emulator.md, "The trace build"): the book's
# figures run on the student's own kernel. Included at the end of TilelabEmu.cmake, whose runtime
# file lists, flags and functions it uses. The student's file is rewritten with its TILE_WIDTH (in
# 01-basic BLOCK_WIDTH) set to 2 (tilelab-emu-rewrite --set), compiled as for the race build (every
# load and store calls the runtime), and linked with the trace build of the runtime
# (runtime/hooks_trace.cpp) and the trace runner (runner/trace_main.cpp) into
#   runners/trace-<impl>-<stage>
# These are not checks: `tilelab trace` builds the one it needs (they are left out of `all`), except
# the reference solutions' and those of the known-bad submissions whose expect.toml has a [trace]
# table, which the kit's tests kit.trace.* run (grader/tests/submissions/trace_check.py).

# The stages with a book figure to trace: TILELAB_TRACE_STAGES, those whose stage.toml has [trace]
# (written by tilelab.specs.codegen).

set(_trace_rt_sources hooks_trace.cpp guard_zones.cpp)
set(srcs "")
foreach(f IN LISTS _emu_rt_common _trace_rt_sources)
  list(APPEND srcs "${_emu_dir}/runtime/${f}")
endforeach()
add_library(tilelab_emu_rt_trace STATIC ${srcs})
target_include_directories(tilelab_emu_rt_trace PUBLIC "${_emu_dir}" "${_emu_dir}/include")
target_link_libraries(tilelab_emu_rt_trace PUBLIC Boost::context ${CMAKE_DL_LIBS})
target_compile_options(tilelab_emu_rt_trace PRIVATE -Wall -Wextra -O2 -g1)  # as TilelabEmu.cmake says
target_include_directories(tilelab_emu_rt_trace PRIVATE "${TILELAB_GENERATED}/include")  # contract.hpp

add_library(tilelab_trace_main OBJECT "${PROJECT_SOURCE_DIR}/grader/runner/trace_main.cpp")
target_include_directories(tilelab_trace_main PRIVATE "${PROJECT_SOURCE_DIR}/grader/runner" "${_emu_dir}"
                                                      "${_emu_dir}/include")
target_link_libraries(tilelab_trace_main PRIVATE tilelab_core CLI11::CLI11)

# runners/trace-<name> for one matmul.cu of `stage`; in `all` only when `in_all` is true.
function(tilelab_trace_runner name display stage src in_all)
  set(dst "${_emu_gen}/trace-${name}.cpp")
  tilelab_confine_rewrite_command("${src}" "${dst}" confined)
  add_custom_command(OUTPUT "${dst}"
    COMMAND ${confined} "$<TARGET_FILE:tilelab-emu-rewrite>" --set TILE_WIDTH,BLOCK_WIDTH=2 "${src}" "${dst}"
    DEPENDS "${src}" tilelab-emu-rewrite tilelab-confine
    COMMENT "Rewriting ${src} for the trace (TILE_WIDTH 2)"
    VERBATIM)
  tilelab_emu_adapter(${stage} ${display} adapter)
  string(MAKE_C_IDENTIFIER "trace_${name}" obj)
  add_library(${obj} OBJECT "${dst}")
  target_compile_options(${obj} PRIVATE -include "${_emu_dir}/include/tilelab_emu.h" ${_emu_flags_race})
  target_include_directories(${obj} PRIVATE "${_emu_dir}/include")
  tilelab_confine_compile(${obj} CXX "${dst}" "${src}")
  set(runner "trace-${name}")
  add_executable(${runner} $<TARGET_OBJECTS:tilelab_trace_main> $<TARGET_OBJECTS:${adapter}> $<TARGET_OBJECTS:${obj}>)
  target_link_libraries(${runner} PRIVATE tilelab_core CLI11::CLI11 tilelab_emu_rt_trace)
  set_target_properties(${runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners"
                                             LINKER_LANGUAGE CXX)
  tilelab_confine_link(${runner} tilelab_trace_main ${adapter} ${obj} tilelab_core tilelab_emu_rt_trace)
  if(NOT in_all)
    set_target_properties(${runner} ${obj} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
endfunction()

set(_trace_check "${PROJECT_SOURCE_DIR}/grader/tests/submissions/trace_check.py")
function(_tilelab_trace_tables impl stage src)
  set(checked OFF)
  if(impl STREQUAL "solution" AND TILELAB_KIT_SUITE)
    set(checked ON)   # a self-test: only in the kit's own test tree, never in a grading tree
  endif()
  tilelab_trace_runner(${impl}-${stage} ${impl} ${stage} "${src}" ${checked})
  if(checked)
    # The reference solution's table is the book's (trace.reference), and for 02-tiled exactly the
    # cells of Fig. 4.15 as typed in from the book.
    set(name "kit.trace.solution.${stage}")
    add_test(NAME ${name}
      COMMAND "${Python3_EXECUTABLE}" "${_trace_check}" --stage ${stage}
              --runner "${PROJECT_BINARY_DIR}/runners/trace-${impl}-${stage}"
              --work "${TILELAB_RESULTS_DIR}/${name}"
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
    set_tests_properties(${name} PROPERTIES LABELS "kit;emu;trace" TIMEOUT 120)
  endif()
endfunction()
set(_trace_stages "")
foreach(stage IN LISTS TILELAB_TRACE_STAGES)
  if(stage IN_LIST TILELAB_STAGES)
    list(APPEND _trace_stages ${stage})
  endif()
endforeach()
tilelab_foreach_impl_source(_tilelab_trace_tables STAGES ${_trace_stages})

# Known-bad submissions with a [trace] table: the first difference must contain its words (the
# kit's own test tree only: _expects is empty elsewhere).
foreach(expect IN LISTS _expects)
  tilelab_known_bad("${expect}" bug stage bug_dir SECTION "^\\[trace\\]")
  if(NOT bug OR NOT stage IN_LIST TILELAB_TRACE_STAGES)
    continue()
  endif()
  tilelab_trace_runner(kit-${bug}-${stage} submission ${stage} "${bug_dir}/${stage}/matmul.cu" ON)
  set(name "kit.trace.${bug}")
  add_test(NAME ${name}
    COMMAND "${Python3_EXECUTABLE}" "${_trace_check}" --stage ${stage} --expect "${expect}"
            --runner "${PROJECT_BINARY_DIR}/runners/trace-kit-${bug}-${stage}"
            --work "${TILELAB_RESULTS_DIR}/${name}"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
  set_tests_properties(${name} PROPERTIES LABELS "kit;emu;trace" TIMEOUT 120)
endforeach()
