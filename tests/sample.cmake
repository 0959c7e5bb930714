# SPDX-License-Identifier: GPL-2.0
# replay --sample 1/N: error against the full curve, determinism, the results' record of
# the rate, the cached page counts, bad rates (tests/test_sample.sh).
add_test(NAME test_sample
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_sample.sh $<TARGET_FILE:memreplay>)
set_tests_properties(test_sample PROPERTIES LABELS "quick" TIMEOUT 300)
mr_add_test_exe(test_sample_ranges
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sample_ranges.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS quick CASES sample)
