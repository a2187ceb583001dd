# Decides whether the GPU backend is built. With nvcc present, every stage compiles for the GPU
# (compile-only checks on machines without one); 'native' is the GPUs' compute capabilities as
# nvidia-smi reports them, or sm_90 when no GPU is found, so configuring never fails for lack of a GPU.
set(TILELAB_HAVE_CUDA OFF)
if(NOT TILELAB_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      set(arch "${TILELAB_CUDA_ARCHITECTURES}")
      if(arch STREQUAL "native")
        find_program(TILELAB_NVIDIA_SMI nvidia-smi)
        set(caps "")
        if(TILELAB_NVIDIA_SMI)
          execute_process(COMMAND "${TILELAB_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                          OUTPUT_VARIABLE caps RESULT_VARIABLE smi_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
          if(NOT smi_rc EQUAL 0)
            set(caps "")
          endif()
        endif()
        if(caps STREQUAL "")
          message(STATUS "tilelab: no GPU found; CUDA code is compiled for sm_90 (compile-only)")
          set(arch 90)
        else()
          # The GPU's own architectures, resolved here once: nvcc's -arch=native asks the driver at
          # every compile, which a compile confined from the device nodes (tilelab-confine) cannot,
          # and which failed on an H200 with sixteen compiles at once ("Cannot find valid GPU for
          # '-arch=native', default arch is used": 07's tensor-core code then did not compile).
          string(REPLACE "." "" caps "${caps}")
          string(REGEX REPLACE "[ \t\r\n]+" ";" caps "${caps}")
          list(REMOVE_DUPLICATES caps)
          set(arch "${caps}")
        endif()
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${arch}")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(TILELAB_HAVE_CUDA ON)
    message(STATUS "tilelab: GPU backend on (CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(TILELAB_CUDA STREQUAL "ON")
    message(FATAL_ERROR "tilelab: TILELAB_CUDA=ON but no CUDA compiler (nvcc) was found. Install the "
                        "CUDA Toolkit or configure with -DTILELAB_CUDA=OFF.")
  else()
    message(STATUS "tilelab: no nvcc; the GPU backend is not built (the CPU emulator still is)")
  endif()
endif()
