# SPDX-License-Identifier: GPL-2.0
# The mglru policy model: the deterministic scenarios (docs/mglru-model.md), insertion rules, PID, shadows,
# Bloom filters, debugfs, invariants. policy_machine.c is the small test machine that
# other policy tests can share. Each case of test_mglru.c's table is a CTest test of its
# own, mglru.CASE (`ctest -R mglru.scenario_7`).
mr_add_test_exe(test_mglru
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_mglru.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/policy_machine.c
                LIBS mr_policy LABELS quick CASES mglru)
