# Several memory sizes in one replay: the --memory list and range syntax, the run order,
# each run of a one-pass sweep equal to its single-size replay, byte determinism.
mr_add_test_exe(test_sweep
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS quick CASES sweep)
