// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - what can be recorded on this host: mr_recorder_probe() and its report.
 *
 * Each probe_* helper fills one part of struct mr_probe by trying the real thing (open
 * the perf event, list tracefs, read the sysfs file) and keeps the errno of the step that
 * failed. The report (mr_probe_format) is the only place that turns those errnos into
 * words; every "no" there names the cause and the fix.
 */
#define _GNU_SOURCE /* strerrorname_np */

/* libperf's tree header first: its struct perf_event_attr is the size libperf copies. */
#include <linux/perf_event.h>
#include <linux/magic.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <perfmon/pfmlib_perf_event.h>
#include <numa.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libperf_compat.h"
#include "mr_recorder.h"
#include "mr_util.h"
#include "rec_int.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

#define PATH_THP "/sys/kernel/mm/transparent_hugepage/enabled"
#define PATH_LRU_GEN "/sys/kernel/mm/lru_gen/enabled"
#define PATH_PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define PATH_PAGE_IDLE "/sys/kernel/mm/page_idle/bitmap"
#define PATH_DAMON "/sys/kernel/mm/damon/admin"
#define PATH_TRACEFS "/sys/kernel/tracing"
#define PATH_TRACEFS_DEBUG "/sys/kernel/debug/tracing"
#define PATH_CGROUP "/sys/fs/cgroup"
#define PATH_CGROUP_UNIFIED "/sys/fs/cgroup/unified"
#define PATH_CGROUP_MEMORY "/sys/fs/cgroup/memory"

/* Ring size per CPU for the probe, in pages (power of two; well under mlock limits). */
#define PROBE_RING_PAGES 4
/* The libpfm event string tried on the hardware PMU. */
#define PROBE_HW_EVENT "cycles"

static const struct {
	const char *name;	/* system:event */
	const char *without;	/* what the recorder loses without it */
} tp_table[MR_TP_COUNT] = {
	[MR_TP_FILEMAP_ADD] = { "filemap:mm_filemap_add_to_page_cache",
				"page-cache inserts cannot be recorded" },
	[MR_TP_FILEMAP_DELETE] = { "filemap:mm_filemap_delete_from_page_cache",
				   "page-cache evictions (and so refaults) cannot be recorded" },
	[MR_TP_FILEMAP_GET_PAGES] = { "filemap:mm_filemap_get_pages",
				      "read()/write() page-cache lookups are not recorded, "
				      "only mapped faults" },
	[MR_TP_RA_SYNC] = { "readahead:page_cache_sync_ra",
			    "synchronous readahead windows are not recorded" },
	[MR_TP_RA_ASYNC] = { "readahead:page_cache_async_ra",
			     "asynchronous readahead windows are not recorded" },
	[MR_TP_LRU_ACTIVATE] = { "pagemap:mm_lru_activate",
				 "the kernel's LRU activations are not recorded" },
	[MR_TP_MEMCG_LRUVEC] = { "memcg:mod_memcg_lruvec_state",
				 "refaults are labelled by delete+add key matching (a superset "
				 "of the kernel's WORKINGSET_REFAULT_FILE)" },
};

const char *mr_probe_tracepoint_name(int tp)
{
	if (tp < 0 || tp >= MR_TP_COUNT)
		return NULL;
	return tp_table[tp].name;
}

/* Read a small text file into buf, without the trailing newline. Returns 0 or -errno. */
static int read_text(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd, rc = 0;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0) {
		rc = -errno;
		n = 0;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	close(fd);
	return rc;
}

/* Copy src into a fixed field, always terminated. */
static void set_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src);
}

