#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-libperf.sh - build libperf + libapi from a kernel source tarball.
#
# libperf (tools/lib/perf) is not packaged by Debian; its sources ship in Debian's
# linux-source-6.12 package as /usr/src/linux-source-6.12.tar.xz. This script extracts
# only the parts the libperf and libapi makefiles read, builds both static archives with
# the kernel's own makefiles (gcc + make only; "make install" needs asciidoc, so it is not
# used) and copies what a consumer needs:
#
#   OUT/src/tools/...                    extracted sources and objects
#   OUT/install/include/perf/*.h         libperf's public headers
#   OUT/install/include/linux/perf_event.h
#                                        the uapi header libperf was built against: its
#                                        struct perf_event_attr may be larger than the one
#                                        in /usr/include (linux-libc-dev), and libperf
#                                        copies a whole struct from the caller's pointer
#   OUT/install/lib/libperf.a, libapi.a  link in this order
#
# Usage: build-libperf.sh TARBALL OUT [CC]
# Exit status 0 only when every file above is in place; the caller (cmake/Libperf.cmake)
# keeps the stamp that says so.
#
# Parallelism: -jN (or --jobs=N) taken from MAKEFLAGS when present (also the MAKEFLAGS
# the calling cmake was started with), else the CPU count.
# The rest of MAKEFLAGS is dropped: when CMake re-runs its configure step from inside a
# make build, MAKEFLAGS carries jobserver descriptors this process does not own.
# Compiler flags are fixed here (not taken from the environment) so the archives are the
# same for every build type and never see the project's -Werror; -fPIC makes them
# linkable into shared objects and PIE, and plain (uninstrumented) objects link fine
# into sanitizer builds.

set -eu

if [ $# -lt 2 ]; then
	echo "usage: $0 TARBALL OUT [CC]" >&2
	exit 2
fi
tarball=$1
out=$2
cc=${3:-cc}

if [ ! -r "$tarball" ]; then
	echo "build-libperf: cannot read $tarball (apt-get install linux-source-6.12)" >&2
	exit 1
fi

# CMake empties MAKEFLAGS in its own environment once a project enables a language
# (for its try-compiles); the value it was started with is still in its initial
# environment block, and this script is CMake's direct child.
makeflags=${MAKEFLAGS:-}
if [ -z "$makeflags" ] && [ -r "/proc/$PPID/environ" ]; then
	makeflags=$(tr '\0' '\n' < "/proc/$PPID/environ" | sed -n 's/^MAKEFLAGS=//p')
fi
jobs=
for word in $makeflags; do
	case $word in
	-j[0-9]*) jobs=${word#-j} ;;
	--jobs=[0-9]*) jobs=${word#--jobs=} ;;
	esac
done
if [ -z "$jobs" ]; then
	jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
fi
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
# Variables the kernel tools makefiles would pick up from the environment.
unset O OUTPUT srctree objtree subdir ARCH SRCARCH CROSS_COMPILE EXTRA_CFLAGS LDFLAGS DESTDIR V

rm -rf "$out/src" "$out/install"
mkdir -p "$out/src" "$out/install/include/perf" "$out/install/include/linux" \
	"$out/install/lib"

# The tarball has one top directory (linux-source-6.12/); strip it. '*' does not cross
# '/', so tools/lib/*.c is the top-level helpers only; a directory pattern extracts the
# directory's whole contents. The kernel xz tarball has many blocks: decode on 2 threads.
top='*'
echo "build-libperf: extracting from $tarball"
xz -dc -T2 "$tarball" | tar -x -C "$out/src" --strip-components=1 \
	--wildcards --no-wildcards-match-slash \
	"$top/tools/lib/perf" \
	"$top/tools/lib/api" \
	"$top/tools/lib/*.c" \
	"$top/tools/include" \
	"$top/tools/build" \
	"$top/tools/scripts" \
	"$top/tools/arch/*/include"

src=$out/src/tools
for need in lib/perf/Makefile lib/api/Makefile include/uapi/linux/perf_event.h; do
	if [ ! -f "$src/$need" ]; then
		echo "build-libperf: $tarball has no tools/$need" >&2
		exit 1
	fi
done

# libperf's makefile appends its include paths, -fPIC and -Werror to CFLAGS from the
# environment; libapi's makefile sets its own CFLAGS (with -fPIC) and honours WERROR=0.
# Both get -Wno-error: warnings stay visible but are never fatal on a newer compiler.
# CFLAGS must not be given on the command line: it would replace libapi's include paths.
# libperf's default target also builds libapi.a (its shared object links it); the
# second make only confirms it is there.
CFLAGS="-O2 -g -fPIC"
export CFLAGS
echo "build-libperf: make -j$jobs (CC=$cc)"
make -C "$src/lib/perf" -j"$jobs" CC="$cc" EXTRA_CFLAGS=-Wno-error WERROR=0
make -C "$src/lib/api" -j"$jobs" CC="$cc" EXTRA_CFLAGS=-Wno-error WERROR=0 libapi.a

cp "$src"/lib/perf/include/perf/*.h "$out/install/include/perf/"
cp "$src/include/uapi/linux/perf_event.h" "$out/install/include/linux/"
cp "$src/lib/perf/libperf.a" "$src/lib/api/libapi.a" "$out/install/lib/"

echo "build-libperf: done"
