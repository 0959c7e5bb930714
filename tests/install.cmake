# `cmake --install` into a temporary prefix, then the plugin, the library, the SQLite
# extension and the man pages from that prefix alone (issue 16 item 3;
# tests/test_install.sh). The build must be complete: the install copies its files.
if(MR_SANITIZE)
  set(_san "-fsanitize=address,undefined")
else()
  set(_san "")
endif()
foreach(case files plugin library sqlite_ext man)
  add_test(NAME install.${case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${CMAKE_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER} "${_san}" ${case})
  set_tests_properties(install.${case} PROPERTIES LABELS "quick" SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endforeach()