/* f_type of the file system holding path, or 0 with *errp set when statfs fails. */
static long fs_type(const char *path, int *errp)
{
	struct statfs sfs;

	if (statfs(path, &sfs) < 0) {
		if (errp)
			*errp = errno;
		return 0;
	}
	return (long)sfs.f_type;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void probe_host(struct mr_probe *p)
{
	struct utsname uts;
	char buf[128];
	char *open_b, *close_b;

	if (uname(&uts) == 0) {
		set_str(p->kernel_release, sizeof(p->kernel_release), uts.release);
		set_str(p->machine, sizeof(p->machine), uts.machine);
	}
	p->page_size = sysconf(_SC_PAGESIZE);

	/* "always [madvise] never" -> "madvise" */
	if (read_text(PATH_THP, buf, sizeof(buf)) == 0) {
		open_b = strchr(buf, '[');
		close_b = open_b ? strchr(open_b, ']') : NULL;
		if (open_b && close_b) {
			*close_b = '\0';
			set_str(p->thp_enabled, sizeof(p->thp_enabled), open_b + 1);
		}
	}

	/* "0x0007": a bitmask of enabled MGLRU capabilities, 0 = off. */
	if (read_text(PATH_LRU_GEN, buf, sizeof(buf)) == 0) {
		p->mglru_present = 1;
		p->mglru_enabled = (unsigned int)strtoul(buf, NULL, 0);
	}
}

static void probe_privilege(struct mr_probe *p)
{
	char buf[64];
	char line[256];
	FILE *f;
	int rc;

	p->euid = (unsigned int)geteuid();
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			unsigned long long caps;

			if (sscanf(line, "CapEff: %llx", &caps) == 1) {
				p->cap_eff = caps;
				break;
			}
		}
		fclose(f);
	}
	p->cap_sys_admin = !!(p->cap_eff & (1ULL << CAP_SYS_ADMIN_BIT));
	p->cap_perfmon = !!(p->cap_eff & (1ULL << CAP_PERFMON_BIT));

	rc = read_text(PATH_PARANOID, buf, sizeof(buf));
	if (rc == 0)
		p->perf_paranoid = atoi(buf);
	else
		p->perf_paranoid_errno = -rc;
}

