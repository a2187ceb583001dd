# The known-bad submissions on the GPU backend, all in one tree (grader/tests/submissions/gpu-suite.sh
# configures with -DTILELAB_KIT_GPU=ON). Off by default: CI has no GPU, and 30 more nvcc compiles
# would only slow it. Included at the end of TilelabStages.cmake, whose tilelab_add_gpu_runner
# builds each as run-kit-<name>-<stage>-gpu, sharing the core, the backend and the stage references
# with every other runner of the tree. A submission expected not to compile or link
# (`verdict = "compile"`) is left out of `all`: the suite builds it alone and grades its build log.

option(TILELAB_KIT_GPU "Build the known-bad submissions' GPU runners (for gpu-suite.sh)" OFF)
if(NOT TILELAB_KIT_GPU OR NOT TILELAB_HAVE_CUDA OR NOT TILELAB_KIT_SUITE)
  return()
endif()

file(GLOB _kit_gpu_expects CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/grader/tests/submissions/*/expect.toml")
foreach(expect IN LISTS _kit_gpu_expects)
  tilelab_known_bad("${expect}" sub stage sub_dir)
  if(NOT sub)
    continue()
  endif()
  tilelab_add_gpu_runner(kit-${sub} ${stage} "${sub_dir}/${stage}/matmul.cu")
  tilelab_build_fails("${expect}" "gpu" _builds_fail)
  if(_builds_fail)
    string(MAKE_C_IDENTIFIER "kit-${sub}" iid)
    string(MAKE_C_IDENTIFIER "${stage}" sid)
    set_target_properties(run-kit-${sub}-${stage}-gpu obj_${iid}_${sid}_gpu PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
endforeach()

# The differential check's GPU half (grader/tests/differential/gpu-differential.sh): the generated
# kernel variants, one runner per stage.
include(TilelabVariants)
foreach(stage IN LISTS TILELAB_VARIANT_STAGES)
  tilelab_add_gpu_runner(variants ${stage} "${TILELAB_VARIANTS_DIR}/${stage}/matmul.cu")
endforeach()
