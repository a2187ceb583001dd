# The grader's own suite of known-bad submissions, run through the Python grader's path.
# Included at the end of TilelabEmu.cmake (so only when the emulator is built); uses its
# tilelab_emu_runners. For every grader/tests/submissions/<name>/expect.toml with a [grade] section
# it makes sure the plain emulator runner run-kit-<name>-<stage>-emu exists and registers
#   kit.grade.<name>    grade_check.py: build, static scan, sandboxed CTest run, verdict asserted
# (labels kit;emu;kit-grade). A submission expected not to compile or link ([grade] verdict
# "compile", or a link that needs a library the emulator lacks) is left out of `all` and built by
# its test, as the grader builds it; those tests share a lock so two builds never race in the tree.

set(_kit_subs_dir "${PROJECT_SOURCE_DIR}/grader/tests/submissions")
set(_kit_grade_expects "")
if(TILELAB_KIT_SUITE)   # instructor material: not in the student repository
  file(GLOB _kit_grade_expects CONFIGURE_DEPENDS "${_kit_subs_dir}/*/expect.toml")
endif()
foreach(expect IN LISTS _kit_grade_expects)
  tilelab_known_bad("${expect}" sub stage sub_dir SECTION "^\\[\\[?grade\\]")
  if(NOT sub)
    continue()
  endif()
  set(base run-kit-${sub}-${stage})
  # Built at test time when the build is expected to fail (it must not break `all`).
  tilelab_build_fails("${expect}" "top;grade" _builds_fail)
  if(NOT TARGET ${base}-emu)
    # TilelabEmu's loop above already registered the rewrite of this file (with no build): add the
    # plain build as tilelab_emu_runners does.
    string(MAKE_C_IDENTIFIER "${base}" bid)
    tilelab_emu_adapter(${stage} submission adapter)
    add_library(emu_plain_${bid} OBJECT "${_emu_gen}/${base}.cpp")
    target_compile_options(emu_plain_${bid} PRIVATE -include "${_emu_dir}/include/tilelab_emu.h" ${_emu_flags_plain})
    target_include_directories(emu_plain_${bid} PRIVATE "${_emu_dir}/include")
    tilelab_confine_compile(emu_plain_${bid} CXX "${_emu_gen}/${base}.cpp" "${sub_dir}/${stage}/matmul.cu")
    tilelab_emu_worker(${base}-emu ${adapter} emu_plain_${bid} plain)
  endif()
  string(MAKE_C_IDENTIFIER "${base}" bid)
  if(_builds_fail)
    set_target_properties(${base}-emu emu_plain_${bid} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  # The ASan and race runners too, where the emulator suite built them: a [grade] case with
  # checks = ["emu", "emu-asan"] scores a finding against the correctness check.
  set(targets "${base}-emu")
  foreach(variant IN ITEMS emu-asan emu-race)
    if(TARGET ${base}-${variant})
      list(APPEND targets ${base}-${variant})
    endif()
  endforeach()
  set(name "kit.grade.${sub}")
  add_test(NAME ${name}
    COMMAND "${Python3_EXECUTABLE}" "${_kit_subs_dir}/grade_check.py" --expect "${expect}"
            --tree "${PROJECT_BINARY_DIR}" --work "${PROJECT_BINARY_DIR}/kit-grade/${sub}"
            --datasets "${TILELAB_DATASETS_DIR}" --targets "${targets}"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
  set_tests_properties(${name} PROPERTIES LABELS "kit;emu;kit-grade" TIMEOUT 180)
  if(_builds_fail)
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK tilelab-kit-build)
  endif()
endforeach()

# Leftovers of an earlier submission never decide a later one's verdict (kit.grade.scratch-tree,
# scratch_tree.py): the submissions below are graded one after another through one shared
# implementation, kit-scratch, whose source file the test overwrites (as a reused scratch tree's
# submission-src is), and each again through its own never-shared implementation kit-fresh-<name>;
# the verdicts must agree. All on 01-basic, every emulator build; built by the test, not by `all`.
set(TILELAB_SCRATCH_SUBMISSIONS reads-dataset compile-error own-main hang)
set(_scratch_src "${PROJECT_BINARY_DIR}/kit-scratch/01-basic/matmul.cu")
if(NOT EXISTS "${_scratch_src}" AND EXISTS "${PROJECT_SOURCE_DIR}/starter/01-basic/matmul.cu")
  file(COPY "${PROJECT_SOURCE_DIR}/starter/01-basic/matmul.cu" DESTINATION "${PROJECT_BINARY_DIR}/kit-scratch/01-basic")
endif()
set(_scratch_files "")
foreach(sub IN ITEMS scratch ${TILELAB_SCRATCH_SUBMISSIONS})
  if(sub STREQUAL "scratch")
    set(base run-kit-scratch-01-basic)
    set(src "${_scratch_src}")
  else()
    set(base run-kit-fresh-${sub}-01-basic)
    tilelab_known_bad("${_kit_subs_dir}/${sub}/expect.toml" _name _stage _dir)   # a mutant's folder too
    set(src "${_dir}/01-basic/matmul.cu")
    list(APPEND _scratch_files "${src}")
  endif()
  if(NOT EXISTS "${src}")
    message(WARNING "tilelab: kit.grade.scratch-tree: ${src} is missing")
    continue()
  endif()
  tilelab_emu_runners(${base} submission 01-basic "${src}" "${TILELAB_EMU_BUILDS}")
  string(MAKE_C_IDENTIFIER "${base}" bid)
  foreach(build IN LISTS TILELAB_EMU_BUILDS)
    set_target_properties(${base}-${_emu_suffix_${build}} emu_${build}_${bid} PROPERTIES EXCLUDE_FROM_ALL ON)
  endforeach()
endforeach()
add_test(NAME kit.grade.scratch-tree
  COMMAND "${Python3_EXECUTABLE}" "${_kit_subs_dir}/scratch_tree.py" --tree "${PROJECT_BINARY_DIR}"
          --work "${PROJECT_BINARY_DIR}/kit-grade/scratch-tree" --source "${_scratch_src}"
          --submissions "${TILELAB_SCRATCH_SUBMISSIONS}" --files "${_scratch_files}"
  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
set_tests_properties(kit.grade.scratch-tree PROPERTIES LABELS "kit;emu;kit-grade" TIMEOUT 600
                     RESOURCE_LOCK tilelab-kit-build)
