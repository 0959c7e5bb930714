# Replay engine: accounting, swap, shadows, munmap/exit, rmap over shared file pages,
# next-use positions, scripts, memcgs and nodes, determinism across thread counts, the
# results schema and compare, errors; built-in policies end to end when present.
mr_add_test_exe(test_replay
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_replay.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS quick CASES replay)
