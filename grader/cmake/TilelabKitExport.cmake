# The kit tree (TILELAB_KIT_EXPORT=ON; grader/tilelab/run/kit.py builds it once per kit, backend and
# compiler): everything a submission's grading tree takes prebuilt (TilelabKit.cmake) -- the judge,
# the datasets, the worker mains, the backends, the emulator's rewriter, runtimes and per-stage
# adapters, every stage's reference workers -- built by the target tilelab-kit and exported with
# the settings they were built with to tilelab-kit.cmake. Included at the end of TilelabStages.cmake,
# whose functions (and TilelabEmu.cmake's) define the per-stage targets exactly as a grading tree does.

if(TILELAB_KIT)
  message(FATAL_ERROR "tilelab: a tree cannot both take a prebuilt kit (TILELAB_KIT) and export one")
endif()
set(_kit_targets tilelab-judge tilelab-confine tilelab_wire tilelab_worker_headers)
if(TILELAB_HAVE_CUDA)
  tilelab_worker_main(gpu under_test main)
  list(APPEND _kit_targets ${main} tilelab_gpu_backend)
  foreach(stage IN LISTS TILELAB_STAGES)
    tilelab_gpu_reference_worker(${stage})
    list(APPEND _kit_targets ref-${stage}-gpu)
  endforeach()
endif()
set(_kit_emu OFF)
if(COMMAND tilelab_emu_adapter)   # the emulator is built (Boost.Context found)
  set(_kit_emu ON)
  tilelab_worker_main(emu under_test main)
  list(APPEND _kit_targets ${main} tilelab-emu-rewrite tilelab_emu_backend_objs)
  foreach(build IN LISTS _emu_rt_builds)
    list(APPEND _kit_targets tilelab_emu_rt_${build})
  endforeach()
  foreach(stage IN LISTS TILELAB_STAGES)
    tilelab_emu_adapter(${stage} submission adapter)
    list(APPEND _kit_targets ${adapter})
    if(TILELAB_${stage}_MODEL_SHAPE)
      tilelab_emu_reference_worker(${stage})
      if(TARGET ref-${stage}-emu-count)
        list(APPEND _kit_targets ref-${stage}-emu-count)
      endif()
    endif()
  endforeach()
endif()
list(REMOVE_DUPLICATES _kit_targets)
export(TARGETS ${_kit_targets} FILE "${PROJECT_BINARY_DIR}/tilelab-kit-targets.cmake")
# tilelab-kit builds every target it exports (an interface library has nothing to build) and the
# datasets: one list, so nothing exported can be left unbuilt (kit.missing checks the files too).
add_custom_target(tilelab-kit ALL)
add_dependencies(tilelab-kit datasets)
foreach(t IN LISTS _kit_targets)
  get_target_property(_kit_type ${t} TYPE)
  if(NOT _kit_type STREQUAL "INTERFACE_LIBRARY")
    add_dependencies(tilelab-kit ${t})
  endif()
endforeach()

set(_kit_arch "")
if(TILELAB_HAVE_CUDA)
  set(_kit_arch "${CMAKE_CUDA_ARCHITECTURES}")
endif()
file(WRITE "${PROJECT_BINARY_DIR}/tilelab-kit.cmake"
"# Written by TilelabKitExport.cmake: the settings this prebuilt kit was built with.
set(TILELAB_KIT_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
set(TILELAB_KIT_CUDA ${TILELAB_HAVE_CUDA})
set(TILELAB_KIT_CUDA_ARCHITECTURES \"${_kit_arch}\")
set(TILELAB_KIT_EMU ${_kit_emu})
set(TILELAB_KIT_EMU_HAVE_ASAN \"${TILELAB_EMU_HAVE_ASAN}\")
")
