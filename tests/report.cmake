# `memreplay report`: the HTML report of a results database, laid out by headless Chromium
# (scripts/setup.sh installs it), its marks and cells checked against the database.
add_test(NAME test_report
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_report.sh $<TARGET_FILE:memreplay>)
set_tests_properties(test_report PROPERTIES LABELS "quick" TIMEOUT 300)
