# Third-party libraries, from Debian packages (./tilelab setup installs them: grader/setup/install-deps.sh).
set(_tilelab_apt "sudo apt-get install cmake g++ doctest-dev libopenblas-dev libboost-context-dev nlohmann-json3-dev libcli11-dev")

# .deps/usr: Debian packages unpacked into the checkout, not installed (setup as a user without
# root, or the offline GPU machine: grader/setup/debs.sh). Searched before the system's prefixes: a
# package lands there only because the system lacked it, and the system may hold a part of it that
# would be found first and fail (Ubuntu 24.04's Boost without Boost.Context: the GPU machine's check
# tree then had no emulator). The programs carry its library folders as rpath, as DT_RPATH (not
# DT_RUNPATH): that one also serves the libraries' own dependencies (libopenblas needs libgfortran,
# which a machine with only g++ lacks).
set(TILELAB_DEPS "${CMAKE_SOURCE_DIR}/.deps/usr")
if(IS_DIRECTORY "${TILELAB_DEPS}")
  list(PREPEND CMAKE_PREFIX_PATH "${TILELAB_DEPS}")
  file(GLOB _tilelab_deps_libs LIST_DIRECTORIES true "${TILELAB_DEPS}/lib/*-linux-gnu*")
  foreach(d IN LISTS _tilelab_deps_libs)
    if(IS_DIRECTORY "${d}/openblas-pthread")
      list(APPEND CMAKE_BUILD_RPATH "${d}/openblas-pthread")
    endif()
    list(APPEND CMAKE_BUILD_RPATH "${d}")
  endforeach()
  add_link_options("LINKER:--disable-new-dtags")
endif()

macro(tilelab_require pkg)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "tilelab: ${pkg} not found. Run ./tilelab setup, or: ${_tilelab_apt}")
  endif()
endmacro()

tilelab_require(nlohmann_json 3)
# CLI11 is header-only; where no package provides it (Debian 11 has no libcli11-dev) the kit's
# vendored copy of the headers Debian 12 ships stands in (grader/third_party/CLI11).
find_package(CLI11 QUIET)
if(NOT CLI11_FOUND)
  add_library(tilelab_cli11 INTERFACE)
  target_include_directories(tilelab_cli11 SYSTEM INTERFACE "${CMAKE_CURRENT_LIST_DIR}/../third_party/CLI11/include")
  add_library(CLI11::CLI11 ALIAS tilelab_cli11)
  message(STATUS "tilelab: no CLI11 installed: using grader/third_party/CLI11 (2.1.2)")
endif()
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
