# Builds a runner for every stage x implementation x backend and registers its checks with CTest,
# named <impl>.<stage>.<dataset>.<check> (docs/grading.md, "What one check does"). Everything per stage
# comes from the generated tilelab_stages.cmake, i.e. from assignments/<stage>/stage.toml.

set(TILELAB_RESULTS_DIR "${PROJECT_BINARY_DIR}/results" CACHE INTERNAL "")
set(_runner_dir "${PROJECT_SOURCE_DIR}/grader/runner")
include(TilelabConfine)   # tilelab-confine, and the confinement of every build step of a submission's code

# The bare starter level (grader/tilelab/specs/starter.py), generated from the solutions when asked for:
# its checks, like the guided starter's, must all fail unmodified.
if(TILELAB_STARTER_LEVEL STREQUAL "bare" AND TILELAB_HAVE_SOLUTIONS)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c
                  "import sys; sys.path.insert(0, sys.argv[1]); from tilelab.specs import starter; starter.generate(level='bare', out=sys.argv[2])"
                  "${PROJECT_SOURCE_DIR}/grader" "${PROJECT_BINARY_DIR}/starter-bare"
                  RESULT_VARIABLE _bare_rc ERROR_VARIABLE _bare_err)
  if(NOT _bare_rc EQUAL 0)
    message(FATAL_ERROR "generating the bare starters failed: ${_bare_err}")
  endif()
elseif(NOT TILELAB_STARTER_LEVEL MATCHES "^(guided|bare)$")
  message(FATAL_ERROR "TILELAB_STARTER_LEVEL must be guided or bare, got '${TILELAB_STARTER_LEVEL}'")
endif()

# Where an implementation's matmul.cu for a stage lives; empty when it has none.
function(tilelab_impl_source impl stage out)
  if(impl STREQUAL "solution")
    set(src "${PROJECT_SOURCE_DIR}/solutions/${stage}/matmul.cu")
  elseif(impl STREQUAL "starter" AND TILELAB_STARTER_LEVEL STREQUAL "bare")
    set(src "${PROJECT_BINARY_DIR}/starter-bare/${stage}/matmul.cu")
  elseif(impl STREQUAL "starter")
    set(src "${PROJECT_SOURCE_DIR}/starter/${stage}/matmul.cu")
  elseif(impl STREQUAL "submission")
    set(src "${TILELAB_SUBMISSION}/${stage}/matmul.cu")
  endif()
  if(NOT EXISTS "${src}")
    set(src "")
  endif()
  set(${out} "${src}" PARENT_SCOPE)
endfunction()

# Mutants: known-bad submissions stated as edits of a solution (grader/tests/submissions/mutate.py),
# written into the build tree now; a mutant whose edit no longer applies is skipped with a warning
# here and fails kit.mutants. The student repository has neither solutions nor this suite.
set(TILELAB_MUTANTS_DIR "${PROJECT_BINARY_DIR}/kit-mutants")
set(TILELAB_MUTATE "${PROJECT_SOURCE_DIR}/grader/tests/submissions/mutate.py")
if(EXISTS "${TILELAB_MUTATE}" AND TILELAB_KIT_SUITE)
  execute_process(COMMAND "${Python3_EXECUTABLE}" "${TILELAB_MUTATE}" write "${TILELAB_MUTANTS_DIR}"
                  RESULT_VARIABLE _mutate_rc ERROR_VARIABLE _mutate_err)
  if(NOT _mutate_rc EQUAL 0)
    message(WARNING "${_mutate_err}")
  endif()
  # Re-run when a mutant's base or its edits change (a glob's CONFIGURE_DEPENDS sees only new files).
  file(GLOB _mutant_inputs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/solutions/*/matmul.cu"
       "${PROJECT_SOURCE_DIR}/grader/tests/submissions/*/expect.toml"
       "${PROJECT_SOURCE_DIR}/grader/tests/submissions/*/*/matmul.cu")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_mutant_inputs} "${TILELAB_MUTATE}")
  # Every mutant still applies: a solution edit that moves a mutant's line fails here, loudly.
  add_test(NAME kit.mutants COMMAND "${Python3_EXECUTABLE}" "${TILELAB_MUTATE}" check)
  set_tests_properties(kit.mutants PROPERTIES LABELS "kit;python" TIMEOUT 60)
