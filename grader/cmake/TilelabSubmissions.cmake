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
if(TILELAB_HAVE_SOLUTIONS)   # instructor material: not in the student repository
  file(GLOB _kit_grade_expects CONFIGURE_DEPENDS "${_kit_subs_dir}/*/expect.toml")
endif()
foreach(expect IN LISTS _kit_grade_expects)
  file(STRINGS "${expect}" _grade_sections REGEX "^\\[\\[?grade\\]")
  if(NOT _grade_sections)
    continue()
  endif()
  tilelab_known_bad("${expect}" sub stage sub_dir)
  if(NOT sub)
    continue()
  endif()
  set(base run-kit-${sub}-${stage})
  # Built at test time when the build is expected to fail (it must not break `all`).
  file(STRINGS "${expect}" _builds_fail REGEX "^(verdict *= *\"compile\"|links *= *false)")
  if(NOT TARGET ${base}-emu)
    # TilelabEmu's loop above already registered the rewrite of this file (with no build): add the
    # plain build as tilelab_emu_runners does.
    string(MAKE_C_IDENTIFIER "${base}" bid)
    tilelab_emu_adapter(${stage} submission adapter)
    add_library(emu_plain_${bid} OBJECT "${_emu_gen}/${base}.cpp")
    target_compile_options(emu_plain_${bid} PRIVATE -include "${_emu_dir}/include/tilelab_emu.h" ${_emu_flags_plain})
    target_include_directories(emu_plain_${bid} PRIVATE "${_emu_dir}/include")
    add_executable(${base}-emu $<TARGET_OBJECTS:tilelab_emu_runner_main> $<TARGET_OBJECTS:${adapter}>
                               $<TARGET_OBJECTS:emu_plain_${bid}>)
    target_link_libraries(${base}-emu PRIVATE tilelab_core CLI11::CLI11 tilelab_emu_rt_plain)
    set_target_properties(${base}-emu PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners"
                                                 LINKER_LANGUAGE CXX)
  endif()
  string(MAKE_C_IDENTIFIER "${base}" bid)
  if(_builds_fail)
    set_target_properties(${base}-emu emu_plain_${bid} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  set(name "kit.grade.${sub}")
  add_test(NAME ${name}
    COMMAND "${Python3_EXECUTABLE}" "${_kit_subs_dir}/grade_check.py" --expect "${expect}"
            --tree "${PROJECT_BINARY_DIR}" --work "${PROJECT_BINARY_DIR}/kit-grade/${sub}"
            --datasets "${TILELAB_DATASETS_DIR}" --targets "${base}-emu"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
  set_tests_properties(${name} PROPERTIES LABELS "kit;emu;kit-grade" TIMEOUT 180)
  if(_builds_fail)
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK tilelab-kit-build)
  endif()
endforeach()
