# CLI golden output: replay and compare stdout (table, CSV, JSON) on a generated trace
# (MR_GOLDEN_UPDATE=1 rewrites tests/golden/cli/).
add_test(NAME test_cli_golden COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_golden.sh
         $<TARGET_FILE:memreplay> ${CMAKE_CURRENT_SOURCE_DIR}/golden/cli)
set_tests_properties(test_cli_golden PROPERTIES LABELS "quick")
