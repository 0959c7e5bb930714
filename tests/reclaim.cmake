# Node reclaim (watermarks, kswapd, direct reclaim, min_ttl) and the coverage notes
# ("coverage too low", "trace too coarse"), on hand-made and generated traces.
mr_add_test_exe(test_reclaim
                SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_reclaim.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_trace.c
                LIBS mr_replayer mr_traces PkgConfig::SQLITE3 m LABELS quick CASES reclaim)
