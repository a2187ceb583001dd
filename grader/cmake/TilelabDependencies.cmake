# Third-party libraries, all from Debian 12 packages (./tilelab setup installs them).
set(_tilelab_apt "sudo apt-get install cmake g++ doctest-dev libopenblas-dev libboost-context-dev nlohmann-json3-dev libcli11-dev")

macro(tilelab_require pkg)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "tilelab: ${pkg} not found. Run ./tilelab setup, or: ${_tilelab_apt}")
  endif()
endmacro()

tilelab_require(nlohmann_json 3)
tilelab_require(CLI11)
tilelab_require(doctest)

# OpenBLAS computes the float64 references through CBLAS. Debian keeps it in openblas-pthread/.
find_path(TILELAB_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas)
find_library(TILELAB_OPENBLAS_LIBRARY NAMES openblas PATH_SUFFIXES openblas-pthread openblas)
if(NOT TILELAB_CBLAS_INCLUDE_DIR OR NOT TILELAB_OPENBLAS_LIBRARY)
  message(FATAL_ERROR "tilelab: OpenBLAS (cblas.h, libopenblas) not found. Run ./tilelab setup, or: ${_tilelab_apt}")
endif()
add_library(tilelab_openblas INTERFACE)
target_include_directories(tilelab_openblas SYSTEM INTERFACE "${TILELAB_CBLAS_INCLUDE_DIR}")
target_link_libraries(tilelab_openblas INTERFACE "${TILELAB_OPENBLAS_LIBRARY}")
add_library(tilelab::openblas ALIAS tilelab_openblas)
