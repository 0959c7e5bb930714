# Intervals in compare (docs/results-schema.md, "compare: intervals"): the replay's
# segments add up to its counters; bounds are present and ordered; identical specs give
# a zero-width interval marked noise; lru against opt at a small size is outside noise;
# byte-identical output; the spread across several results files; the sign of a delta
# across sizes, with a flip (kbuild, lru against mglru); a results file without segments.
add_test(NAME test_compare_ci COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_compare_ci.sh
         $<TARGET_FILE:memreplay>)
set_tests_properties(test_compare_ci PROPERTIES LABELS "full")
