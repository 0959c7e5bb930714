# SPDX-License-Identifier: GPL-2.0
# Test workload programs that the recorder tests run under `record` (traces/wl_*.c).
# Included from tests/record.cmake; each program is a target named after its file.
file(GLOB MR_WL_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/wl_*.c)
find_package(Threads REQUIRED)
set(MR_WORKLOADS "")
foreach(src ${MR_WL_SOURCES})
  get_filename_component(wl ${src} NAME_WE)
  if(NOT TARGET ${wl})
    add_executable(${wl} ${src})
    target_link_libraries(${wl} PRIVATE Threads::Threads)
    set_target_properties(${wl} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/workloads)
  endif()
  list(APPEND MR_WORKLOADS ${wl})
endforeach()
