# SPDX-License-Identifier: GPL-2.0
# The shadow-entry assumption (--shadow keep|kernel|none), one case per mode.
mr_add_test_exe(test_shadow
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_shadow.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS quick CASES shadow)