else()
  set(TILELAB_MUTATE "")
endif()

# A known-bad submission, grader/tests/submissions/<name>/expect.toml: its name, stage and folder
# (for a mutant, its folder under TILELAB_MUTANTS_DIR); name is empty (with a warning) when the
# stage is unknown or <stage>/matmul.cu is missing. With SECTION <regex>, name is also empty (and
# nothing is said) when no line of expect.toml matches it: a case that has no such section.
function(tilelab_known_bad expect name_var stage_var dir_var)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "SECTION" "")
  if(arg_SECTION)
    file(STRINGS "${expect}" section REGEX "${arg_SECTION}")
    if(NOT section)
      set(${name_var} "" PARENT_SCOPE)
      return()
    endif()
  endif()
  get_filename_component(dir "${expect}" DIRECTORY)
  get_filename_component(name "${dir}" NAME)
  file(STRINGS "${expect}" stage_line REGEX "^stage *= *\"")
  string(REGEX REPLACE "^stage *= *\"([^\"]+)\".*" "\\1" stage "${stage_line}")
  file(STRINGS "${expect}" mutant_line REGEX "^\\[\\[?mutant")
  if(mutant_line)
    set(dir "${TILELAB_MUTANTS_DIR}/${name}")
  endif()
  if(NOT stage IN_LIST TILELAB_STAGES OR NOT EXISTS "${dir}/${stage}/matmul.cu")
    message(WARNING "tilelab: ${expect}: stage '${stage}' unknown or ${stage}/matmul.cu missing")
    set(name "")
  endif()
  set(${name_var} "${name}" PARENT_SCOPE)
  set(${stage_var} "${stage}" PARENT_SCOPE)
  set(${dir_var} "${dir}" PARENT_SCOPE)
endfunction()

# Whether the known-bad submission's expect.toml says its build fails in one of `sections` (e.g.
# "top;grade" for the emulator's grade path, "gpu" for nvcc's; "top" is the file's top level, where
# `links = false` says the emulator's link fails): a `verdict = "compile"` (or a list holding it) or
# `links = false` inside such a table. Another table's verdict says nothing about
# this build: nvcc refuses redteam2-host-global-read ([gpu] compile) while the emulator builds it.
function(tilelab_build_fails expect sections out_var)
  file(STRINGS "${expect}" lines REGEX "^(\\[|verdict *=|links *=)")
  set(section "top")
  set(fails OFF)
  foreach(line IN LISTS lines)
    if(line MATCHES "^\\[+([A-Za-z0-9_-]+)")
      set(section "${CMAKE_MATCH_1}")
    elseif(section IN_LIST sections AND (line MATCHES "^verdict *= *.*\"compile\"" OR line MATCHES "^links *= *false"))
      set(fails ON)
    endif()
  endforeach()
  set(${out_var} ${fails} PARENT_SCOPE)
endfunction()

# The stage's contract, as compile definitions for adapter.cpp.
function(tilelab_api_definitions stage out)
  set(defs "")
  if(TILELAB_${stage}_API STREQUAL "rect")
    list(APPEND defs TILELAB_API_RECT)
  endif()
  if(TILELAB_${stage}_HOST)
    list(APPEND defs TILELAB_HOST_FUNCTION)
  endif()
  set(${out} "${defs}" PARENT_SCOPE)
endfunction()

