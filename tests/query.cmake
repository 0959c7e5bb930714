# `memreplay query` like the sqlite3 shell: every statement, read-only ATTACH, table/CSV/JSON
# (issue 16 item 2). One CTest per case of tests/test_query.sh.
foreach(case every_statement attach_join attach_readonly formats errors)
  add_test(NAME query.${case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_query.sh $<TARGET_FILE:memreplay> ${case})
  set_tests_properties(query.${case} PROPERTIES LABELS "quick")
endforeach()
