# nvcc's back end for the performance model (docs/performance.md, "What nvcc's back end says"): where
# NVIDIA's compiler wheels are installed (grader/setup/install-deps.sh puts nvidia-cuda-nvcc,
# -nvdisasm and -cuobjdump into .venv; no root, no GPU, no CUDA toolkit), every file the count build
# models is also compiled for sm_90 and its cubin read (registers, spills, the hot loop's SASS mix)
# into <build>/backend-facts/<name>.json, which the judge reads into the perf-model result
# (--backend-facts, timing.impls.<name>.model.backend). Where the wheels are absent nothing is
# compiled, and the result says the model is the traffic model alone. Included by TilelabEmu.cmake.
#
# The compile is of the submission's code, so it runs confined as its other compiles do
# (tilelab_confine_nvcc_command: it reads the file and the wheels, writes only its own folder); the
# reading is the kit's own program on the cubin, as the scans of a submission's objects are. Neither
# step fails the build: a file nvcc refuses gets facts saying why. No confined step writes
# backend-facts/<name>.json itself, and the worker writes no file at all (docs/integrity.md).

option(TILELAB_BACKEND_FACTS "Read nvcc's back end (the PyPI compiler wheels) for the performance model where they are installed" ON)
set(TILELAB_BACKEND_FACTS_DIR "${PROJECT_BINARY_DIR}/backend-facts")
set(TILELAB_CUDA_WHEEL "" CACHE PATH "NVIDIA's compiler wheels' folder (nvidia/cu13, with bin/nvcc); empty: found in .venv")
set(_facts_wheel "")
if(TILELAB_BACKEND_FACTS)
  if(TILELAB_CUDA_WHEEL)
    set(_facts_wheel "${TILELAB_CUDA_WHEEL}")
  else()
    execute_process(COMMAND "${Python3_EXECUTABLE}" -m tilelab.run.nvcc_wheel
                    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader" OUTPUT_VARIABLE _facts_found
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _facts_rc)
    if(_facts_rc EQUAL 0)
      set(_facts_wheel "${_facts_found}")
    else()
      message(STATUS "tilelab: ${_facts_found}; the performance model reads the emulator's counts alone")
    endif()
  endif()
endif()
if(_facts_wheel)
  get_filename_component(_facts_wheel "${_facts_wheel}" REALPATH)
  message(STATUS "tilelab: nvcc's back end for the performance model from ${_facts_wheel}")
  # Wheels removed after this configure: the tree is configured again (and then reads no back end),
  # rather than failing its confined compile on a folder that is gone.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_facts_wheel}/bin/nvcc")
endif()

# The facts of `src` (a kernel file) as ${PROJECT_BINARY_DIR}/backend-facts/<name>.json: `out` is set to
# the file, and `target_out` to a target that makes it (add it to the runner's dependencies); both
# empty where the wheels are absent.
function(tilelab_backend_facts name src out target_out)
  set(${out} "" PARENT_SCOPE)
  set(${target_out} "" PARENT_SCOPE)
  if(NOT _facts_wheel)
    return()
  endif()
  set(json "${TILELAB_BACKEND_FACTS_DIR}/${name}.json")
  string(MAKE_C_IDENTIFIER "backend-facts-${name}" target)
  if(NOT TARGET ${target})
    set(dir "${TILELAB_BACKEND_FACTS_DIR}/${name}.d")
    # The kit's headers for students are on nvcc's path as in the GPU build (a file using the PTX
    # wrappers is read as the GPU runs it); of that folder the confined compile reads that header alone.
    set(student_include "${PROJECT_SOURCE_DIR}/grader/include")
    tilelab_confine_nvcc_command("${src}" "${_facts_wheel}" "${dir}" confined
                                 --read "${student_include}/tilelab/mma_ptx.cuh")
    set(deps "")
    if(TARGET tilelab-confine AND NOT TILELAB_KIT)
      set(deps tilelab-confine)
    endif()
    # sh: ptxas's report (-v) goes to a file; an empty cubin where nvcc refused the file.
    add_custom_command(OUTPUT "${dir}/k.cubin" "${dir}/ptxas.log"
      COMMAND ${confined} /bin/sh -c "\"$0\" -arch=sm_90 -cubin -Xptxas -v -I\"$3\" -o \"$1/k.cubin\" \"$2\" 2>\"$1/ptxas.log\" || : >\"$1/k.cubin\""
              "${_facts_wheel}/bin/nvcc" "${dir}" "${src}" "${student_include}"
      DEPENDS "${src}" "${student_include}/tilelab/mma_ptx.cuh" ${deps}
      COMMENT "Compiling ${src} with nvcc for sm_90 (the performance model's facts)"
      VERBATIM)
    add_custom_command(OUTPUT "${json}"
      COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${PROJECT_SOURCE_DIR}/grader"
              "${Python3_EXECUTABLE}" -m tilelab.run.sass_facts --wheel "${_facts_wheel}" --cubin "${dir}/k.cubin"
              --ptxas-log "${dir}/ptxas.log" --out "${json}"
      DEPENDS "${dir}/k.cubin" "${dir}/ptxas.log" "${PROJECT_SOURCE_DIR}/grader/tilelab/run/sass_facts.py"
              "${PROJECT_SOURCE_DIR}/grader/tilelab/run/sass.py" "${PROJECT_SOURCE_DIR}/grader/tilelab/run/kernel_resources.py"
      COMMENT "Reading nvcc's back end for ${name}"
      VERBATIM)
    add_custom_target(${target} DEPENDS "${json}")
  endif()
  set(${out} "${json}" PARENT_SCOPE)
  set(${target_out} ${target} PARENT_SCOPE)
endfunction()
