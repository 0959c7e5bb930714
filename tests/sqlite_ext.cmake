# The SQLite extension libmemreplay.so, loaded by the real sqlite3 shell and Python.
# Under the sanitizers the hosts are not instrumented: the test preloads the ASan runtime.
if(MR_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE MR_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
else()
  set(MR_ASAN_RUNTIME "")
endif()
add_test(NAME test_sqlite_ext
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_sqlite_ext.sh $<TARGET_FILE:memreplay>
                 $<TARGET_FILE:memreplay_sqlite> ${PROJECT_SOURCE_DIR}/traces/default.db
                 "${MR_ASAN_RUNTIME}")
set_tests_properties(test_sqlite_ext PROPERTIES LABELS "quick" TIMEOUT 120)
