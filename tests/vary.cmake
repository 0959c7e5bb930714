# SPDX-License-Identifier: GPL-2.0
# replay --vary on the rev recording of kernel-lab (tests/test_vary.sh).
add_test(NAME test_vary
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_vary.sh $<TARGET_FILE:memreplay>
                 ${PROJECT_SOURCE_DIR}/traces/kernel-lab/loop-2026-12-02-rev/rev.db)
set_tests_properties(test_vary PROPERTIES LABELS "quick" TIMEOUT 180)