# The file `wrapped`: the solution `src` (its rewritten form `body` on the emulator) compiled into
# namespace `ns` (grader/runner/reference.cu.in), with the kit's <tilelab/mma_ptx.cuh> included
# first where `src` includes it, so that its wrappers stay global functions.
function(tilelab_wrap_reference src body ns wrapped)
  file(READ "${src}" text)
  set(KIT_HEADERS "")
  if(text MATCHES "#include[ \t]*<tilelab/mma_ptx\\.cuh>")
    set(KIT_HEADERS "#include <cstdint>\n#include <tilelab/mma_ptx.cuh>\n")
  endif()
  set(SRC "${body}")
  set(NS "${ns}")
  configure_file("${PROJECT_SOURCE_DIR}/grader/runner/reference.cu.in" "${wrapped}" @ONLY)
endfunction()

# An object library holding one implementation (compiled into namespace ns, unless ns is empty)
# and its adapter object named var.
function(tilelab_gpu_impl target stage src ns var display)
  tilelab_api_definitions(${stage} defs)
  if(ns)
    set(wrapped "${PROJECT_BINARY_DIR}/generated/${target}.cu")
    tilelab_wrap_reference("${src}" "${src}" "${ns}" "${wrapped}")
    set(src "${wrapped}")
    list(APPEND defs "TILELAB_IMPL_NS=${ns}")
  endif()
  add_library(${target} OBJECT "${src}" "${_runner_dir}/adapter.cpp")
  target_compile_definitions(${target} PRIVATE ${defs} "TILELAB_IMPL_VAR=${var}" "TILELAB_IMPL_NAME=\"${display}\"")
  target_include_directories(${target} PRIVATE "${_runner_dir}")
  target_link_libraries(${target} PRIVATE tilelab_worker_headers CUDA::cudart_static)
  # -lineinfo: compute-sanitizer and the emulator name the student's source line.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
endfunction()

# In a tree that takes the kit prebuilt (TILELAB_KIT), the judge, tilelab_wire and
# tilelab_worker_headers are the kit's imported targets (TilelabKit.cmake), and so are the worker
# mains, the GPU backend and the reference workers below: each is defined only where it is not.
if(NOT TILELAB_KIT)
# The judge (grader/runner/judge.cpp): datasets, references, the correctness rule, timing
# bookkeeping and the result, built once per tree and shared by every check. It links no code under
# test, no backend and no GPU library: each check's worker (runners/run-<impl>-<stage>-<backend>,
# grader/runner/worker.cpp) is started by it as a program of its own (docs/integrity.md).
add_library(tilelab_wire STATIC "${_runner_dir}/wire.cpp")
target_include_directories(tilelab_wire PUBLIC "${_runner_dir}")
target_link_libraries(tilelab_wire PUBLIC nlohmann_json::nlohmann_json)
target_compile_options(tilelab_wire PRIVATE -Wall -Wextra)
# Its files, by what each decides: judge.cpp the command line and the check's course,
# judge_session the channel to the workers and the timing loop, judge_checks the checks of each P,
# judge_host_traffic whether the host moved more than kernels need, judge_timing_audit whether a
# timing earns credit, judge_worker_gone the verdict on a worker that did not answer, judge_result
# the result and its verdict, gpu_lock the machine's GPU between the judges of every grade.
add_executable(tilelab-judge "${_runner_dir}/judge.cpp" "${_runner_dir}/judge_session.cpp"
                             "${_runner_dir}/judge_checks.cpp" "${_runner_dir}/judge_host_traffic.cpp"
                             "${_runner_dir}/judge_timing_audit.cpp" "${_runner_dir}/judge_worker_gone.cpp"
                             "${_runner_dir}/judge_result.cpp" "${_runner_dir}/worker_client.cpp"
                             "${_runner_dir}/gpu_lock.cpp" "${_runner_dir}/backend_facts.cpp"
                             "${_runner_dir}/occupancy.cpp" "${_runner_dir}/perf_model.cpp" "${_runner_dir}/grid_parallelism.cpp"
                             "${_runner_dir}/confine.cpp" "${_runner_dir}/sandbox.cpp")
