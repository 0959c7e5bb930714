# SPDX-License-Identifier: GPL-2.0
# `memreplay sweep` and `memreplay merge` (docs/sweep.md): the local worker pool, GNU
# parallel and merge on generated traces (tests/test_sweep_pool.sh), and the emitted
# job-array script on a real one-node Slurm the test starts and stops itself
# (tests/test_sweep_slurm.sh, scripts/slurm-local.sh; skips where Slurm cannot run).
add_test(NAME test_sweep_pool
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep_pool.sh $<TARGET_FILE:memreplay>)
set_tests_properties(test_sweep_pool PROPERTIES LABELS "quick" TIMEOUT 300)
add_test(NAME test_sweep_slurm
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep_slurm.sh $<TARGET_FILE:memreplay>
                 ${PROJECT_SOURCE_DIR}/scripts/slurm-local.sh)
set_tests_properties(test_sweep_slurm PROPERTIES LABELS "full" SKIP_RETURN_CODE 77 TIMEOUT 300
                     RUN_SERIAL TRUE)
