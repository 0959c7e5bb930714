# Seed toggles that never acted: a toggle_idle note exactly when the toggle's acted
# counter is 0, and then the run's counters are its default's (generated traces and
# traces/default.db, in a memory sweep).
mr_add_test_exe(test_toggles
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_toggles.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS full CASES toggles)
target_compile_definitions(test_toggles PRIVATE MR_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
