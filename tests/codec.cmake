# SPDX-License-Identifier: GPL-2.0
# The pure chunk codec: CRC-32C, column encodings, round trips, damaged and crafted blobs.
# The test builds blobs itself, so it links LZ4 directly as well.
mr_add_test_exe(test_codec SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_codec.c
  LIBS mr_storage PkgConfig::LZ4 LABELS quick CASES codec)
