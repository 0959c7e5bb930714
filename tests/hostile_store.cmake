# SPDX-License-Identifier: GPL-2.0
# Hostile and broken trace stores (issue 14).

# The library side: creation killed at every write, writer refusals, finished mode, the
# hardened connection, events rowids and bounds.
mr_add_test_exe(test_store_hostile SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_store_hostile.c
                LIBS mr_storage PkgConfig::SQLITE3 LABELS quick CASES store_hostile)
