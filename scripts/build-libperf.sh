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
# Two local changes to libperf (the here-documents below, applied with patch(1) before
# make). The first, perf_evsel__set_cgroup_fd(). libperf's perf_evsel__open() passes the thread
# map's pid and flags 0 to perf_event_open(), so an event cannot be scoped to a cgroup
# (PERF_FLAG_PID_CGROUP with a cgroup directory fd as the pid). The recorder needs that
# for `record --cgroup` (kernel-side filtering). Patching is the smallest way to keep every
# fd in libperf's hands: the per-CPU rings, PERF_EVENT_IOC_SET_OUTPUT between the events
# of a CPU, enable/disable, read and close all stay libperf's. The alternatives were
# opening those fds in the recorder and writing them into libperf's private evsel->fd
# array (compiling against its internal headers and tools/include, tied to the struct
# layout of one tree) or a second ring reader of our own. When the patch does not apply
# to another tree, the build goes on without it (a warning in build.log); the recorder
# then filters --cgroup in user space and says why (cmake/Libperf.cmake defines
# MR_LIBPERF_CGROUP_FD only when the installed header declares the function).
# The second, perf_evsel__fd(): the fd of one (CPU, thread) of an open evsel. A recording
# of a command maps its rings on CPU-wide dummy events while the kernel's grace period
# for its first task-bound event runs, then redirects the task-bound events into them
# (PERF_EVENT_IOC_SET_OUTPUT) and polls their fds with a pidfd of the command
# (recorder/perf.c, "Rings before the events"); that needs the fds libperf keeps.
# Without it (MR_LIBPERF_EVSEL_FD undefined) the rings are mapped after the events open.
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

# apply_patch FILE WHAT WITHOUT: apply $out/FILE to the tree, or say what the build goes
# on without (a tree it does not apply to, or no patch(1))
apply_patch() {
	if command -v patch >/dev/null 2>&1 &&
	   patch -d "$out/src" -p1 -N --dry-run --silent < "$out/$1" >/dev/null 2>&1
	then
		patch -d "$out/src" -p1 -N --silent < "$out/$1"
		echo "build-libperf: applied $2"
	else
		echo "build-libperf: warning: the $2 patch does not apply to this tree (or" \
			"patch(1) is missing); $3"
	fi
}

# perf_evsel__set_cgroup_fd() (see the top of this file).
cat > "$out/cgroup-fd.patch" <<'EOF'
--- a/tools/lib/perf/evsel.c
+++ b/tools/lib/perf/evsel.c
@@ -110,6 +110,12 @@
 	return 0;
 }
 
+void perf_evsel__set_cgroup_fd(struct perf_evsel *evsel, int cgroup_fd)
+{
+	evsel->has_cgroup_fd = cgroup_fd >= 0;
+	evsel->cgroup_fd = cgroup_fd;
+}
+
 int perf_evsel__open(struct perf_evsel *evsel, struct perf_cpu_map *cpus,
 		     struct perf_thread_map *threads)
 {
@@ -159,8 +165,9 @@
 				goto out;
 
 			fd = sys_perf_event_open(&evsel->attr,
-						 threads->map[thread].pid,
-						 cpu, group_fd, 0);
+						 evsel->has_cgroup_fd ? evsel->cgroup_fd :
+						 threads->map[thread].pid, cpu, group_fd,
+						 evsel->has_cgroup_fd ? PERF_FLAG_PID_CGROUP : 0);
 
 			if (fd < 0) {
 				err = -errno;
--- a/tools/lib/perf/include/internal/evsel.h
+++ b/tools/lib/perf/include/internal/evsel.h
@@ -75,6 +75,9 @@
 	/** Is the PMU for the event a core one? Effects the handling of own_cpus. */
 	bool			 is_pmu_core;
 	int			 idx;
+	/* memreplay: perf_evsel__set_cgroup_fd(); has_cgroup_fd false = thread map pids */
+	bool			 has_cgroup_fd;
+	int			 cgroup_fd;
 };
 
 void perf_evsel__init(struct perf_evsel *evsel, struct perf_event_attr *attr,
--- a/tools/lib/perf/include/perf/evsel.h
+++ b/tools/lib/perf/include/perf/evsel.h
@@ -29,6 +29,10 @@
 LIBPERF_API void perf_evsel__delete(struct perf_evsel *evsel);
 LIBPERF_API int perf_evsel__open(struct perf_evsel *evsel, struct perf_cpu_map *cpus,
 				 struct perf_thread_map *threads);
+/* memreplay: open on a cgroup (PERF_FLAG_PID_CGROUP, cgroup_fd as the pid argument,
+ * every CPU of the map) instead of the thread map's pids; -1 turns it off. The fd must
+ * stay open until perf_evsel__open() returns. */
+LIBPERF_API void perf_evsel__set_cgroup_fd(struct perf_evsel *evsel, int cgroup_fd);
 LIBPERF_API void perf_evsel__close(struct perf_evsel *evsel);
 LIBPERF_API void perf_evsel__close_cpu(struct perf_evsel *evsel, int cpu_map_idx);
 LIBPERF_API int perf_evsel__mmap(struct perf_evsel *evsel, int pages);
EOF
apply_patch cgroup-fd.patch "perf_evsel__set_cgroup_fd()" \
	"record --cgroup will filter in user space"

# perf_evsel__fd() (see the top of this file).
cat > "$out/evsel-fd.patch" <<'EOF'
--- a/tools/lib/perf/evsel.c
+++ b/tools/lib/perf/evsel.c
@@ -279,6 +279,13 @@
 	return 0;
 }
 
+int perf_evsel__fd(struct perf_evsel *evsel, int cpu_map_idx, int thread)
+{
+	int *fd = evsel->fd ? FD(evsel, cpu_map_idx, thread) : NULL;
+
+	return fd ? *fd : -1;
+}
+
 void *perf_evsel__mmap_base(struct perf_evsel *evsel, int cpu_map_idx, int thread)
 {
 	int *fd = FD(evsel, cpu_map_idx, thread);
--- a/tools/lib/perf/include/perf/evsel.h
+++ b/tools/lib/perf/include/perf/evsel.h
@@ -33,6 +33,9 @@
 LIBPERF_API void perf_evsel__close_cpu(struct perf_evsel *evsel, int cpu_map_idx);
 LIBPERF_API int perf_evsel__mmap(struct perf_evsel *evsel, int pages);
 LIBPERF_API void perf_evsel__munmap(struct perf_evsel *evsel);
+/* memreplay: the fd of (cpu_map_idx, thread) of an open evsel, else -1 (to redirect it
+ * into another event's ring, PERF_EVENT_IOC_SET_OUTPUT, and to poll it) */
+LIBPERF_API int perf_evsel__fd(struct perf_evsel *evsel, int cpu_map_idx, int thread);
 LIBPERF_API void *perf_evsel__mmap_base(struct perf_evsel *evsel, int cpu_map_idx, int thread);
 LIBPERF_API int perf_evsel__read(struct perf_evsel *evsel, int cpu_map_idx, int thread,
 				 struct perf_counts_values *count);
EOF
apply_patch evsel-fd.patch "perf_evsel__fd()" \
	"each recording maps its rings after its events open"

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