/* libperf reports through a global callback; the library never prints. */
static int swallow_libperf(enum libperf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/*
 * Open attr on every CPU in cpus for the threads in threads and map one ring per CPU.
 * Returns 0 with *out set, or -errno with *step naming the call that failed.
 */
static int open_rings(struct perf_event_attr *attr, struct perf_cpu_map *cpus,
		      struct perf_thread_map *threads, struct perf_evlist **out,
		      const char **step)
{
	struct perf_evlist *evlist;
	struct perf_evsel *evsel;
	int rc;

	*out = NULL;
	evlist = perf_evlist__new();
	if (!evlist) {
		*step = "perf_evlist__new";
		return -ENOMEM;
	}
	evsel = perf_evsel__new(attr);
	if (!evsel) {
		*step = "perf_evsel__new";
		rc = -ENOMEM;
		goto out_delete;
	}
	perf_evlist__add(evlist, evsel);
	perf_evlist__set_maps(evlist, cpus, threads);

	rc = perf_evlist__open(evlist);
	if (rc < 0) {
		*step = "perf_evlist__open";
		goto out_delete;
	}
	/* -1 with errno from mmap(2), or a negative errno of its own */
	errno = 0;
	rc = perf_evlist__mmap(evlist, PROBE_RING_PAGES);
	if (rc < 0) {
		*step = "perf_evlist__mmap";
		if (rc == -1)
			rc = errno ? -errno : -EPERM;
		goto out_delete;
	}
	*out = evlist;
	return 0;

out_delete:
	rec_evlist_delete(evlist);
	return rc;
}

/*
 * Layout of a PERF_RECORD_SAMPLE with IP|TID|TIME|ADDR|CPU, after the header:
 *   u64 ip | u32 pid, tid | u64 time | u64 addr | u32 cpu, res
 */
#define SAMPLE_ADDR_OFF (sizeof(struct perf_event_header) + 8 + 8 + 8)
#define SAMPLE_MIN_SIZE (SAMPLE_ADDR_OFF + 8 + 8)

/* Drain every ring; returns 1 when a sample's address falls in [lo, lo + len). */
static int find_fault_sample(struct perf_evlist *evlist, uint64_t lo, uint64_t len)
{
	struct perf_mmap *map;
	union perf_event *ev;
	uint64_t addr;
	int found = 0;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			if (ev->header.type == PERF_RECORD_SAMPLE &&
			    ev->header.size >= SAMPLE_MIN_SIZE) {
				memcpy(&addr, (const char *)ev + SAMPLE_ADDR_OFF, sizeof(addr));
				if (addr - lo < len)
					found = 1;
			}
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	return found;
}

static void probe_sw_fault(struct mr_probe *p)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
		.disabled = 1,
		.inherit = 1,
	};
	struct perf_cpu_map *cpus = NULL;
	struct perf_thread_map *threads = NULL;
	struct perf_evlist *evlist = NULL;
	const char *step = NULL;
	volatile char *page;
	int rc;

	libperf_init(swallow_libperf);

	cpus = perf_cpu_map__new(NULL);
	if (!cpus) {
		p->sw_fault_step = "perf_cpu_map__new";
		p->sw_fault_errno = ENOMEM;
		goto out;
	}
	p->sw_fault_ncpus = perf_cpu_map__nr(cpus);
	threads = perf_thread_map__new_dummy();
	if (!threads) {
		p->sw_fault_step = "perf_thread_map__new_dummy";
		p->sw_fault_errno = ENOMEM;
		goto out;
	}
	perf_thread_map__set_pid(threads, 0, (pid_t)syscall(SYS_gettid));

	/* Kernel-mode faults too (copy_to_user); unprivileged at paranoid 2: user only. */
	rc = open_rings(&attr, cpus, threads, &evlist, &step);
	if ((rc == -EACCES || rc == -EPERM) && step && !strcmp(step, "perf_evlist__open")) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		rc = open_rings(&attr, cpus, threads, &evlist, &step);
		if (rc == 0)
			p->sw_fault_user_only = 1;
	}
	if (rc < 0) {
		p->sw_fault_step = step;
		p->sw_fault_errno = -rc;
		goto out;
	}
	p->sw_fault_ok = 1;

	/* One first touch of a fresh anonymous page must come back as one sample. */
	page = mmap(NULL, (size_t)p->page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED) {
		perf_evlist__enable(evlist);
		page[0] = 1;
		perf_evlist__disable(evlist);
		p->sw_fault_sampled = find_fault_sample(evlist, (uint64_t)(uintptr_t)page,
							(uint64_t)p->page_size);
		munmap((void *)page, (size_t)p->page_size);
	}

out:
	rec_evlist_delete(evlist);
	perf_thread_map__put(threads);
	perf_cpu_map__put(cpus);
}

static void probe_tracepoints(struct mr_probe *p, const char *root);

/* tracefs as record finds it (recorder/tp.c): the host's, or one mounted privately for
 * the setup when none is mounted, or why neither. */
static void probe_tracefs(struct mr_probe *p)
{
	struct rec_tracefs tf;

	for (int t = 0; t < MR_TP_COUNT; t++)
		p->tracepoints[t] = MR_PROBE_UNKNOWN;
	if (rec_tracefs_enter(&tf) == 0) {
		p->tracefs_private = tf.mounted;
		if (!tf.mounted)
			set_str(p->tracefs_path, sizeof(p->tracefs_path), tf.path);
		probe_tracepoints(p, tf.path);
	} else {
		/* mounted but unreadable, or none and no private mount (not root) */
		set_str(p->tracefs_path, sizeof(p->tracefs_path), tf.found);
		p->tracefs_errno = tf.err;
	}
	rec_tracefs_leave(&tf);
}

/* Which of tp_table exist under the tracefs at root. */
static void probe_tracepoints(struct mr_probe *p, const char *root)
{
	char path[256];
	DIR *dir;
	int t;

	snprintf(path, sizeof(path), "%s/events", root);
	dir = opendir(path);
	if (!dir) {
		p->tracefs_errno = errno;
		return;
	}
	closedir(dir);
	p->tracefs_readable = 1;

	for (t = 0; t < MR_TP_COUNT; t++) {
		const char *name = tp_table[t].name;
		const char *colon = strchr(name, ':');

		snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", root,
			 (int)(colon - name), name, colon + 1);
		p->tracepoints[t] = exists(path) ? MR_PROBE_YES : MR_PROBE_NO;
	}
}

