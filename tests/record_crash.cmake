# SPDX-License-Identifier: GPL-2.0
# The recorder killed or out of space (issue 14), one CTest test per case of
# tests/test_record_crash.sh: kill (100 SIGKILLs, every store left opens intact), enospc
# (a full output filesystem stops the recording, never the workload), full_late (full
# when the finish folds the WAL in: the disk full is said, the chunks kept), nofile (a record
# that fails before committing an event leaves no file), retry (a record killed before its
# first commit does not block a retry). Root only (77 skips otherwise).
include(${PROJECT_SOURCE_DIR}/traces/workloads.cmake)
foreach(_case kill enospc full_late nofile retry)
  add_test(NAME record_crash.${_case}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_record_crash.sh $<TARGET_FILE:memreplay>
                   ${CMAKE_BINARY_DIR}/workloads ${_case})
  # TIMEOUT: kill runs 100 recordings of at most 0.3 s plus their setup, about 40 s
  # alone; the others a few seconds.
  # kill under ASan on a loaded 2-CPU machine: 100 recordings of about 1 s each
  if(_case STREQUAL "kill")
    set(_timeout 300)
  else()
    set(_timeout 120)
  endif()
  set_tests_properties(record_crash.${_case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${_timeout}
                       LABELS "full;record")
endforeach()
