# SPDX-License-Identifier: GPL-2.0
# opt as a lower bound: every generator, traces/default.db and hand-made readahead traces
# at several memory sizes; opt's misses at most every other built-in policy's.
mr_add_test_exe(test_opt_bound
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_opt_bound.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS full CASES opt_bound)
target_compile_definitions(test_opt_bound PRIVATE
  MR_TEST_DEFAULT_DB="${PROJECT_SOURCE_DIR}/traces/default.db")
