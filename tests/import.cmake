# SPDX-License-Identifier: GPL-2.0
# Importers and the oracleGeneral exporter (docs/import.md): each shipped sample imports
# with the counts computed from the sample itself and replays; export -> import -> export
# gives the same records; malformed inputs are refused with no file left behind.
add_test(NAME test_import COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_import.sh $<TARGET_FILE:memreplay>
         ${PROJECT_SOURCE_DIR}/traces/samples)
set_tests_properties(test_import PROPERTIES LABELS "quick")
