# NVIDIA compute-sanitizer checks on the GPU backend (docs/grading.md, "What one check does";
# docs/emulator.md compares them with the emulator).
# Included at the end of TilelabStages.cmake, whose tilelab_add_gpu_runner targets they run. For
# every stage x implementation with a GPU runner it registers
#   <impl>.<stage>.<dataset>.memcheck|synccheck|initcheck   on each dataset of stage.toml's [sanitizer] datasets
#   <impl>.<stage>.<dataset>.racecheck                      on each of its [sanitizer] racecheck
# (TILELAB_<stage>_SANITIZER_<tool>, written by codegen: datasets with partial tiles, so the edge
# threads a missing bounds test concerns exist; docs/grading.md, "The safety checks' datasets"),
# each running `python3 -m tilelab.run.sanitize --tool T` (grader/tilelab/run/sanitize.py) around the
# runner's correct check: exit 77 where compute-sanitizer or a GPU is missing, verdict error with the
# findings (kind, file:line from -lineinfo) under "sanitizer" in the result JSON otherwise. Labels as
# every check: impl;stage;<tool>;gpu;public. The starter is expected to fail in the kit's self-test.

set(_san_timeout_memcheck 900)
set(_san_timeout_synccheck 900)
set(_san_timeout_initcheck 900)
set(_san_timeout_racecheck 1800)

if(NOT TILELAB_HAVE_CUDA)
  return()
endif()

function(_tilelab_sanitizer_checks impl stage src)
  if(NOT TARGET run-${impl}-${stage}-gpu)
    return()
  endif()
  foreach(tool memcheck synccheck initcheck racecheck)
    foreach(ds IN LISTS TILELAB_${stage}_SANITIZER_${tool})
      set(name "${impl}.${stage}.${ds}.${tool}")
      set(json "${TILELAB_RESULTS_DIR}/${name}.json")
      set(wrap "${Python3_EXECUTABLE}" -m tilelab.run.sanitize --tool ${tool} --json "${json}"
               --timeout ${_san_timeout_${tool}})
      if(impl STREQUAL "starter" AND TILELAB_STARTER_EXPECT_FAIL)
        list(APPEND wrap --expect-fail)
      endif()
      set(cmd ${wrap} -- "${TILELAB_JUDGE}" --worker "${PROJECT_BINARY_DIR}/runners/run-${impl}-${stage}-gpu"
              --spec "${TILELAB_${stage}_SPEC}" --dataset "${TILELAB_DATASETS_DIR}/${stage}/${ds}"
              --check correct --json "${json}" --timeout ${_san_timeout_${tool}} --tool-attached ${TILELAB_JUDGE_SEALED})
      if(NOT TILELAB_STARTER_EXPECT_FAIL)
        tilelab_starter_wrap(${impl} "${json}" cmd)   # the student repository's progress mode
      endif()
      add_test(NAME ${name} COMMAND ${cmd} WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
      math(EXPR hard "${_san_timeout_${tool}} + 60")
      set_tests_properties(${name} PROPERTIES
        SKIP_RETURN_CODE ${TILELAB_SKIP_CODE}
        TIMEOUT ${hard}
        LABELS "${impl};${stage};${tool};gpu;public")
    endforeach()
  endforeach()
endfunction()
tilelab_foreach_impl_source(_tilelab_sanitizer_checks)
