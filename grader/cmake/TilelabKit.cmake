# A grading tree that takes the kit prebuilt (-DTILELAB_KIT=<a tree built with TILELAB_KIT_EXPORT>,
# grader/tilelab/run/kit.py): the judge, the datasets, the emulator's rewriter and runtimes, the worker
# mains, the backends and every stage's reference workers are the kit tree's, imported; this tree
# compiles the code under test and links its workers, nothing else. The kit tree is built by the
# grader itself before any submission and is never writable by a submission's process, so what it
# holds cannot be changed by the code it grades (docs/integrity.md).
#
# Included before TilelabCuda.cmake: the kit's settings (tilelab-kit.cmake, written by
# TilelabKitExport.cmake) decide this tree's backends and CUDA architectures, which must be the
# kit's for its objects to link. tilelab_kit_import() then brings in its targets.

if(NOT EXISTS "${TILELAB_KIT}/tilelab-kit.cmake")
  message(FATAL_ERROR "tilelab: TILELAB_KIT=${TILELAB_KIT} is not a prebuilt kit (no tilelab-kit.cmake there)")
endif()
include("${TILELAB_KIT}/tilelab-kit.cmake")
if(NOT TILELAB_KIT_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR)
  message(FATAL_ERROR "tilelab: the kit at ${TILELAB_KIT} was built from ${TILELAB_KIT_SOURCE_DIR}, not ${PROJECT_SOURCE_DIR}")
endif()
if(TILELAB_SELF_TESTS)
  message(FATAL_ERROR "tilelab: a tree with TILELAB_KIT grades; it cannot hold the kit's own tests (TILELAB_SELF_TESTS=OFF)")
endif()
set(TILELAB_CUDA "${TILELAB_KIT_CUDA}" CACHE STRING "" FORCE)
if(TILELAB_KIT_CUDA)
  set(CMAKE_CUDA_ARCHITECTURES "${TILELAB_KIT_CUDA_ARCHITECTURES}")
endif()
set(TILELAB_EMU_HAVE_ASAN "${TILELAB_KIT_EMU_HAVE_ASAN}" CACHE INTERNAL "")
set(TILELAB_DATASETS_DIR "${TILELAB_KIT}/datasets" CACHE PATH "Where the generated datasets live" FORCE)

macro(tilelab_kit_import)
  include("${TILELAB_KIT}/tilelab-kit-targets.cmake")
  set(TILELAB_JUDGE "${TILELAB_KIT}/runners/tilelab-judge")
  # grade.py builds datasets-<stage> before a stage's checks: here they are the kit's, made already.
  foreach(stage IN LISTS TILELAB_STAGES)
    add_custom_target(datasets-${stage})
  endforeach()
  add_custom_target(datasets)
endmacro()