static void probe_young(struct mr_probe *p)
{
	p->page_idle = exists(PATH_PAGE_IDLE);
	p->damon_sysfs = exists(PATH_DAMON);
	p->soft_dirty = rec_soft_dirty_works(sysconf(_SC_PAGESIZE));
}

/* First present core PMU, preferring the one libpfm4 marks as the default. */
static void find_default_pmu(struct mr_probe *p)
{
	pfm_pmu_info_t info;
	pfm_pmu_t pmu;
	int have = 0;

	pfm_for_all_pmus(pmu) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE || !info.name)
			continue;
		if (!have || info.is_dfl) {
			set_str(p->pfm_pmu, sizeof(p->pfm_pmu), info.name);
			have = 1;
			if (info.is_dfl)
				break;
		}
	}
}

static void probe_pmu(struct mr_probe *p)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int fd;

	set_str(p->hw_event, sizeof(p->hw_event), PROBE_HW_EVENT);
	p->pfm_rc = pfm_initialize();
	if (p->pfm_rc != PFM_SUCCESS)
		return;
	find_default_pmu(p);

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	/* PFM_PLM3: user level only, so paranoid 2 allows it on our own thread. */
	p->hw_event_pfm_rc = pfm_get_os_event_encoding(PROBE_HW_EVENT, PFM_PLM3,
						       PFM_OS_PERF_EVENT, &arg);
	if (p->hw_event_pfm_rc != PFM_SUCCESS)
		return;
	attr.size = sizeof(attr);
	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		p->hw_event_errno = errno;
		return;
	}
	p->hw_event_ok = 1;
	close(fd);
}

static void probe_numa(struct mr_probe *p)
{
	p->numa_nodes = 1;
	if (numa_available() < 0)
		return;
	p->numa_available = 1;
	p->numa_nodes = numa_max_node() + 1;
}

static void probe_cgroup(struct mr_probe *p)
{
	char path[128], buf[512];
	long root = fs_type(PATH_CGROUP, NULL);
	const char *v2 = NULL;

	if (root == CGROUP2_SUPER_MAGIC) {
		p->cgroup_mode = MR_CGROUP_V2;
		v2 = PATH_CGROUP;
	} else if (root != 0) {
		p->cgroup_v1_memory = fs_type(PATH_CGROUP_MEMORY, NULL) == CGROUP_SUPER_MAGIC;
		if (fs_type(PATH_CGROUP_UNIFIED, NULL) == CGROUP2_SUPER_MAGIC)
			v2 = PATH_CGROUP_UNIFIED;
		if (v2)
			p->cgroup_mode = MR_CGROUP_HYBRID;
		else if (root == CGROUP_SUPER_MAGIC || p->cgroup_v1_memory)
			p->cgroup_mode = MR_CGROUP_V1;
		else
			p->cgroup_mode = exists(PATH_CGROUP "/cpu") ? MR_CGROUP_V1 : MR_CGROUP_NONE;
	}
	if (!v2)
		return;
	set_str(p->cgroup_v2_path, sizeof(p->cgroup_v2_path), v2);
	snprintf(path, sizeof(path), "%s/cgroup.controllers", v2);
	if (read_text(path, buf, sizeof(buf)) == 0) {
		/* space-separated words: "cpuset cpu io memory pids" */
		for (char *w = strtok(buf, " "); w; w = strtok(NULL, " "))
			if (!strcmp(w, "memory"))
				p->cgroup_v2_memory = 1;
	}
}

int mr_recorder_probe(struct mr_probe *out, struct mr_error *err)
{
	if (!out)
		return mr_error_set(err, MR_EINVAL, "mr_recorder_probe: no result struct");
	memset(out, 0, sizeof(*out));
	probe_host(out);
	probe_privilege(out);
	probe_sw_fault(out);
	probe_tracefs(out);
	probe_young(out);
	probe_pmu(out);
	probe_numa(out);
	probe_cgroup(out);
	return 0;
}

