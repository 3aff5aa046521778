# SPDX-License-Identifier: MIT
# gpu-harnessConfig.cmake: find_package(gpu-harness) for a project that checks its own GPU
# kernels with ctest. Installed by `make install` as PREFIX/lib/cmake/gpu-harness/; every path
# is found from this file's own place, so a DESTDIR or moved install works as it is.
#
#   find_package(gpu-harness 0.2 REQUIRED)
#   gpu_harness_add_test(NAME n BACKEND b [MANIFEST f...] [KERNEL glob...] [CASES f | TIER t]
#                        [WIDTH w...] [ARGS ...])
#
# Defines GPU_HARNESS_EXECUTABLE, GPU_HARNESS_DATA_DIR and the imported program
# gpu-harness::harness.
get_filename_component(_gpu_harness_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(GPU_HARNESS_EXECUTABLE "${_gpu_harness_prefix}/bin/harness")
set(GPU_HARNESS_DATA_DIR "${_gpu_harness_prefix}/share/gpu-harness")
unset(_gpu_harness_prefix)
if(NOT EXISTS "${GPU_HARNESS_EXECUTABLE}")
  set(gpu-harness_FOUND FALSE)
  set(gpu-harness_NOT_FOUND_MESSAGE "no harness program at ${GPU_HARNESS_EXECUTABLE}")
  return()
endif()
if(NOT TARGET gpu-harness::harness)
  add_executable(gpu-harness::harness IMPORTED)
  set_target_properties(gpu-harness::harness PROPERTIES IMPORTED_LOCATION "${GPU_HARNESS_EXECUTABLE}")
endif()

# gpu_harness_add_test: one ctest test that is one `harness run`. The harness's exit codes map
# onto ctest's outcomes: 0 (every verdict acceptable) passes; 1 (a FAIL, XPASS or ERROR),
# 2 (bad usage, or a bad manifest or case file: the output names file:line) and 4 (no case
# ran: a gate never passes by not running) fail; 3 (a backend named has no usable device:
# this machine cannot say) is SKIP_RETURN_CODE, so a GPU test on a GPU-less machine is skipped,
# not passed. MANIFEST files run alone (--only-manifest): a test of your kernels is not a run of
# the shipped ones. Relative MANIFEST and CASES paths are from the current source folder. The
# JUnit and JSON lines of test n are ${CMAKE_CURRENT_BINARY_DIR}/gpu-harness/n.xml and n.jsonl.
function(gpu_harness_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 _gh "" "NAME;BACKEND;CASES;TIER" "MANIFEST;KERNEL;WIDTH;ARGS")
  if(_gh_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gpu_harness_add_test: unexpected arguments: ${_gh_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT _gh_NAME OR NOT _gh_BACKEND)
    message(FATAL_ERROR "gpu_harness_add_test: NAME and BACKEND are required")
  endif()
  if(_gh_CASES AND _gh_TIER)
    message(FATAL_ERROR "gpu_harness_add_test(${_gh_NAME}): CASES or TIER, not both")
  endif()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/gpu-harness")
  file(MAKE_DIRECTORY "${out}")
  set(cmd run --backend "${_gh_BACKEND}")
  foreach(m IN LISTS _gh_MANIFEST)
    get_filename_component(m "${m}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND cmd --manifest "${m}")
  endforeach()
  if(_gh_MANIFEST)
    list(APPEND cmd --only-manifest)
  endif()
  if(_gh_KERNEL)
    string(REPLACE ";" "," kernels "${_gh_KERNEL}")
    list(APPEND cmd --kernel "${kernels}")
  endif()
  if(_gh_CASES)
    get_filename_component(cases "${_gh_CASES}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND cmd --cases "${cases}")
  elseif(_gh_TIER)
    list(APPEND cmd --tier "${_gh_TIER}")
  endif()
  if(_gh_WIDTH)
    string(REPLACE ";" "," widths "${_gh_WIDTH}")
    list(APPEND cmd --width "${widths}")
  endif()
  list(APPEND cmd --junit "${out}/${_gh_NAME}.xml" --json "${out}/${_gh_NAME}.jsonl" ${_gh_ARGS})
  add_test(NAME "${_gh_NAME}" COMMAND gpu-harness::harness ${cmd} WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  set_tests_properties("${_gh_NAME}" PROPERTIES
    SKIP_RETURN_CODE 3
    LABELS "gpu-harness;${_gh_BACKEND}"
    ATTACHED_FILES_ON_FAIL "${out}/${_gh_NAME}.jsonl")
endfunction()
