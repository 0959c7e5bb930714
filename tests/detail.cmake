# Detail tables (replay --detail) and memreplay explain (issue 15, item 6). One CTest per
# case of tests/test_detail.sh.
foreach(case sums attach sampled subset determinism bad_detail explain_diff explain_errors)
  add_test(NAME detail.${case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_detail.sh $<TARGET_FILE:memreplay> ${case})
  set_tests_properties(detail.${case} PROPERTIES LABELS "quick")
endforeach()
