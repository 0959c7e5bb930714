# SPDX-License-Identifier: GPL-2.0
#
# FindPfm4.cmake - find libpfm4 (perfmon2 event encoding library).
#
# Debian ships it as libpfm4-dev: /usr/include/perfmon/pfmlib.h and libpfm.so, with no
# pkg-config file, hence this module.
#
#   find_package(Pfm4 4.11 REQUIRED)
#
# Result variables:
#   Pfm4_FOUND, Pfm4_VERSION (MAJOR.MINOR[.PATCH]), Pfm4_INCLUDE_DIRS, Pfm4_LIBRARIES
# Cache variables (may be set by hand):
#   Pfm4_INCLUDE_DIR, Pfm4_LIBRARY
# Imported target:
#   Pfm4::pfm
#
# The version: pfmlib.h defines LIBPFM_VERSION as (MAJOR << 16 | MINOR), but released
# libpfm4 headers only carry the major number there (4.13 says "(4 << 16 | 0)"), and
# pfm_get_version() returns the same value at run time. So the header gives the major
# version, and the minor/patch come from the shared object's real file name
# (libpfm.so -> libpfm.so.4.13.0). If neither names a minor version, Pfm4_VERSION is
# what the header says and a minimum-version request above it fails with a message.

find_path(Pfm4_INCLUDE_DIR NAMES perfmon/pfmlib.h
  DOC "Directory holding perfmon/pfmlib.h (Debian: libpfm4-dev)")
find_library(Pfm4_LIBRARY NAMES pfm
  DOC "libpfm4 library (Debian: libpfm4-dev)")

unset(Pfm4_VERSION)
set(_pfm4_reason "")
set(_pfm4_header "_pfm4_header-NOTFOUND")
if(Pfm4_INCLUDE_DIR AND EXISTS "${Pfm4_INCLUDE_DIR}/perfmon/pfmlib.h")
  set(_pfm4_header "${Pfm4_INCLUDE_DIR}/perfmon/pfmlib.h")
  file(STRINGS "${_pfm4_header}" _pfm4_version_line
       REGEX "^#define[ \t]+LIBPFM_VERSION[ \t]")
  # "#define LIBPFM_VERSION		(4 << 16 | 0)"
  if(_pfm4_version_line MATCHES "\\(?[ \t]*([0-9]+)[ \t]*<<[ \t]*16[ \t]*\\|[ \t]*([0-9]+)")
    set(_pfm4_hdr_major "${CMAKE_MATCH_1}")
    set(_pfm4_hdr_minor "${CMAKE_MATCH_2}")
    set(Pfm4_VERSION "${_pfm4_hdr_major}.${_pfm4_hdr_minor}")
  endif()
  unset(_pfm4_version_line)
endif()

if(Pfm4_LIBRARY AND DEFINED _pfm4_hdr_major)
  # The header's minor is 0 in every release; the library file name is precise.
  get_filename_component(_pfm4_real "${Pfm4_LIBRARY}" REALPATH)
  get_filename_component(_pfm4_real "${_pfm4_real}" NAME)
  if(_pfm4_real MATCHES "^libpfm\\.so\\.([0-9]+)\\.([0-9]+)(\\.([0-9]+))?$"
     AND CMAKE_MATCH_1 STREQUAL _pfm4_hdr_major)
    set(Pfm4_VERSION "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(NOT "${CMAKE_MATCH_4}" STREQUAL "")
      string(APPEND Pfm4_VERSION ".${CMAKE_MATCH_4}")
    endif()
  elseif(_pfm4_hdr_minor STREQUAL "0")
    string(CONCAT _pfm4_reason
        "${_pfm4_real} does not name its minor version and pfmlib.h only says ${Pfm4_VERSION}. "
        "Point Pfm4_LIBRARY at the versioned shared object (libpfm.so.4.MINOR.PATCH). ")
  endif()
  unset(_pfm4_real)
endif()
unset(_pfm4_hdr_major)
unset(_pfm4_hdr_minor)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Pfm4
  REQUIRED_VARS Pfm4_LIBRARY Pfm4_INCLUDE_DIR _pfm4_header
  VERSION_VAR Pfm4_VERSION
  REASON_FAILURE_MESSAGE
    "${_pfm4_reason}libpfm4 (perfmon/pfmlib.h and libpfm) is needed to encode PMU events. On Debian/Ubuntu: apt-get install libpfm4-dev")

if(Pfm4_FOUND)
  set(Pfm4_INCLUDE_DIRS "${Pfm4_INCLUDE_DIR}")
  set(Pfm4_LIBRARIES "${Pfm4_LIBRARY}")
  if(NOT TARGET Pfm4::pfm)
    add_library(Pfm4::pfm UNKNOWN IMPORTED)
    set_target_properties(Pfm4::pfm PROPERTIES
      IMPORTED_LOCATION "${Pfm4_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${Pfm4_INCLUDE_DIR}")
  endif()
endif()

unset(_pfm4_header)
unset(_pfm4_reason)
mark_as_advanced(Pfm4_INCLUDE_DIR Pfm4_LIBRARY)