/* ---- report ---- */


/* "ENOENT (No such file or directory)" */
static void put_errno(struct mr_strbuf *r, int e)
{
	const char *name = strerrorname_np(e);

	if (name)
		mr_strbuf_printf(r, "%s (%s)", name, strerror(e));
	else
		mr_strbuf_printf(r, "errno %d (%s)", e, strerror(e));
}

#define LABEL "%-22s"

static int privileged(const struct mr_probe *p)
{
	return p->cap_perfmon || p->cap_sys_admin;
}

static void report_host(struct mr_strbuf *r, const struct mr_probe *p)
{
	mr_strbuf_printf(r, LABEL "%s %s\n", "kernel:", p->kernel_release[0] ? p->kernel_release : "?",
	    p->machine);
	mr_strbuf_printf(r, LABEL "%ld bytes\n", "page size:", p->page_size);
	if (p->thp_enabled[0])
		mr_strbuf_printf(r, LABEL "%s\n", "THP:", p->thp_enabled);
	else
		mr_strbuf_printf(r, LABEL "no: %s missing: kernel built without "
		    "CONFIG_TRANSPARENT_HUGEPAGE, so traces hold base pages only; fix: a "
		    "kernel with CONFIG_TRANSPARENT_HUGEPAGE=y\n", "THP:", PATH_THP);

	if (!p->mglru_present)
		mr_strbuf_printf(r, LABEL "no: %s missing: kernel built without CONFIG_LRU_GEN, so this "
		    "host reclaims with the active/inactive LRU; fix: a kernel with "
		    "CONFIG_LRU_GEN=y to compare against a live MGLRU (replay models it "
		    "either way)\n", "MGLRU:", PATH_LRU_GEN);
	else if (!p->mglru_enabled)
		mr_strbuf_printf(r, LABEL "no: built in but off (enabled=0x%04x); fix: echo y > %s\n",
		    "MGLRU:", p->mglru_enabled, PATH_LRU_GEN);
	else
		mr_strbuf_printf(r, LABEL "yes: enabled=0x%04x\n", "MGLRU:", p->mglru_enabled);
}

