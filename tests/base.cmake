# SPDX-License-Identifier: GPL-2.0
# The shared vocabulary alone (mr_base, no SQLite): the duration parser, the clock, the
# radix sort of keys.
mr_add_test_exe(test_base SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_base.c LIBS mr_base
                LABELS quick CASES base)
