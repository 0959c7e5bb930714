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
    # Built plain in every configuration: they are what is recorded, not code under
    # test, and a sanitizer's shadow memory would be recorded with them (ASan's shadow
    # pages are anon pages that swap and refault again and again, so wl_swap saw about
    # a thousand pages labelled twice). The recorder itself is what the ASan build checks.
    set_target_properties(${wl} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/workloads
                          COMPILE_OPTIONS "-O2;-Wall;-Wextra" LINK_OPTIONS "")
  endif()
  list(APPEND MR_WORKLOADS ${wl})
endforeach()
