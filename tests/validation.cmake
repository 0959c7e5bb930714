# The mglru model (kernel=6.12) and the lru model against real 6.12 kernel counters
# (MGLRU on, and off) shipped in traces/kernel-lab.
add_test(NAME test_validation COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_validation.sh
         $<TARGET_FILE:memreplay> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_validation PROPERTIES LABELS "full" TIMEOUT 300)
