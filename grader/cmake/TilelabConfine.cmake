# No build of a submission reads a secret (docs/integrity.md, "No build reads a secret"). Every
# compile, assemble and link of a submission's code runs under runners/tilelab-confine
# (grader/runner/confine_main.cpp: Landlock and no_new_privs), put in front of the compiler and the
# linker through the <LANG>_COMPILER_LAUNCHER and <LANG>_LINKER_LAUNCHER properties of the
# submission's own targets, and in front of the emulator's rewriter in its custom command. Such a
# step can read only the submission's file, the kit's public headers (grader/include,
# grader/emu/include, generated/include), the toolchain and, for a link, the exact objects and
# libraries it links; it can write only its own object folder (its private TMPDIR inside) or, for a
# link, runners/. Not CMakeCache.txt (the grading seed), the datasets, solutions/, the answer keys,
# the kit's sources or another submission's tree: an `#include`, `__has_include`, `.incbin` or
# `.include` of any of them is a compile error naming the path (g++: "Permission denied"; the
# assembler: "can't open ... for reading" or "file not found"), never its contents. The kit's own
# objects (the worker mains, the backends, the adapters, the references) are trusted and built as
# usual. Included by TilelabStages.cmake before any runner is defined.
#
# Sealed (a grading seed is configured) or TILELAB_CONFINE_REQUIRE: a kernel without Landlock fails
# every such build step with the reason (tilelab-confine --require). Otherwise the step runs
# unconfined there, with one note on stderr.

option(TILELAB_CONFINE_REQUIRE "Fail a submission's build where it cannot be confined (no Landlock), even without a seed" OFF)
set(_confine_require "")
if(TILELAB_CONFINE_REQUIRE OR NOT TILELAB_GRADING_SEED STREQUAL "")
  set(_confine_require --require)
endif()

if(TILELAB_KIT)
  set(TILELAB_CONFINE "${TILELAB_KIT}/runners/tilelab-confine")   # the kit's (TilelabKitExport.cmake)
