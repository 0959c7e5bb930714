# The closed loop: traces recorded with `memreplay record` inside kernel-lab's 6.12.95
# guest, replayed with mglru:kernel=6.12.95 at their cgroups' memory.max, against what
# that kernel counted (traces/kernel-lab/loop-*/kernel.tsv; docs/validation.md).
# It checks the model's numbers, not memory safety: the release build runs it (about
# 30 s; 160 s under the sanitizers, which the other replay tests already cover).
if(MR_SANITIZE)
  return()
endif()
file(GLOB MR_LOOP_DIRS ${PROJECT_SOURCE_DIR}/traces/kernel-lab/loop-*)
foreach(dir ${MR_LOOP_DIRS})
  get_filename_component(name ${dir} NAME)
  add_test(NAME kernel_loop.${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_loop.sh $<TARGET_FILE:memreplay> ${dir})
  set_tests_properties(kernel_loop.${name} PROPERTIES LABELS "full" TIMEOUT 600)
endforeach()
