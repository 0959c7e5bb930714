# One help text per subcommand: `help X` = `X --help`, and every option the parsers accept
# is in it, each short option with one meaning (issue 16 items 3, 5; tests/test_cli_help.sh).
add_test(NAME test_cli_help COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_help.sh
         $<TARGET_FILE:memreplay> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_cli_help PROPERTIES LABELS "quick")
