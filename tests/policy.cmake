# Policies: registry, parameter parsing, plugins, shrink_folio_list, lru and opt on the
# small test machine (policy_machine.c).
add_library(test_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/test_plugin.c)
add_library(test_plugin_noinit MODULE ${CMAKE_CURRENT_SOURCE_DIR}/test_plugin_noinit.c)
foreach(plugin test_plugin test_plugin_noinit)
  # Headers only: a plugin resolves mr_policy_register & co. from the executable that
  # loads it (linked with --export-dynamic through mr_policy), never from its own copy.
  target_include_directories(${plugin} PRIVATE
    $<TARGET_PROPERTY:mr_policy,INTERFACE_INCLUDE_DIRECTORIES>
    $<TARGET_PROPERTY:mr_base,INTERFACE_INCLUDE_DIRECTORIES>)
  set_target_properties(${plugin} PROPERTIES PREFIX "")
endforeach()

mr_add_test_exe(test_policy
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_policy.c ${CMAKE_CURRENT_SOURCE_DIR}/policy_machine.c
  LIBS mr_policy LABELS quick CASES policy)
# the plugins' paths are compiled in, so `test_policy CASE` runs as it is
target_compile_definitions(test_policy PRIVATE
  MR_TEST_PLUGIN="$<TARGET_FILE:test_plugin>"
  MR_TEST_PLUGIN_NOINIT="$<TARGET_FILE:test_plugin_noinit>")
add_dependencies(test_policy test_plugin test_plugin_noinit)
# The binary's exports are the plugin API (policy/plugin-api.sym), no more, no less.
add_test(NAME test_exports
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_exports.sh $<TARGET_FILE:memreplay>
                 ${PROJECT_SOURCE_DIR}/policy/plugin-api.sym)
set_tests_properties(test_exports PROPERTIES SKIP_RETURN_CODE 77 LABELS quick)
# policy/ring.[ch], the lists of lru and mglru: a model test and the edge cases.
mr_add_test_exe(test_ring SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ring.c
  LIBS mr_policy LABELS quick CASES ring)