target_include_directories(tilelab-judge PRIVATE "${_runner_dir}" "${PROJECT_SOURCE_DIR}/grader/emu")
target_link_libraries(tilelab-judge PRIVATE tilelab_core tilelab_wire CLI11::CLI11)
target_compile_options(tilelab-judge PRIVATE -Wall -Wextra)
set_target_properties(tilelab-judge PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners")
set(TILELAB_JUDGE "${PROJECT_BINARY_DIR}/runners/tilelab-judge")

# What a worker compiles against: the kit's headers and the result types, never the core library
# (datasets, the correctness rule, OpenBLAS), which only the judge links.
add_library(tilelab_worker_headers INTERFACE)
target_include_directories(tilelab_worker_headers INTERFACE "${_runner_dir}" "${PROJECT_SOURCE_DIR}/grader/include"
                                                            "${TILELAB_GENERATED}/include")
target_link_libraries(tilelab_worker_headers INTERFACE nlohmann_json::nlohmann_json)
endif()

# The worker's main, once per role: the code under test (the runners), or the reference worker
# with the library and the stage's reference solution (and the previous stage's) where solutions/
# has them. `backend`: gpu or emu (the emulator's stand-in CUDA headers).
function(tilelab_worker_main backend role out)
  set(target tilelab_worker_${backend}_${role})
  if(NOT TARGET ${target})
    add_library(${target} OBJECT "${_runner_dir}/worker.cpp" "${_runner_dir}/sandbox.cpp")
    target_link_libraries(${target} PRIVATE tilelab_worker_headers)
    if(role STREQUAL "under_test")
      target_compile_definitions(${target} PRIVATE TILELAB_UNDER_TEST)
    elseif(role STREQUAL "ref")
      target_compile_definitions(${target} PRIVATE TILELAB_HAS_REFERENCE)
    elseif(role STREQUAL "ref_prev")
      target_compile_definitions(${target} PRIVATE TILELAB_HAS_REFERENCE TILELAB_HAS_PREVIOUS)
    endif()
    if(backend STREQUAL "gpu")
      target_link_libraries(${target} PRIVATE CUDA::cudart_static)
      if(NOT role STREQUAL "under_test")
        target_compile_definitions(${target} PRIVATE TILELAB_WITH_LIBRARY)
      endif()
    else()
      target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/grader/emu" "${PROJECT_SOURCE_DIR}/grader/emu/include")
    endif()
  endif()
  set(${out} ${target} PARENT_SCOPE)
endfunction()

# The GPU backend and the launch probe, compiled once and linked into every GPU worker; the
# reference worker's copy (_lib) also holds cuBLAS, the library reference. The probe wraps the
# runtime's launch entry points at link time (see launch_probe.hpp).
if(TILELAB_HAVE_CUDA AND NOT TILELAB_KIT)
  foreach(lib tilelab_gpu_backend tilelab_gpu_backend_lib)
    add_library(${lib} STATIC "${_runner_dir}/gpu_backend.cu" "${_runner_dir}/launch_probe.cpp")
    target_link_libraries(${lib} PUBLIC tilelab_worker_headers tilelab_wire CUDA::cudart_static)
    set(wraps "-Wl,--wrap=cudaLaunchKernel" "-Wl,--wrap=cudaMemcpy" "-Wl,--wrap=cudaMemcpyAsync"
              "-Wl,--wrap=cudaMemcpy2D" "-Wl,--wrap=cudaMemcpy2DAsync")
    # Every other route between host and device memory, for the probe's ledger (host_traffic.hpp).
    foreach(fn cudaMemcpyToSymbol cudaMemcpyToSymbolAsync cudaMemcpyFromSymbol cudaMemcpyFromSymbolAsync
               cudaMemcpy3D cudaMemcpy3DAsync cudaMemcpyPeer cudaMemcpyPeerAsync cudaMemset cudaMemsetAsync
               cudaMemset2D cudaMemset2DAsync cudaMallocHost cudaHostAlloc cudaFreeHost)
      list(APPEND wraps "-Wl,--wrap=${fn}")
    endforeach()
    if(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 13)
      target_compile_definitions(${lib} PRIVATE TILELAB_WRAP_KERNEL_HANDLES)
      list(APPEND wraps "-Wl,--wrap=__cudaGetKernel" "-Wl,--wrap=__cudaLaunchKernel")
    endif()
    target_link_options(${lib} INTERFACE ${wraps})
  endforeach()
  target_compile_definitions(tilelab_gpu_backend_lib PRIVATE TILELAB_WITH_LIBRARY)
  target_link_libraries(tilelab_gpu_backend_lib PUBLIC CUDA::cublas)
endif()

# The reference worker of a stage on the GPU: runners/ref-<stage>-gpu (the judge finds it beside
# the runner of a timed check).
function(tilelab_gpu_reference_worker stage)
  string(MAKE_C_IDENTIFIER "${stage}" sid)
  if(TARGET ref-${stage}-gpu)
    return()
  endif()
  set(objects "")
  set(role lib)
  tilelab_impl_source(solution ${stage} ref_src)
  if(ref_src)
    tilelab_gpu_impl(ref_${sid}_gpu ${stage} "${ref_src}" tilelab_ref_${sid} tilelab_impl_reference reference)
    list(APPEND objects $<TARGET_OBJECTS:ref_${sid}_gpu>)
    set(role ref)
    set(prev "${TILELAB_${stage}_PREVIOUS}")
    if(prev)
      string(MAKE_C_IDENTIFIER "${prev}" pid)
      tilelab_impl_source(solution ${prev} prev_src)
      if(prev_src)
        # The previous stage's reference, adapted to this stage's contract where they agree.
        tilelab_gpu_impl(prev_${pid}_for_${sid}_gpu ${prev} "${prev_src}" tilelab_prev_${pid} tilelab_impl_previous previous)
        list(APPEND objects $<TARGET_OBJECTS:prev_${pid}_for_${sid}_gpu>)
        set(role ref_prev)
      endif()
    endif()
  endif()
  tilelab_worker_main(gpu ${role} main)
  add_executable(ref-${stage}-gpu $<TARGET_OBJECTS:${main}> ${objects})
  target_link_libraries(ref-${stage}-gpu PRIVATE tilelab_gpu_backend_lib)
  set_target_properties(ref-${stage}-gpu PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners"
                                                    LINKER_LANGUAGE CXX)
endfunction()

# The worker of one implementation on the GPU: runners/run-<impl>-<stage>-gpu, the student's object
# and the backend, nothing else.
function(tilelab_add_gpu_runner impl stage src)
  string(MAKE_C_IDENTIFIER "${stage}" sid)
  string(MAKE_C_IDENTIFIER "${impl}" iid)
  set(runner "run-${impl}-${stage}-gpu")
  tilelab_gpu_impl(obj_${iid}_${sid}_gpu ${stage} "${src}" "" tilelab_impl_under_test "${impl}")
  # nvcc and every tool it runs (the host preprocessor, cudafe++, cicc, ptxas, fatbinary, the
  # assembler) read only the student's file, the public headers and the toolkit (adapter.cpp, the
  # kit's, is the target's C++ and not confined).
  tilelab_confine_compile(obj_${iid}_${sid}_gpu CUDA "${src}")
  tilelab_worker_main(gpu under_test main)
  add_executable(${runner} $<TARGET_OBJECTS:${main}> $<TARGET_OBJECTS:obj_${iid}_${sid}_gpu>)
  target_link_libraries(${runner} PRIVATE tilelab_gpu_backend)
  set_target_properties(${runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/runners"
                                             LINKER_LANGUAGE CXX)
  tilelab_confine_link(${runner} ${main} obj_${iid}_${sid}_gpu tilelab_gpu_backend tilelab_wire)
  tilelab_gpu_reference_worker(${stage})
  if(NOT TILELAB_KIT)   # an imported target is built already
    add_dependencies(${runner} tilelab-judge ref-${stage}-gpu)
  endif()
endfunction()

# The command of a starter check, wrapped by tilelab.run.expect (which passes the skip code through):
# in the kit's self-test (TILELAB_STARTER_EXPECT_FAIL) the unmodified starter must fail with
# exactly a wrong result, never crash or pass; in the student repository's test suite
# (TILELAB_STARTER_PROGRESS) any verdict is the assignment's state, and only a check that gives
# none fails. Other implementations, and the student preset, run the plain check.
function(tilelab_starter_wrap impl json cmd_var)
  set(cmd ${${cmd_var}})
  if(impl STREQUAL "starter" AND TILELAB_STARTER_EXPECT_FAIL)
    set(cmd "${Python3_EXECUTABLE}" -m tilelab.run.expect --exit wrong --json "${json}" -- ${cmd})
  elseif(impl STREQUAL "starter" AND TILELAB_STARTER_PROGRESS)
    set(cmd "${Python3_EXECUTABLE}" -m tilelab.run.expect --exit any --json "${json}" -- ${cmd})
  endif()
  set(${cmd_var} "${cmd}" PARENT_SCOPE)
endfunction()

# One CTest check (the starter's wrapped as above). COST: its estimated seconds, which decide the
# order CTest starts checks in (default: the timeout).
function(tilelab_add_check impl stage dataset check backend)
  cmake_parse_arguments(A "" "TIMEOUT;COST" "ARGS;LABELS" ${ARGN})
  if(NOT DEFINED A_COST)
    set(A_COST ${A_TIMEOUT})
  endif()
  set(name "${impl}.${stage}.${dataset}.${check}")
  set(runner "${PROJECT_BINARY_DIR}/runners/run-${impl}-${stage}-${backend}")
  if(TILELAB_JUDGE_SEALED AND "--dataset" IN_LIST A_ARGS AND backend MATCHES "^(emu|gpu)$")
    # A public dataset's check in a sealed grade: the code also runs on values drawn for the grade
    # from this seed (judge.cpp, graded_spec), which no file can hold in advance (docs/integrity.md).
    # The plain build's and the GPU's, as the hidden datasets: they decide the product's points; the
    # asan and race builds look for memory errors and races, which the second values do not add to.
    list(APPEND A_ARGS --seed ${TILELAB_GRADING_SEED})
  endif()
  set(cmd "${TILELAB_JUDGE}" --worker "${runner}" --spec "${TILELAB_${stage}_SPEC}" ${A_ARGS}
          --json "${TILELAB_RESULTS_DIR}/${name}.json" --timeout ${A_TIMEOUT} ${TILELAB_JUDGE_SEALED})
  tilelab_starter_wrap(${impl} "${TILELAB_RESULTS_DIR}/${name}.json" cmd)
  add_test(NAME ${name} COMMAND ${cmd} WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/grader")
  math(EXPR hard_timeout "${A_TIMEOUT} + 30")
  if(NOT backend MATCHES "^emu")
    # A GPU check's judge may first wait for the GPU (grader/runner/gpu_lock.hpp: the timing loops of
    # the other grades on the machine, one after another), which its own --timeout, counted from its
    # workers' start, leaves out; CTest's limit, a backstop for a judge that hangs, allows for it.
    math(EXPR hard_timeout "${hard_timeout} + 600")
  endif()
  # COST: CTest starts the costliest checks first (its measured times are wiped with each build of
  # the stage, artifacts.py), so the largest dataset does not start last and stretch the run. The
  # emulator's checks give an estimate of their own (codegen.check_cost); the others' is the
  # timeout, scaled with the dataset and the build (codegen.check_timeout).
  set_tests_properties(${name} PROPERTIES
    SKIP_RETURN_CODE ${TILELAB_SKIP_CODE}
    TIMEOUT ${hard_timeout}
    COST ${A_COST}
    LABELS "${impl};${stage};${check};${backend};${A_LABELS}")
  if(check STREQUAL "perf")
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK gpu RUN_SERIAL ON)
  endif()
endfunction()

# A tree with a grading seed judges sealed: no code under test runs where the judge cannot confine it
# (docs/integrity.md, "The boundary").
set(TILELAB_JUDGE_SEALED "")
if(NOT TILELAB_GRADING_SEED STREQUAL "")
  set(TILELAB_JUDGE_SEALED --sealed)
endif()

# Calls fn(impl stage src) for each stage x implementation that has a matmul.cu (tilelab_impl_source),
# stages outermost, over TILELAB_STAGES or the STAGES given: the one walk the GPU's checks, the
# emulator's, the sanitizers' and the trace tables' share.
function(tilelab_foreach_impl_source fn)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "STAGES")
  if(NOT "STAGES" IN_LIST ARGN)
    set(arg_STAGES ${TILELAB_STAGES})   # (STAGES with no stage after it walks none)
  endif()
  set(impls ${TILELAB_IMPLS})
  if(TILELAB_SUBMISSION)
    list(APPEND impls submission)
  endif()
  foreach(stage IN LISTS arg_STAGES)
    foreach(impl IN LISTS impls)
      tilelab_impl_source(${impl} ${stage} src)
      if(src)
        cmake_language(CALL ${fn} ${impl} ${stage} "${src}")
      endif()
    endforeach()
  endforeach()
endfunction()

# The hidden datasets' correctness checks of one implementation (made from the grading seed, so
# only in a tree that has one): `hidden<i>` for each of the stage's TILELAB_<stage>_HIDDEN_COUNT.
function(tilelab_add_hidden_checks impl stage check backend timeout labels)
  if(TILELAB_GRADING_SEED STREQUAL "" OR NOT TILELAB_${stage}_HIDDEN_COUNT GREATER 0)
    return()
  endif()
  math(EXPR last "${TILELAB_${stage}_HIDDEN_COUNT} - 1")
  foreach(i RANGE ${last})
    tilelab_add_check(${impl} ${stage} hidden${i} ${check} ${backend}
      ARGS --hidden ${i} --seed ${TILELAB_GRADING_SEED} --check correct
      TIMEOUT ${timeout} LABELS "${labels}")
  endforeach()
endfunction()

# The GPU's checks of one implementation's stage: its public datasets, its performance dataset and,
# in a tree with a grading seed, its hidden datasets.
function(_tilelab_gpu_checks impl stage src)
  if(NOT TILELAB_HAVE_CUDA)
    return()
  endif()
  tilelab_add_gpu_runner(${impl} ${stage} "${src}")
  foreach(ds IN LISTS TILELAB_${stage}_DATASETS)
    # Scaled with the dataset (tilelab.specs.codegen.check_timeout): a hang costs seconds, not the cap.
    tilelab_add_check(${impl} ${stage} ${ds} correct gpu
      ARGS --dataset "${TILELAB_DATASETS_DIR}/${stage}/${ds}" --check correct
      TIMEOUT ${TILELAB_${stage}_${ds}_TIMEOUT_correct} LABELS public)
  endforeach()
  set(pds "${TILELAB_${stage}_PERF_DATASET}")
  tilelab_add_check(${impl} ${stage} ${pds} perf gpu
    ARGS --dataset "${TILELAB_DATASETS_DIR}/${stage}/${pds}" --check perf
    TIMEOUT ${TILELAB_${stage}_TIMEOUT_PERF} LABELS public)
  tilelab_add_hidden_checks(${impl} ${stage} correct gpu ${TILELAB_${stage}_TIMEOUT_CORRECT} hidden)
endfunction()
tilelab_foreach_impl_source(_tilelab_gpu_checks)

# The CPU emulator backend: emu, emu-asan and emu-race checks (grader/emu, docs/emulator.md).
include(TilelabEmu)
include(TilelabSanitizer)
include(TilelabKitGpu)
include(TilelabModelValidation)  # only with -DTILELAB_MODEL_VARIANTS (grader/model-validation/model-validation.sh)
if(TILELAB_KIT_EXPORT)
  include(TilelabKitExport)      # what a submission's tree takes prebuilt from this one
endif()
