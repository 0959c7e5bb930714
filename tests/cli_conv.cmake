# One syntax per kind of value, one meaning per short option (issue 16 item 5;
# tests/test_cli_conv.sh). One CTest per case.
foreach(case memory_path durations counts shorts)
  add_test(NAME cli_conv.${case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_conv.sh $<TARGET_FILE:memreplay> ${case})
  set_tests_properties(cli_conv.${case} PROPERTIES LABELS "quick")
endforeach()