static void report_privilege(struct mr_strbuf *r, const struct mr_probe *p)
{
	mr_strbuf_printf(r, LABEL, "privileges:");
	if (p->euid == 0 && privileged(p))
		mr_strbuf_printf(r, "yes: root");
	else if (privileged(p))
		mr_strbuf_printf(r, "yes: euid %u with %s", p->euid,
		    p->cap_perfmon ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
	else
		mr_strbuf_printf(r, "no: euid %u, not root", p->euid);
	mr_strbuf_printf(r, " (CapEff %016llx: CAP_PERFMON %s, CAP_SYS_ADMIN %s)",
	    (unsigned long long)p->cap_eff, p->cap_perfmon ? "yes" : "no",
	    p->cap_sys_admin ? "yes" : "no");
	if (!privileged(p))
		mr_strbuf_printf(r, "; without CAP_PERFMON or CAP_SYS_ADMIN, tracefs, page_idle and "
		    "system-wide perf events are out of reach; fix: run as root (sudo), or "
		    "grant CAP_PERFMON for perf events only");
	mr_strbuf_printf(r, "\n");

	mr_strbuf_printf(r, LABEL, "perf_event_paranoid:");
	if (p->perf_paranoid_errno) {
		mr_strbuf_printf(r, "no: cannot read %s: ", PATH_PARANOID);
		put_errno(r, p->perf_paranoid_errno);
		mr_strbuf_printf(r, "; the kernel has no perf events (CONFIG_PERF_EVENTS) or /proc is "
		    "hidden; fix: a kernel with CONFIG_PERF_EVENTS=y\n");
	} else if (privileged(p)) {
		mr_strbuf_printf(r, "%d (does not limit this process: it is privileged)\n",
		    p->perf_paranoid);
	} else if (p->perf_paranoid <= 1) {
		mr_strbuf_printf(r, "%d (unprivileged users may sample their own processes, kernel "
		    "mode included)\n", p->perf_paranoid);
	} else {
		mr_strbuf_printf(r, "%d: unprivileged users %s; fix: sysctl kernel.perf_event_paranoid=-1 "
		    "or run as root\n", p->perf_paranoid,
		    p->perf_paranoid == 2 ? "only see user-mode faults of their own processes"
					  : "may not open perf events at all");
	}
}

static void report_sw_fault(struct mr_strbuf *r, const struct mr_probe *p)
{
	int e = p->sw_fault_errno;

	mr_strbuf_printf(r, LABEL, "software page faults:");
	if (p->sw_fault_ok) {
		mr_strbuf_printf(r, "yes: PERF_COUNT_SW_PAGE_FAULTS, one ring per CPU on %d CPUs%s",
		    p->sw_fault_ncpus, p->sw_fault_user_only ? ", user mode only" : "");
		if (p->sw_fault_sampled)
			mr_strbuf_printf(r, "; a test fault came back with its exact address\n");
		else
			mr_strbuf_printf(r, "; but no sample came back for a test fault (events lost or "
			    "filtered: check `perf stat -e page-faults true`)\n");
		if (p->sw_fault_user_only)
			mr_strbuf_printf(r, "%22sfaults taken in kernel mode (copy_to_user) are not seen at "
			    "perf_event_paranoid %d; fix: sysctl kernel.perf_event_paranoid=1 or "
			    "run as root\n", "", p->perf_paranoid);
		return;
	}
	mr_strbuf_printf(r, "no: %s failed: ", p->sw_fault_step ? p->sw_fault_step : "?");
	put_errno(r, e);
	mr_strbuf_printf(r, "; ");
	if ((e == EACCES || e == EPERM) && p->sw_fault_step &&
	    !strcmp(p->sw_fault_step, "perf_evlist__mmap"))
		mr_strbuf_printf(r, "the rings exceed the locked-memory limit for unprivileged users; fix: "
		    "sysctl kernel.perf_event_mlock_kb=2048 or run as root\n");
	else if ((e == EACCES || e == EPERM) && privileged(p))
		mr_strbuf_printf(r, "denied although privileged: a seccomp filter (container) or a "
		    "security module blocks perf_event_open; fix: run on the host or allow "
		    "perf_event_open in the container's seccomp profile\n");
	else if (e == EACCES || e == EPERM)
		mr_strbuf_printf(r, "perf_event_paranoid is %d; fix: sysctl kernel.perf_event_paranoid=-1 "
		    "or run as root\n", p->perf_paranoid);
	else if (e == ENOSYS || e == ENOENT || e == ENODEV || e == EOPNOTSUPP)
		mr_strbuf_printf(r, "this kernel has no software perf events; fix: a kernel with "
		    "CONFIG_PERF_EVENTS=y\n");
	else if (e == EMFILE || e == ENFILE)
		mr_strbuf_printf(r, "out of file descriptors (one per CPU); fix: ulimit -n 4096\n");
	else
		mr_strbuf_printf(r, "unexpected; fix: check `perf record -e page-faults -a true`\n");
}

static void report_tracefs(struct mr_strbuf *r, const struct mr_probe *p)
{
	mr_strbuf_printf(r, LABEL, "tracefs:");
	if (p->tracefs_readable && p->tracefs_private)
		mr_strbuf_printf(r, "yes: not mounted on the host; record mounts it at %s in a "
		    "private mount namespace for its setup (the host's mounts stay as they are)\n",
		    PATH_TRACEFS);
	else if (p->tracefs_readable)
		mr_strbuf_printf(r, "yes: %s\n", p->tracefs_path);
	else if (p->tracefs_path[0]) {
		mr_strbuf_printf(r, "no: %s is mounted but its events/ cannot be read: ", p->tracefs_path);
		put_errno(r, p->tracefs_errno);
		mr_strbuf_printf(r, "; fix: run as root (tracefs is root-only)\n");
	} else if (p->tracefs_errno) {
		mr_strbuf_printf(r, "no: not mounted at %s or %s, and record cannot mount it "
		    "privately: ", PATH_TRACEFS, PATH_TRACEFS_DEBUG);
		put_errno(r, p->tracefs_errno);
		mr_strbuf_printf(r, "; fix: run as root; if still missing: mount -t tracefs nodev %s\n",
		    PATH_TRACEFS);
	} else {
		mr_strbuf_printf(r, "no: not mounted at %s or %s; fix: mount -t tracefs nodev %s\n",
		    PATH_TRACEFS, PATH_TRACEFS_DEBUG, PATH_TRACEFS);
	}

	mr_strbuf_printf(r, "tracepoints:\n");
	for (int t = 0; t < MR_TP_COUNT; t++) {
		mr_strbuf_printf(r, "  %-42s ", tp_table[t].name);
		switch (p->tracepoints[t]) {
		case MR_PROBE_YES:
			mr_strbuf_printf(r, "yes\n");
			break;
		case MR_PROBE_NO:
			mr_strbuf_printf(r, "no: not in this kernel, so %s; fix: a kernel that has it\n",
			    tp_table[t].without);
			break;
		case MR_PROBE_UNKNOWN:
		default:
			mr_strbuf_printf(r, "unknown: tracefs is not readable (see tracefs above)\n");
			break;
		}
	}
}

static void report_young(struct mr_strbuf *r, const struct mr_probe *p)
{
	if (p->soft_dirty)
		mr_strbuf_printf(r, LABEL "yes: writes to resident pages are recorded as "
		    "write-protect faults (the default young source)\n", "soft-dirty:");
	else
		mr_strbuf_printf(r, LABEL "no: a written page shows no soft-dirty bit in "
		    "/proc/self/pagemap (kernel built without CONFIG_MEM_SOFT_DIRTY): writes to "
		    "resident pages are not recorded by default; fix: a kernel with "
		    "CONFIG_MEM_SOFT_DIRTY=y, or --young-scan clear_refs (it clears the young bits "
		    "the host's reclaim reads)\n", "soft-dirty:");
	if (p->page_idle)
		mr_strbuf_printf(r, LABEL "yes: %s\n", "page_idle:", PATH_PAGE_IDLE);
	else
		mr_strbuf_printf(r, LABEL "no: %s missing: kernel built without CONFIG_IDLE_PAGE_TRACKING; "
		    "reads of resident pages are not recorded (--young-scan clear_refs sees them per "
		    "VMA); fix: a kernel with "
		    "CONFIG_IDLE_PAGE_TRACKING=y\n", "page_idle:", PATH_PAGE_IDLE);
	if (p->damon_sysfs)
		mr_strbuf_printf(r, LABEL "yes: %s\n", "DAMON sysfs:", PATH_DAMON);
	else
		mr_strbuf_printf(r, LABEL "no: %s missing: kernel built without CONFIG_DAMON_SYSFS; fix: a "
		    "kernel with CONFIG_DAMON_SYSFS=y\n", "DAMON sysfs:", PATH_DAMON);
}

static void report_pmu(struct mr_strbuf *r, const struct mr_probe *p)
{
	mr_strbuf_printf(r, LABEL, "libpfm4:");
	if (p->pfm_rc != PFM_SUCCESS) {
		mr_strbuf_printf(r, "no: pfm_initialize failed: %s; fix: a libpfm4 that knows this CPU\n",
		    pfm_strerror(p->pfm_rc));
		mr_strbuf_printf(r, LABEL "no: not tried without libpfm4 (see above), so sampling uses "
		    "software page faults; fix: as for libpfm4\n", "hardware event:");
		return;
	}
	if (p->pfm_pmu[0])
		mr_strbuf_printf(r, "yes: default core PMU %s\n", p->pfm_pmu);
	else
		mr_strbuf_printf(r, "yes, but no core PMU of this CPU is known to it (only generic "
		    "events); fix: a newer libpfm4\n");

	mr_strbuf_printf(r, LABEL, "hardware event:");
	if (p->hw_event_ok) {
		mr_strbuf_printf(r, "yes: %s opens\n", p->hw_event);
	} else if (p->hw_event_pfm_rc != PFM_SUCCESS) {
		mr_strbuf_printf(r, "no: libpfm4 cannot encode %s: %s; fix: a newer libpfm4\n",
		    p->hw_event, pfm_strerror(p->hw_event_pfm_rc));
	} else {
		mr_strbuf_printf(r, "no: %s encodes but perf_event_open fails: ", p->hw_event);
		put_errno(r, p->hw_event_errno);
		if (p->hw_event_errno == ENOENT || p->hw_event_errno == ENODEV ||
		    p->hw_event_errno == EOPNOTSUPP)
			mr_strbuf_printf(r, "; this kernel exposes no hardware PMU (usual in a VM without "
			    "vPMU), so sampling uses software page faults; fix: record on bare "
			    "metal or a VM with PMU passthrough\n");
		else if (p->hw_event_errno == EACCES || p->hw_event_errno == EPERM)
			mr_strbuf_printf(r, "; fix: sysctl kernel.perf_event_paranoid=-1 or run as root\n");
		else
			mr_strbuf_printf(r, "; fix: check `perf stat -e cycles true`\n");
	}
}

static void report_numa_cgroup(struct mr_strbuf *r, const struct mr_probe *p)
{
	if (p->numa_available)
		mr_strbuf_printf(r, LABEL "yes: %d node%s\n", "NUMA:", p->numa_nodes,
		    p->numa_nodes == 1 ? "" : "s");
	else
		mr_strbuf_printf(r, LABEL "no: numa_available() failed (kernel without CONFIG_NUMA, or "
		    "get_mempolicy blocked); treated as 1 node, nothing to fix for "
		    "recording\n", "NUMA:");

	mr_strbuf_printf(r, LABEL, "cgroups:");
	switch (p->cgroup_mode) {
	case MR_CGROUP_V2:
		mr_strbuf_printf(r, "v2 at %s", p->cgroup_v2_path);
		break;
	case MR_CGROUP_HYBRID:
		mr_strbuf_printf(r, "hybrid: v1 controllers, v2 at %s", p->cgroup_v2_path);
		break;
	case MR_CGROUP_V1:
		mr_strbuf_printf(r, "v1 only");
		break;
	case MR_CGROUP_NONE:
	default:
		mr_strbuf_printf(r, "no: nothing mounted at %s; fix: mount -t cgroup2 none %s\n",
		    PATH_CGROUP, PATH_CGROUP);
		return;
	}
	if (p->cgroup_v1_memory)
		mr_strbuf_printf(r, "; memory controller: v1 at %s\n", PATH_CGROUP_MEMORY);
	else if (p->cgroup_v2_memory)
		mr_strbuf_printf(r, "; memory controller: v2 at %s\n", p->cgroup_v2_path);
	else
		mr_strbuf_printf(r, "; memory controller: no, so memcg limits cannot be recorded or "
		    "applied; fix: enable it (echo +memory > <parent>/cgroup.subtree_control "
		    "on v2, or mount -t cgroup -o memory none %s on v1)\n",
		    PATH_CGROUP_MEMORY);
}

int mr_probe_format(const struct mr_probe *p, char *buf, size_t cap)
{
	struct mr_strbuf r = { .buf = buf, .cap = cap };

	if (!p || (!buf && cap))
		return MR_EINVAL;
	if (cap)
		buf[0] = '\0';
	mr_strbuf_printf(&r, "memreplay host probe\n");
	report_host(&r, p);
	report_privilege(&r, p);
	report_sw_fault(&r, p);
	report_tracefs(&r, p);
	report_young(&r, p);
	report_pmu(&r, p);
	report_numa_cgroup(&r, p);
	if (r.len >= cap)
		return MR_ENOSPC;
	return (int)r.len;
}