else()
  add_executable(tilelab-confine "${PROJECT_SOURCE_DIR}/grader/runner/confine_main.cpp"
                                 "${PROJECT_SOURCE_DIR}/grader/runner/confine.cpp")
  target_link_libraries(tilelab-confine PRIVATE CLI11::CLI11)
  target_compile_options(tilelab-confine PRIVATE -Wall -Wextra)
  set_target_properties(tilelab-confine PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners")
  set(TILELAB_CONFINE "${PROJECT_BINARY_DIR}/runners/tilelab-confine")
endif()

# The toolchain: what every confined step may read and execute (compilers, assembler, linker,
# their libraries and configuration), the CPU's description, and the few device nodes a compiler
# opens. The compilers' own folders are added where they lie outside /usr and /opt.
set(_confine_exec /usr /lib /lib64 /lib32 /libx32 /bin /sbin /opt)
foreach(tool IN ITEMS "${CMAKE_CXX_COMPILER}" "${CMAKE_CUDA_COMPILER}" "${CMAKE_LINKER}" "${CMAKE_AR}")
  if(tool)
    get_filename_component(real "${tool}" REALPATH)
    get_filename_component(bin "${real}" DIRECTORY)
    get_filename_component(root "${bin}" DIRECTORY)   # the toolkit's root: bin/.., with its include/ and lib/
    list(APPEND _confine_exec "${root}")
  endif()
endforeach()
# The prefixes the kit's libraries were found under (CMAKE_PREFIX_PATH, e.g. the Debian packages
# pack-offline-deps.sh unpacks into .deps/usr on an offline GPU machine) are the system's libraries
# there: a confined link (a trace runner links the core, and with it OpenBLAS) reads them as it
# reads /usr. Without this, `tilelab trace` failed to link wherever OpenBLAS came from .deps/.
# So is the checkout's own .deps/usr (TilelabDependencies.cmake puts it on CMAKE_SYSTEM_PREFIX_PATH:
# setup as a user without root unpacks the -dev packages there): without it every stage's confined
# link failed, "cannot find .../.deps/usr/lib/x86_64-linux-gnu/libboost_context.so...: Permission
# denied" (kit.portability.trixie-user).
string(REPLACE ":" ";" _confine_env_prefixes "$ENV{CMAKE_PREFIX_PATH}")
foreach(prefix IN LISTS CMAKE_PREFIX_PATH _confine_env_prefixes TILELAB_DEPS)
  if(IS_ABSOLUTE "${prefix}" AND IS_DIRECTORY "${prefix}")
    get_filename_component(real "${prefix}" REALPATH)
    list(APPEND _confine_exec "${real}")
  endif()
endforeach()
if(CUDAToolkit_BIN_DIR)
  get_filename_component(real "${CUDAToolkit_BIN_DIR}/.." REALPATH)
  list(APPEND _confine_exec "${real}")
endif()
# A launcher already in place (CI's .ci/ccache-launcher, through CMAKE_<LANG>_COMPILER_LAUNCHER)
# runs inside the confinement: it may execute itself and use its cache (CCACHE_DIR).
foreach(lang CXX CUDA)
  foreach(word IN LISTS CMAKE_${lang}_COMPILER_LAUNCHER)
    if(IS_ABSOLUTE "${word}" AND EXISTS "${word}")
      list(APPEND _confine_exec "${word}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES _confine_exec)
set(_confine_common ${_confine_require})
foreach(d IN LISTS _confine_exec)
  list(APPEND _confine_common --read-exec "${d}")
endforeach()
list(APPEND _confine_common --read /etc --read /proc/cpuinfo --read /proc/meminfo --read /sys/devices/system/cpu
                            --device /dev/null --device /dev/zero --device /dev/urandom)
if(CMAKE_CXX_COMPILER_LAUNCHER OR CMAKE_CUDA_COMPILER_LAUNCHER)
  if(DEFINED ENV{CCACHE_DIR})   # CI's (.ci/run); else ccache's default folders
    list(APPEND _confine_common --write "$ENV{CCACHE_DIR}")
  elseif(DEFINED ENV{HOME})
    list(APPEND _confine_common --write "$ENV{HOME}/.cache/ccache" --read "$ENV{HOME}/.config/ccache")
  endif()
endif()
# The kit's public headers: what a student's file is compiled against (the emulator's stand-in CUDA
# headers, the generated contract). Nothing else of the kit.
set(_confine_public --read "${PROJECT_SOURCE_DIR}/grader/include" --read "${PROJECT_SOURCE_DIR}/grader/emu/include"
                    --read "${TILELAB_GENERATED}/include")

# The assembler's listing of the submission's object, <objdir>/assembly.lst: every line of the
# compiler's assembly output, which marks each `asm` it compiled (g++ and nvcc's host compiler:
# #APP ... #NO_APP; clang: the same, and "Start of file scope inline assembly"). The allow-list scan
# refuses an object whose listing holds the student's own assembly or is missing
# (grader/tilelab/run/listing.py; docs/integrity.md, "Nothing the instrumentation cannot see").
# clang's integrated assembler writes no listing: GNU as assembles its output instead.
# And the translation unit the compiler compiled, preprocessed, beside the object (<object minus .o>.ii,
# -save-temps=obj; on nvcc the host compiler's, device code cut out): the strings the compiler copies
# into its assembly with no #APP line (asm labels, section/alias/symver names) are read there
# (grader/tilelab/run/preprocessed.py). Written by the compile itself, so that no #if can show the
# scan other code than the compiler's. ccache does not cache a compile with -save-temps: these
# objects are always compiled.
function(tilelab_assembly_listing target lang objdir)
  set(listing "${objdir}/assembly.lst")
  if(lang STREQUAL "CUDA")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Xassembler,-aln=${listing}>"
                                             "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-save-temps=obj>")
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -fno-integrated-as "-Wa,-aln=${listing}" -save-temps=obj)
  else()
    target_compile_options(${target} PRIVATE "-Wa,-aln=${listing}" -save-temps=obj)
  endif()
endfunction()

