# Trace store: SQLite schema, writer, reader, refusals, SIGKILL safety, parsers.
mr_add_test_exe(test_store SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_store.c
                LIBS mr_storage PkgConfig::SQLITE3 LABELS quick CASES store)
