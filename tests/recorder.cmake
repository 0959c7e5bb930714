# Recorder: the host probe checked against facts read independently (uname, sysconf,
# sysfs), and its report (every probed item named, every "no" with a fix).
mr_add_test_exe(test_probe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_probe.c
                LIBS mr_recorder LABELS quick)
# The host's swap as the recorder writes it into the trace's meta (swap.total_bytes,
# swap.kind): /proc/swaps texts of zram, disk, mixed and no swap.
mr_add_test_exe(test_swaps SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_swaps.c
                LIBS mr_recorder LABELS quick)
