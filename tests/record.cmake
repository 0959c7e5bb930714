# SPDX-License-Identifier: GPL-2.0
# Recorder end to end on this machine (root; CTest skip otherwise): workloads from
# traces/wl_*.c recorded with mr_record_run(), stores checked against what they did.
include(${PROJECT_SOURCE_DIR}/traces/workloads.cmake)
mr_add_test_exe(test_record SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_record.c
                LIBS mr_recorder PkgConfig::SQLITE3 Threads::Threads LABELS full
                ARGS ${CMAKE_BINARY_DIR}/workloads $<TARGET_FILE:memreplay>)
add_dependencies(test_record ${MR_WORKLOADS} memreplay)
# TIMEOUT: about 35 s alone on these 2-core machines, over 100 s with builds beside it.
# RUN_SERIAL: it changes host-wide state for a few seconds (a swapfile, vm.page-cluster)
# and counts host-wide events (page-cache deletions are read CPU-wide, anon activations
# from /proc/vmstat), which another test's file removals or swapping would disturb.
set_tests_properties(test_record PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "full;record"
                     RUN_SERIAL TRUE)
# The command line.
add_test(NAME test_record_cli
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_record.sh $<TARGET_FILE:memreplay>
                 ${CMAKE_BINARY_DIR}/workloads)
set_tests_properties(test_record_cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
                     LABELS "full;record")