# The compiles of `lang` (CXX or CUDA) in `target`, a submission's object library, run confined;
# ARGN: the files of the submission it may read (its matmul.cu, the rewritten copy). The launcher
# set before (CMAKE_<LANG>_COMPILER_LAUNCHER) is kept, inside the confinement.
function(tilelab_confine_compile target lang)
  set(objdir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.dir")
  set(cmd "${TILELAB_CONFINE}" ${_confine_common} ${_confine_public} --write "${objdir}" --tmpdir "${objdir}/tmp")
  foreach(f IN LISTS ARGN)
    list(APPEND cmd --read "${f}")
  endforeach()
  get_target_property(prev ${target} ${lang}_COMPILER_LAUNCHER)
  list(APPEND cmd --)
  # ccache keeps g++'s assembler listing with the object, not nvcc's host compiler's: a cache hit
  # would leave the GPU object without the listing the scan requires (tilelab_assembly_listing).
  if(prev AND NOT lang STREQUAL "CUDA")
    list(APPEND cmd ${prev})
  endif()
  set_target_properties(${target} PROPERTIES ${lang}_COMPILER_LAUNCHER "${cmd}")
  tilelab_assembly_listing(${target} ${lang} "${objdir}")
  if(TARGET tilelab-confine AND NOT TILELAB_KIT)
    add_dependencies(${target} tilelab-confine)
  endif()
endfunction()

# The files a link of `targets` (object and static libraries, the kit's imported ones too) reads:
# each object library's objects (its object folder, or the kit's exact object files), each static
# library's archive.
function(_tilelab_confine_link_inputs out)
  set(files "")
  foreach(t IN LISTS ARGN)
    if(NOT TARGET ${t})
      continue()
    endif()
    get_target_property(type ${t} TYPE)
    get_target_property(imported ${t} IMPORTED)
    if(imported)
      foreach(p IMPORTED_OBJECTS IMPORTED_OBJECTS_RELEASE IMPORTED_OBJECTS_DEBUG IMPORTED_OBJECTS_NOCONFIG
                IMPORTED_LOCATION IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_DEBUG IMPORTED_LOCATION_NOCONFIG)
        get_target_property(v ${t} ${p})
        if(v)
          list(APPEND files ${v})
        endif()
      endforeach()
    elseif(type STREQUAL "OBJECT_LIBRARY")
      get_target_property(dir ${t} BINARY_DIR)
      list(APPEND files "${dir}/CMakeFiles/${t}.dir")
    elseif(type STREQUAL "STATIC_LIBRARY")
      get_target_property(dir ${t} BINARY_DIR)
      get_target_property(name ${t} OUTPUT_NAME)
      if(NOT name)
        set(name ${t})
      endif()
      list(APPEND files "${dir}/${CMAKE_STATIC_LIBRARY_PREFIX}${name}${CMAKE_STATIC_LIBRARY_SUFFIX}")
    endif()
  endforeach()
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# The link of `runner`, an executable holding a submission's object, runs confined: it reads the
# objects and libraries of `inputs` (targets) and the toolchain, and writes only runners/ and its
# private TMPDIR (collect2's temporary files).
function(tilelab_confine_link runner)
  _tilelab_confine_link_inputs(files ${ARGN})
  set(objdir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${runner}.dir")
  get_target_property(outdir ${runner} RUNTIME_OUTPUT_DIRECTORY)
  # objdir too: CMake 3.27 and later have the linker write its dependency file (link.d) there.
  set(cmd "${TILELAB_CONFINE}" ${_confine_common} --write "${outdir}" --write "${objdir}" --tmpdir "${objdir}/tmp")
  foreach(f IN LISTS files)
    list(APPEND cmd --read "${f}")
  endforeach()
  get_target_property(prev ${runner} CXX_LINKER_LAUNCHER)
  list(APPEND cmd --)
  if(prev)
    list(APPEND cmd ${prev})
  endif()
  set_target_properties(${runner} PROPERTIES CXX_LINKER_LAUNCHER "${cmd}")
  if(TARGET tilelab-confine AND NOT TILELAB_KIT)
    add_dependencies(${runner} tilelab-confine)
  endif()
endfunction()

# The command of the emulator's rewriter for one submission's file, confined: it reads `src` and
# writes only `dst`'s folder (generated/emu, where the rewritten files are: the rewriter is the
# kit's own program and reads nothing but its first argument, so the folder it writes need not be
# its own).
function(tilelab_confine_rewrite_command src dst out)
  get_filename_component(dir "${dst}" DIRECTORY)
  set(${out} "${TILELAB_CONFINE}" ${_confine_common} --read-exec "$<TARGET_FILE:tilelab-emu-rewrite>" --read "${src}"
             --write "${dir}" -- PARENT_SCOPE)
endfunction()

# The command of nvcc compiling one submission's file for its back end's facts (TilelabBackendFacts.cmake),
# confined: it reads `src` and NVIDIA's compiler wheels (`wheel`, with their headers and cicc), and
# writes only `dir` (its TMPDIR inside).
function(tilelab_confine_nvcc_command src wheel dir out)   # ARGN: further options of tilelab-confine (--read FILE)
  set(${out} "${TILELAB_CONFINE}" ${_confine_common} --read-exec "${wheel}" --read "${src}" ${ARGN} --write "${dir}"
             --tmpdir "${dir}/tmp" -- PARENT_SCOPE)
endfunction()

# tilelab-confine itself: reads only what it is given (not CMakeCache.txt), writes only its folders,
# passes the program's options on (grader/tests/confine_check.py; skipped where there is no Landlock).
if(TILELAB_SELF_TESTS AND NOT TILELAB_KIT)
  add_test(NAME kit.confine
           COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/grader/tests/confine_check.py"
                   --confine "$<TARGET_FILE:tilelab-confine>" --tree "${PROJECT_BINARY_DIR}")
  set_tests_properties(kit.confine PROPERTIES LABELS "kit;python" TIMEOUT 60 SKIP_RETURN_CODE 77)
endif()
