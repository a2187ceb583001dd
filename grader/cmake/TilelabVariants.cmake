# The differential check's kernel variants (grader/tests/differential/variants.py; docs/emulator.md,
# "Differential check"): generated at configure time into the build tree, one .cu file per stage
# holding every variant (chosen at run time by TILELAB_VARIANT), never committed. Included by
# TilelabEmu.cmake (emulator runners, CTest kit.emu.differential) and TilelabKitGpu.cmake (GPU
# runners for grader/tests/differential/gpu-differential.sh); sets TILELAB_VARIANTS_DIR and
# TILELAB_VARIANT_STAGES.
include_guard(GLOBAL)
set(TILELAB_VARIANTS_DIR "${PROJECT_BINARY_DIR}/generated/variants")
set(_variants_py "${PROJECT_SOURCE_DIR}/grader/tests/differential/variants.py")
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_variants_py}")
execute_process(COMMAND "${Python3_EXECUTABLE}" "${_variants_py}" --out "${TILELAB_VARIANTS_DIR}"
                RESULT_VARIABLE _variants_rc OUTPUT_QUIET ERROR_VARIABLE _variants_err)
set(TILELAB_VARIANT_STAGES "")
if(NOT _variants_rc EQUAL 0)
  message(WARNING "tilelab: the differential check's variants were not generated: ${_variants_err}")
  return()
endif()
# The stages variants.py wrote a file for (its STAGES): nothing to keep in step here.
foreach(stage IN LISTS TILELAB_STAGES)
  if(EXISTS "${TILELAB_VARIANTS_DIR}/${stage}/matmul.cu")
    list(APPEND TILELAB_VARIANT_STAGES ${stage})
  endif()
endforeach()
