# SPDX-License-Identifier: GPL-2.0
# Workload generators: consistency of every generator's store, determinism, parameters,
# the Zipf sampler.
mr_add_test_exe(test_gen SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_gen.c LIBS mr_traces LABELS quick CASES gen)
