# SPDX-License-Identifier: GPL-2.0
#
# Libperf.cmake - libperf and libapi (the kernel's tools/lib/perf, tools/lib/api), built
# at configure time from Debian's linux-source-6.12 tarball into the build tree.
#
#   include(Libperf)
#   target_link_libraries(foo PRIVATE Libperf::perf)
#
# The build adds two functions to libperf, perf_evsel__set_cgroup_fd() and
# perf_evsel__fd() (see the script); MR_LIBPERF_CGROUP_FD=1 and MR_LIBPERF_EVSEL_FD=1 are
# defined for users when the installed header has them.
#
# Imported targets:
#   Libperf::perf  libperf.a; its interface links Libperf::api after it and adds the
#                  include directory with perf/*.h and the matching linux/perf_event.h
#   Libperf::api   libapi.a (tracefs/sysfs helpers libperf calls into)
#
# Cache variable:
#   MR_LINUX_SOURCE_TARBALL  kernel source tarball (default /usr/src/linux-source-6.12.tar.xz)
#
# The build (scripts/build-libperf.sh: about 9 s extracting, 1 s make) runs only when
# ${CMAKE_BINARY_DIR}/_deps/libperf/build.stamp is missing or names another tarball
# (file name and size), another version of the script, or another compiler. It uses its
# own flags (-O2 -g -fPIC, warnings never fatal), not the project's.
#
# Why linux/perf_event.h is installed too: libperf copies a whole struct perf_event_attr
# from the caller's pointer using the size in the kernel tree it was built from (136 bytes
# in 6.12), while Debian 12's /usr/include/linux/perf_event.h (linux-libc-dev 6.1) declares
# 128. Every target linking Libperf::perf therefore sees the tree's header first.

set(MR_LINUX_SOURCE_TARBALL "/usr/src/linux-source-6.12.tar.xz" CACHE FILEPATH
    "Kernel source tarball that libperf and libapi are built from")

set(_libperf_dir "${CMAKE_BINARY_DIR}/_deps/libperf")
set(_libperf_install "${_libperf_dir}/install")
set(_libperf_stamp "${_libperf_dir}/build.stamp")
set(_libperf_script "${CMAKE_CURRENT_LIST_DIR}/../scripts/build-libperf.sh")
get_filename_component(_libperf_script "${_libperf_script}" ABSOLUTE)

if(NOT EXISTS "${MR_LINUX_SOURCE_TARBALL}")
  message(FATAL_ERROR
    "libperf is built from the kernel sources in ${MR_LINUX_SOURCE_TARBALL}, which is "
    "missing. Install it with: apt-get install linux-source-6.12 "
    "(or point -DMR_LINUX_SOURCE_TARBALL=... at another kernel source .tar.xz).")
endif()
foreach(_libperf_tool xz tar make)
  find_program(_libperf_have_${_libperf_tool} ${_libperf_tool})
  if(NOT _libperf_have_${_libperf_tool})
    message(FATAL_ERROR "Building libperf needs '${_libperf_tool}' (apt-get install xz-utils tar make).")
  endif()
endforeach()

# The stamp key: what the archives were built from and with.
get_filename_component(_libperf_tar_name "${MR_LINUX_SOURCE_TARBALL}" NAME)
file(SIZE "${MR_LINUX_SOURCE_TARBALL}" _libperf_tar_size)
file(MD5 "${_libperf_script}" _libperf_script_md5)
set(_libperf_key
    "tarball=${_libperf_tar_name} size=${_libperf_tar_size} script=${_libperf_script_md5} cc=${CMAKE_C_COMPILER}")

set(_libperf_have "")
if(EXISTS "${_libperf_stamp}")
  file(READ "${_libperf_stamp}" _libperf_have)
  string(STRIP "${_libperf_have}" _libperf_have)
