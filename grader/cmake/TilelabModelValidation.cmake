# The performance model's validation (docs/performance.md, "Validation";
# grader/model-validation/model-validation.sh): with -DTILELAB_MODEL_VARIANTS=DIR (written by
# grader/model-validation/model_variants.py,
# DIR/<variant>/<stage>/matmul.cu), a runner per variant: run-mv-<variant>-<stage>-gpu where CUDA is
# on, run-mv-<variant>-<stage>-emu-count where the emulator is. Each links its stage's reference
# solution (and the previous stage's), as a student's runner does.
set(TILELAB_MODEL_VARIANTS "" CACHE PATH "performance-model validation: the variants' folder")
if(NOT TILELAB_MODEL_VARIANTS)
  return()
endif()
file(GLOB _mv_files RELATIVE "${TILELAB_MODEL_VARIANTS}" CONFIGURE_DEPENDS "${TILELAB_MODEL_VARIANTS}/*/*/matmul.cu")
foreach(f IN LISTS _mv_files)
  string(REPLACE "/" ";" parts "${f}")
  list(GET parts 0 variant)
  list(GET parts 1 stage)
  if(NOT stage IN_LIST TILELAB_STAGES)
    continue()
  endif()
  set(src "${TILELAB_MODEL_VARIANTS}/${f}")
  if(TILELAB_HAVE_CUDA)
    tilelab_add_gpu_runner(mv-${variant} ${stage} "${src}")
  endif()
  if(COMMAND tilelab_emu_runners)
    tilelab_emu_runners(run-mv-${variant}-${stage} mv-${variant} ${stage} "${src}" count)
  endif()
endforeach()
