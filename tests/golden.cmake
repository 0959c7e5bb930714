# Golden results: generator traces x built-in policies (MR_GOLDEN_UPDATE=1 rewrites them).
add_test(NAME test_golden COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_golden.sh
         $<TARGET_FILE:memreplay> ${CMAKE_CURRENT_SOURCE_DIR}/golden)
set_tests_properties(test_golden PROPERTIES LABELS "full")
