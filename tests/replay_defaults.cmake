# Replay defaults from the recorded host (docs/replay.md, "Defaults from the recorded
# host"): --swap 0 is no swap and ends with a clear outcome; the trace's swap.* and
# cgroup.memory.max meta rows give the swap, writeback and memory where no option does;
# options override them; what was assumed is printed.
add_test(NAME test_replay_defaults COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_defaults.sh
         $<TARGET_FILE:memreplay>)
set_tests_properties(test_replay_defaults PROPERTIES LABELS "quick")
# The flusher reclaim wakes (docs/replay.md, "Dirty file folios").
add_test(NAME test_flusher COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_flusher.sh $<TARGET_FILE:memreplay>)
set_tests_properties(test_flusher PROPERTIES LABELS "quick" TIMEOUT 120)
