# SPDX-License-Identifier: GPL-2.0
# Hostile and broken trace stores (issue 14): each case of tests/test_hostile_store.sh is
# a CTest test hostile.CASE that builds one bad store and checks every command refuses it
# with a message naming the problem, within a timeout, without a sanitizer report and
# without changing the file. The cases are read from the script's case_NAME functions.
set(_hostile ${CMAKE_CURRENT_SOURCE_DIR}/test_hostile_store.sh)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_hostile})
file(STRINGS ${_hostile} _hostile_cases REGEX "^case_[a-z0-9_]+\\(\\)")
foreach(_line ${_hostile_cases})
  string(REGEX REPLACE "^case_([a-z0-9_]+)\\(\\).*" "\\1" _case "${_line}")
  add_test(NAME hostile.${_case} COMMAND ${_hostile} $<TARGET_FILE:memreplay> ${_case})
  set_tests_properties(hostile.${_case} PROPERTIES LABELS "quick" TIMEOUT 300)
endforeach()

# The library side: creation killed at every write, writer refusals, finished mode, the
# hardened connection, events rowids and bounds.
mr_add_test_exe(test_store_hostile SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_store_hostile.c
                LIBS mr_storage PkgConfig::SQLITE3 LABELS quick CASES store_hostile)