endif()
if(NOT _libperf_have STREQUAL _libperf_key
   OR NOT EXISTS "${_libperf_install}/lib/libperf.a"
   OR NOT EXISTS "${_libperf_install}/lib/libapi.a"
   OR NOT EXISTS "${_libperf_install}/include/perf/evlist.h")
  file(REMOVE "${_libperf_stamp}")
  file(MAKE_DIRECTORY "${_libperf_dir}")
  message(STATUS "Building libperf + libapi from ${MR_LINUX_SOURCE_TARBALL} (about 10 s)")
  string(TIMESTAMP _libperf_t0 "%s")
  execute_process(
    COMMAND sh "${_libperf_script}" "${MR_LINUX_SOURCE_TARBALL}" "${_libperf_dir}"
            "${CMAKE_C_COMPILER}"
    OUTPUT_FILE "${_libperf_dir}/build.log"
    ERROR_FILE "${_libperf_dir}/build.log"
    RESULT_VARIABLE _libperf_rc)
  string(TIMESTAMP _libperf_t1 "%s")
  if(NOT _libperf_rc STREQUAL "0")
    file(STRINGS "${_libperf_dir}/build.log" _libperf_log)
    list(LENGTH _libperf_log _libperf_n)
    if(_libperf_n GREATER 25)
      math(EXPR _libperf_from "${_libperf_n} - 25")
      list(SUBLIST _libperf_log ${_libperf_from} 25 _libperf_log)
    endif()
    list(JOIN _libperf_log "\n" _libperf_log)
    message(FATAL_ERROR
      "Building libperf failed (${_libperf_rc}); last lines of ${_libperf_dir}/build.log:\n"
      "${_libperf_log}")
  endif()
  file(WRITE "${_libperf_stamp}" "${_libperf_key}\n")
  math(EXPR _libperf_secs "${_libperf_t1} - ${_libperf_t0}")
  message(STATUS "Building libperf + libapi - done (${_libperf_secs} s)")
else()
  message(STATUS "libperf + libapi: up to date in ${_libperf_dir}")
endif()

# Re-run the configure step when the script or the tarball changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_libperf_script}" "${MR_LINUX_SOURCE_TARBALL}")

# libperf before 6.15 or so: perf_evsel__delete() frees the evsel without dropping its
# references to the cpu and thread maps (perf's own evsel code drops them). Users of the
# bare library must put them before perf_evlist__delete(); a later tree whose evsel.c does
# it itself must not get the extra put.
file(READ "${_libperf_dir}/src/tools/lib/perf/evsel.c" _libperf_evsel_c)
if(_libperf_evsel_c MATCHES "perf_cpu_map__put\\(evsel->cpus\\)")
  set(_libperf_defs "")
else()
  set(_libperf_defs MR_LIBPERF_EVSEL_DELETE_LEAKS_MAPS=1)
endif()
unset(_libperf_evsel_c)

# The functions scripts/build-libperf.sh patches into libperf when its patches apply to
# the tree: perf_evsel__set_cgroup_fd() (`record --cgroup` filtering in the kernel) and
# perf_evsel__fd() (a command's rings mapped before its events open). Each defines its
# MR_LIBPERF_* for users; without it the recorder does without and says so.
file(READ "${_libperf_install}/include/perf/evsel.h" _libperf_evsel_h)
foreach(_f "perf_evsel__set_cgroup_fd;MR_LIBPERF_CGROUP_FD;record --cgroup filters in user space"
           "perf_evsel__fd;MR_LIBPERF_EVSEL_FD;rings are mapped after the events open")
  list(GET _f 0 _fn)
  list(GET _f 1 _def)
  list(GET _f 2 _without)
  if(_libperf_evsel_h MATCHES "${_fn}\\(")
    list(APPEND _libperf_defs ${_def}=1)
  else()
    message(STATUS "libperf: no ${_fn}() (patch did not apply, see "
                   "${_libperf_dir}/build.log): ${_without}")
  endif()
endforeach()
unset(_f)
unset(_fn)
unset(_def)
unset(_without)
unset(_libperf_evsel_h)

if(NOT TARGET Libperf::api)
  add_library(Libperf::api STATIC IMPORTED)
  set_target_properties(Libperf::api PROPERTIES
    IMPORTED_LOCATION "${_libperf_install}/lib/libapi.a")
endif()
if(NOT TARGET Libperf::perf)
  add_library(Libperf::perf STATIC IMPORTED)
  set_target_properties(Libperf::perf PROPERTIES
    IMPORTED_LOCATION "${_libperf_install}/lib/libperf.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_libperf_install}/include"
    INTERFACE_LINK_LIBRARIES Libperf::api
    INTERFACE_COMPILE_DEFINITIONS "${_libperf_defs}")
endif()
