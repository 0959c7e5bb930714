# SPDX-License-Identifier: GPL-2.0
# `memreplay bench record`: a 16 MiB smoke run (root; without root it checks the error
# message, then skips).
add_test(NAME test_bench_record
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_record.sh $<TARGET_FILE:memreplay>)
set_tests_properties(test_bench_record PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
                     LABELS "quick;record;bench")
