/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libperf_compat.h - what the recorder needs from libperf beyond its public headers, and
 * where libperf's behaviour depends on the tree it was built from, in one place.
 *
 * libperf is built from Debian's linux-source-6.12 (6.12.117: tools/lib/perf, see
 * cmake/Libperf.cmake and scripts/build-libperf.sh) into a static libperf.a. Each item
 * below says why it is needed and what to check when building from another tree:
 *
 *   struct perf_event_attr        the size libperf copies (static assert below)
 *   perf_evsel__free_id()         libperf-internal, declared here
 *   perf_evsel__apply_filter()    libperf-internal, declared here
 *   rec_evlist_delete()           the evlist teardown, with the
 *                                 MR_LIBPERF_EVSEL_DELETE_LEAKS_MAPS workaround
 *   perf_evsel__set_cgroup_fd()   not upstream: scripts/build-libperf.sh patches it in
 *                                 and cmake/Libperf.cmake defines MR_LIBPERF_CGROUP_FD
 *                                 when the installed <perf/evsel.h> declares it; without
 *                                 it `record --cgroup` filters in user space
 *                                 (perf.c: rec_perf_open(), cgroup.c: rec_cgroup_set())
 */
#ifndef MR_LIBPERF_COMPAT_H
#define MR_LIBPERF_COMPAT_H

#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

/* perf_evsel__new() copies sizeof(struct perf_event_attr) of the tree libperf was built
 * from; this file must see that same struct (cmake/Libperf.cmake installs the header). */
_Static_assert(sizeof(struct perf_event_attr) >= PERF_ATTR_SIZE_VER8,
	       "struct perf_event_attr older than libperf's: /usr/include/linux/perf_event.h "
	       "was picked up instead of the one installed with libperf");

/*
 * Two functions of libperf's internal/evsel.h (not installed, not in libperf.map; the
 * static libperf.a has them). Both are in 6.12's tools/lib/perf/evsel.c with these
 * signatures.
 */
/* libperf (6.12) allocates sample ids for PERF_FORMAT_ID in perf_evlist__mmap() but
 * frees them only here, which its evlist/evsel delete do not call. */
void perf_evsel__free_id(struct perf_evsel *evsel);
/* libperf: PERF_EVENT_IOC_SET_FILTER on every fd of evsel (exported, not in its headers). */
int perf_evsel__apply_filter(struct perf_evsel *evsel, const char *filter);

/*
 * Free evlist and its evsels (NULL: nothing). perf_evlist__delete() unmaps, closes and
 * frees; the PERF_FORMAT_ID sample ids go first (above; a no-op for an evsel without
 * them). Where libperf's perf_evsel__delete() leaks each evsel's references to its cpu
 * and thread maps (6.12's is a bare free(); cmake/Libperf.cmake looks for the put in
 * evsel.c and defines MR_LIBPERF_EVSEL_DELETE_LEAKS_MAPS when it is missing), drop them
 * here first.
 */
static inline void rec_evlist_delete(struct perf_evlist *evlist)
{
	struct perf_evsel *e;

	if (!evlist)
		return;
	perf_evlist__for_each_evsel(evlist, e)
		perf_evsel__free_id(e);
#ifdef MR_LIBPERF_EVSEL_DELETE_LEAKS_MAPS
	struct perf_evsel *evsel;

	perf_evlist__munmap(evlist);
	perf_evlist__close(evlist);
	perf_evlist__for_each_evsel(evlist, evsel) {
		perf_cpu_map__put(perf_evsel__cpus(evsel));
		perf_thread_map__put(perf_evsel__threads(evsel));
	}
#endif
	perf_evlist__delete(evlist);
}

#endif /* MR_LIBPERF_COMPAT_H */
