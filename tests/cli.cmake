# Command line: error messages and exit codes, gen -> info round trip, determinism.
add_test(NAME test_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:memreplay>)
set_tests_properties(test_cli PROPERTIES LABELS "quick")
