# SPDX-License-Identifier: GPL-2.0
# Hostile and broken input to replay, gen and record (issue 14): each case must end with
# exit 1 or 2 and a message naming the problem, in bounded time and memory, with no
# sanitizer report and its input unchanged. hostile_replay_tool makes the broken traces.
add_executable(hostile_replay_tool ${CMAKE_CURRENT_SOURCE_DIR}/hostile_replay_tool.c)
target_link_libraries(hostile_replay_tool PRIVATE mr_storage PkgConfig::SQLITE3)
if(MR_SANITIZE)
  set(MR_HOSTILE_MODE asan)
else()
  set(MR_HOSTILE_MODE "")
endif()
add_test(NAME test_hostile_replay
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_hostile_replay.sh $<TARGET_FILE:memreplay>
                 $<TARGET_FILE:hostile_replay_tool> ${MR_HOSTILE_MODE})
set_tests_properties(test_hostile_replay PROPERTIES LABELS "quick" TIMEOUT 600)

# The replay side's fuzz targets, their corpora replayed as tests (tests/fuzz/).
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay.cmake)
