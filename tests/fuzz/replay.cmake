# SPDX-License-Identifier: GPL-2.0
# Fuzz targets of the replay side: the lru_gen script parser and the size / count /
# duration / number parsers. In this build each target is linked with fuzz_replay_main.c, a
# driver that replays its committed corpus (tests/fuzz/corpus/NAME) as a CTest test;
# run_replay_fuzz.sh builds the same sources with libFuzzer (clang) to fuzz and to
# minimise the corpora. Included from tests/hostile_replay.cmake.
set(MR_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(target script parse)
  add_executable(fuzz_${target} ${MR_FUZZ_DIR}/fuzz_${target}.c ${MR_FUZZ_DIR}/fuzz_replay_main.c)
  target_link_libraries(fuzz_${target} PRIVATE mr_replayer mr_base m)
  add_test(NAME fuzz.${target} COMMAND fuzz_${target} ${MR_FUZZ_DIR}/corpus/${target})
  set_tests_properties(fuzz.${target} PROPERTIES LABELS "quick")
endforeach()
