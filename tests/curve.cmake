# The miss ratio and the curve: mr_references bounds mr_misses on generated traces and
# traces/default.db; the results view `curve` and mr_results_curve().
mr_add_test_exe(test_curve
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_curve.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS quick CASES curve)
target_compile_definitions(test_curve PRIVATE MR_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
