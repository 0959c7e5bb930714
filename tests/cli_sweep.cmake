# Memory sweeps and curves on the command line: --memory lists and ranges and their
# errors, compare on a sweep, curve on traces/default.db, exact output against
# tests/golden/cli/ (MR_GOLDEN_UPDATE=1 rewrites it).
add_test(NAME test_cli_sweep COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_sweep.sh
         $<TARGET_FILE:memreplay> ${CMAKE_CURRENT_SOURCE_DIR}/golden/cli
         ${PROJECT_SOURCE_DIR}/traces/default.db)
set_tests_properties(test_cli_sweep PROPERTIES LABELS "quick")
