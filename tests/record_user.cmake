# SPDX-License-Identifier: GPL-2.0
# `memreplay record` without root (tests/test_record_user.sh): as nobody at
# perf_event_paranoid <= 2 the command's faults, maps and tasks are recorded, user mode
# only; at >= 3 the refusal names the sysctl. Root drops to nobody (77 skips otherwise).
include(${PROJECT_SOURCE_DIR}/traces/workloads.cmake)
add_test(NAME test_record_user
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_record_user.sh $<TARGET_FILE:memreplay>
                 ${CMAKE_BINARY_DIR}/workloads)
set_tests_properties(test_record_user PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
                     LABELS "quick;record")
