// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - the recorder's perf events through libperf: build the evlist for the sources
 * asked for, open and map it (one ring per CPU, every event of a CPU redirected into that
 * CPU's ring, so a ring is one time-ordered stream; for a command the rings are mapped
 * first, on CPU-wide dummy events: "Rings before the events" below), set the kernel-side
 * filters, drain the rings merged by time into the decoders, and read what each ring
 * lost.
 *
 *   evsel 0  page-faults (minor)  + side band: MMAP2 (data too), COMM, FORK, EXIT
 *   evsel 1  page-faults (major)
 *   evsel 2+ the tracepoints of rec_tp_names[] (tp.c) this kernel has: filemap / readahead,
 *            memcg:mod_memcg_lruvec_state (kernel refault labels, filtered in the kernel
 *            to the WORKINGSET_* items), syscalls:sys_enter_munmap and mmap:exit_mmap
 *            (UNMAP / FREE), exceptions:page_fault_user (filtered to write and
 *            instruction-fetch faults: the W / X bits of FAULT events)
 *   then     the hardware sampling events of hwsample.c that open here (--sources
 *            hwsample): IP|TID|TIME|ADDR|CPU|DATA_SRC, user-space data addresses become
 *            ACCESS events with source hwsample (on_hwsample())
 *
 * Every evsel uses PERF_SAMPLE_IDENTIFIER (the id says which evsel a sample came from,
 * also for inherited children) and PERF_FORMAT_ID|PERF_FORMAT_LOST (exact loss per ring).
 * Times are CLOCK_MONOTONIC (use_clockid) minus the start time.
 */
/* libperf's tree header first: its struct perf_event_attr is the size libperf copies. */
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libperf_compat.h"
#include "rec_int.h"

/* Records this much older than a drain are all in the rings already (the kernel writes a
 * record microseconds after its timestamp); newer ones wait for the next drain. */
#define MERGE_SLACK_NS 20000000ull

void rec_perf_base_attr(struct perf_event_attr *a, const struct rec *r)
{
	const struct mr_record_opts *o = r->o;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_period = 1;
	a->sample_type = SAMPLE_TYPE;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = 1;
	a->inherit = o->target != MR_TARGET_SYSTEM && o->target != MR_TARGET_CGROUP;
	a->enable_on_exec = o->target == MR_TARGET_COMMAND;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->exclude_kernel = a->exclude_hv = (uint64_t)(r->user_only != 0);
}

static int add_evsel(struct perf_state *ps, struct perf_event_attr *a, int kind)
{
	struct perf_evsel *e = perf_evsel__new(a);

	if (!e)
		return -ENOMEM;
	perf_evlist__add(ps->evlist, e);
	ps->evsel[ps->nevsel] = e;
	ps->kind[ps->nevsel++] = kind;
	return 0;
}

static int redirect(struct perf_state *ps, int pages);

/* Build the evlist for the sources asked for and that exist; open and map it. */
int rec_perf_open(struct rec *r, struct perf_state *ps, int with_tp, const char **step)
{
	const struct mr_record_opts *o = r->o;
	unsigned int src = o->sources;
	struct perf_event_attr a;
	int rc, pages = (int)REC_RING_PAGES(r);

	ps->evlist = perf_evlist__new();
	if (!ps->evlist)
		return -ENOMEM;
	ps->nevsel = 0;

	rec_perf_base_attr(&a, r);
	a.wakeup_watermark = (uint32_t)(pages * r->psize / 2);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = (src & MR_RSRC_FAULTS) ? PERF_COUNT_SW_PAGE_FAULTS_MIN : PERF_COUNT_SW_DUMMY;
	if (src & MR_RSRC_MMAP) {
		a.mmap = 1;
		a.mmap2 = 1;
		a.mmap_data = 1;
		a.comm = 1;
		a.comm_exec = 1;
		a.task = 1;
		/* switch-ins of the traced tasks: MGLRU walks the page tables of an mm only
		 * if one of its tasks ran since the last walk (lru_gen_use_mm() on context
		 * switch), so the replay's aging needs when they ran */
		a.context_switch = 1;
	}
	if ((rc = add_evsel(ps, &a, RK_FAULT_MIN)))
		return rc;
	if (src & MR_RSRC_FAULTS) {
		rec_perf_base_attr(&a, r);
		a.wakeup_watermark = (uint32_t)(pages * r->psize / 2);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
		if ((rc = add_evsel(ps, &a, RK_FAULT_MAJ)))
			return rc;
	}
	for (int t = 0; with_tp && t < RTP_NR; t++) {
		if (!r->tp[t].present || !(src & rec_tp_names[t].source))
			continue;
		rec_perf_base_attr(&a, r);
		a.wakeup_watermark = (uint32_t)(pages * r->psize / 2);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = r->tp[t].id;
		a.sample_type |= PERF_SAMPLE_RAW;
		if ((rc = add_evsel(ps, &a, RK_TP_BASE + t)))
			return rc;
	}
	/* hardware samples are taken in the context of the task that ran the access: scoped
	 * like the faults (cgroup included) */
	for (int i = 0; r->hw_on && i < r->hw.n; i++) {
		if (!r->hw.ev[i].opened)
			continue;
		rec_perf_base_attr(&a, r);
		a.wakeup_watermark = (uint32_t)(pages * r->psize / 2);
		a.sample_type = HW_SAMPLE_TYPE;
		rec_hw_attr(&r->hw.ev[i], &a);
		if ((rc = add_evsel(ps, &a, RK_HW_BASE + i)))
			return rc;
	}
#ifdef MR_LIBPERF_CGROUP_FD
	/* --cgroup in the kernel: every stream but the CPU-wide ones (rec_tp_names[]) */
	for (int e = 0; r->cg_kernel && e < ps->nevsel; e++)
		if (ps->kind[e] < RK_TP_BASE || ps->kind[e] >= RK_HW_BASE ||
		    !rec_tp_names[ps->kind[e] - RK_TP_BASE].cpu_wide)
			perf_evsel__set_cgroup_fd(ps->evsel[e], r->cg_fd);
#endif
	perf_evlist__set_maps(ps->evlist, ps->cpus, ps->threads);
	rc = perf_evlist__open(ps->evlist);
	if (rc < 0) {
		*step = "perf_evlist__open";
		return rc;
	}
	if (ps->rings.ok) {
		ps->rings.why = redirect(ps, pages);
		ps->rings.used = !ps->rings.why;
		if (ps->rings.used)
			return 0;
		/* the rings cannot take these events: map the events' own, as without them */
		rec_rings_close(&ps->rings);
		rec_evlist_delete(ps->evlist);
		ps->evlist = NULL;
		return rec_perf_open(r, ps, with_tp, step);
	}
	errno = 0;
	rc = perf_evlist__mmap(ps->evlist, pages);
	if (rc < 0) {
		*step = "perf_evlist__mmap";
		return rc == -1 ? (errno ? -errno : -EPERM) : rc;
	}
	return 0;
}

/*
 * ---- Rings before the events ----
 *
 * The first task-bound perf event on a host without one waits for an RCU grace period
 * (kernel/events/core.c: account_event() enables perf_sched_events, then
 * synchronize_rcu()), and mapping a ring allocates and zeroes its pages: 7-15 ms and
 * 2-3 ms a ring here, one after the other, before a command can start (docs/record.md,
 * "The fixed cost, step by step"). A CPU-wide event that needs no scheduler hook has no
 * grace period, and a task-bound event may write into the ring of another event on the
 * same CPU with the same clock (PERF_EVENT_IOC_SET_OUTPUT, perf_event_set_output()). So a
 * recording of a command maps one ring per CPU on a disabled CPU-wide dummy event
 * (rec_rings_open(), on a job thread from the start) and redirects every (event, CPU) of
 * the evlist into the ring of its CPU (redirect()), as libperf's perf_evlist__mmap()
 * does into the first event's. The records, their order in a ring and the events are the
 * same; the dummy event produces none. A CPU-wide fd signals no exit (POLLHUP), so the
 * loop polls the command's pidfd beside the rings (rec_perf_poll()). Where any step does
 * not work (no CAP_PERFMON for CPU-wide events, no pidfd, another CPU map, another ring
 * size, a kernel that refuses the redirect) the events map their own rings as before.
 */
pthread_mutex_t rec_fork_lock = PTHREAD_MUTEX_INITIALIZER;

int rec_rings_open(void *arg)
{
#ifdef MR_LIBPERF_EVSEL_FD
	struct rec_rings *g = arg;
	struct perf_event_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.use_clockid = 1; /* the same clock as the events it takes (perf_event_set_output()) */
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1; /* the ring's wakeup is its owner's (rb_alloc()) */
	a.wakeup_watermark = (uint32_t)((uint64_t)g->pages * (uint64_t)g->psize / 2);
	g->ok = 0;
	/* libperf opens without O_CLOEXEC (the events, and the CPU list's sysfs file while
	 * it reads it), and the command may be forked meanwhile (record.c, spawn()): its
	 * exec must not take these fds along */
	pthread_mutex_lock(&rec_fork_lock);
	g->evlist = perf_evlist__new();
	g->cpus = perf_cpu_map__new(NULL);
	g->threads = perf_thread_map__new_dummy(); /* pid -1: CPU-wide */
	if (!g->evlist || !g->cpus || !g->threads || !(g->evsel = perf_evsel__new(&a))) {
		pthread_mutex_unlock(&rec_fork_lock);
		g->why = -ENOMEM;
		g->why_step = "memory";
		return 0;
	}
	perf_evlist__add(g->evlist, g->evsel);
	perf_evlist__set_maps(g->evlist, g->cpus, g->threads);
	rc = perf_evlist__open(g->evlist);
	for (int c = 0; rc >= 0 && c < perf_cpu_map__nr(g->cpus); c++) {
		int fd = perf_evsel__fd(g->evsel, c, 0);

		if (fd >= 0)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_unlock(&rec_fork_lock);
	if (rc < 0) {
		g->why = rc;
		g->why_step = "perf_event_open";
		return 0;
	}
	errno = 0;
	rc = perf_evlist__mmap(g->evlist, g->pages);
	if (rc < 0) {
		g->why = rc == -1 ? (errno ? -errno : -EPERM) : rc;
		g->why_step = "mmap";
		return 0;
	}
	/* what rec_perf_poll() waits on: the rings, then the pidfd (set_targets()) */
	g->npfd = perf_cpu_map__nr(g->cpus) + 1;
	g->pfd = calloc((size_t)g->npfd, sizeof(*g->pfd));
	if (!g->pfd) {
		g->why = -ENOMEM;
		g->why_step = "memory";
		return 0;
	}
	for (int c = 0; c + 1 < g->npfd; c++) {
		g->pfd[c].fd = perf_evsel__fd(g->evsel, c, 0);
		g->pfd[c].events = POLLIN;
	}
	g->pfd[g->npfd - 1].fd = -1;
	g->pfd[g->npfd - 1].events = POLLIN;
	g->ok = 1;
#else
	(void)arg;
#endif
	return 0;
}

void rec_rings_close(struct rec_rings *g)
{
	g->ok = g->used = 0;
	rec_evlist_delete(g->evlist); /* unmaps and closes (libperf_compat.h) */
	g->evlist = NULL;
	g->evsel = NULL;
	perf_cpu_map__put(g->cpus);
	perf_thread_map__put(g->threads);
	g->cpus = NULL;
	g->threads = NULL;
	if (g->pidfd >= 0)
		close(g->pidfd);
	g->pidfd = -1;
	free(g->pfd);
	g->pfd = NULL;
	g->npfd = 0;
}

/* Every (event, CPU, thread) of the evlist into the rings: 0, else -errno with
 * rings.why_step naming what did not fit (the caller then maps the events' own). */
static int redirect(struct perf_state *ps, int pages)
{
#ifdef MR_LIBPERF_EVSEL_FD
	struct rec_rings *g = &ps->rings;
	int ncpu = perf_cpu_map__nr(ps->cpus), nthr = perf_thread_map__nr(ps->threads);

	if (g->pidfd < 0) {
		g->why_step = "no pidfd of the command";
		return -ENOSYS;
	}
	g->why_step = "another ring size or CPU list than the events'";
	if (pages != g->pages || !g->pfd || perf_cpu_map__nr(g->cpus) != ncpu)
		return -EINVAL;
	for (int c = 0; c < ncpu; c++)
		if (perf_cpu_map__cpu(g->cpus, c).cpu != perf_cpu_map__cpu(ps->cpus, c).cpu)
			return -EINVAL;
	g->why_step = "PERF_EVENT_IOC_SET_OUTPUT";
	for (int e = 0; e < ps->nevsel; e++)
		for (int c = 0; c < ncpu; c++) {
			int out = perf_evsel__fd(g->evsel, c, 0);

			for (int t = 0; t < nthr; t++) {
				int fd = perf_evsel__fd(ps->evsel[e], c, t);

				if (out < 0 || fd < 0)
					return -EBADF;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out))
					return -errno;
			}
		}
	g->why_step = NULL;
	ps->rings.pfd[ps->rings.npfd - 1].fd = ps->rings.pidfd;
	return 0;
#else
	(void)ps;
	(void)pages;
	return -ENOTSUP;
#endif
}

void rec_perf_poll(struct perf_state *ps, int ms)
{
#ifdef MR_LIBPERF_EVSEL_FD
	if (ps->rings.used) {
		poll(ps->rings.pfd, (nfds_t)ps->rings.npfd, ms);
		return;
	}
#endif
	perf_evlist__poll(ps->evlist, ms);
}

/*
 * rec_perf_open() failed with a feature on (*feature = 1): try again without it. Returns 0 when
 * that opens (the feature stays off); else the feature is put back on and the events are
 * opened once more, so that the error and the state are those of the feature on.
 */
int rec_perf_open_without(struct rec *r, struct perf_state *ps, int with_tp,
			     const char **step, int *feature)
{
	rec_evlist_delete(ps->evlist);
	ps->evlist = NULL;
	*feature = 0;
	if (rec_perf_open(r, ps, with_tp, step) == 0)
		return 0;
	rec_evlist_delete(ps->evlist);
	ps->evlist = NULL;
	*feature = 1;
	return rec_perf_open(r, ps, with_tp, step);
}

/* id -> evsel kind for every (evsel, cpu, thread). */
int rec_perf_read_ids(struct perf_state *ps)
{
	int ncpu = perf_cpu_map__nr(ps->cpus), nthr = perf_thread_map__nr(ps->threads);

	ps->ids = calloc((size_t)ps->nevsel * ncpu * nthr, sizeof(*ps->ids));
	if (!ps->ids)
		return -ENOMEM;
	for (int e = 0; e < ps->nevsel; e++)
		for (int c = 0; c < ncpu; c++)
			for (int t = 0; t < nthr; t++) {
				struct perf_counts_values cv = { 0 };

				if (perf_evsel__read(ps->evsel[e], c, t, &cv) == 0) {
					ps->ids[ps->nids].id = cv.id;
					ps->ids[ps->nids++].kind = ps->kind[e];
				}
			}
	return 0;
}

int rec_perf_kind(const struct perf_state *ps, uint64_t id)
{
	for (int i = 0; i < ps->nids; i++)
		if (ps->ids[i].id == id)
			return ps->ids[i].kind;
	return -1;
}

/* Time of a record: samples carry it at a fixed offset, side-band records in the
 * sample_id_all trailer. 0 when it has none (processed first). */
static uint64_t record_time(const union perf_event *e)
{
	uint64_t t = 0;

	if (e->header.type == PERF_RECORD_SAMPLE) {
		if (e->header.size >= sizeof(e->header) + SAMPLE_FIXED)
			memcpy(&t, (const char *)e + sizeof(e->header) + 24, 8);
	} else if (e->header.size >= sizeof(e->header) + SIDE_TRAILER) {
		memcpy(&t, (const char *)e + e->header.size - 24, 8);
	}
	return t;
}

/* Append one record to a ring's pending buffer (records are 8-byte multiples). */
static int pend_push(struct rec_pending *q, const union perf_event *e)
{
	size_t need = q->len + e->header.size;

	if (need > q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 65536;
		unsigned char *nd;

		while (ncap < need)
			ncap *= 2;
		nd = realloc(q->data, ncap);
		if (!nd)
			return MR_ENOMEM;
		q->data = nd;
		q->cap = ncap;
	}
	memcpy(q->data + q->len, e, e->header.size);
	q->len = need;
	return 0;
}

/*
 * Copy every ring's records out, then process them merged by time across rings (each
 * ring is time-ordered on its own), so that an exec, fork or mmap seen on one CPU applies
 * before a fault after it on another. Only records older than the drain start minus
 * MERGE_SLACK_NS are processed (a later record of another ring cannot be older than
 * that); the rest wait for the next drain. final: process everything.
 */
int rec_perf_drain(struct rec *r, struct perf_state *ps, uint32_t *ids, int final)
{
	uint64_t horizon = final ? UINT64_MAX : mr_clock_ns() - MERGE_SLACK_NS;
	struct perf_mmap *map;
	union perf_event *e;
	int ring = 0, rc = 0;

	perf_evlist__for_each_mmap(ps->rings.used ? ps->rings.evlist : ps->evlist, map, false) {
		if (ring >= r->nrings)
			break;
		if (perf_mmap__read_init(map) == 0) {
			while ((e = perf_mmap__read_event(map)) != NULL) {
				r->st->samples++;
				if (!rc)
					rc = pend_push(&r->pend[ring], e);
				perf_mmap__consume(map);
			}
			perf_mmap__read_done(map);
		}
		ring++;
	}
	while (!rc) {
		uint64_t best_t = UINT64_MAX;
		int best = -1;

		for (int i = 0; i < r->nrings; i++) {
			struct rec_pending *q = &r->pend[i];
			uint64_t t;

			if (q->head >= q->len)
				continue;
			t = record_time((const union perf_event *)(q->data + q->head));
			if (t <= horizon && (best < 0 || t < best_t)) {
				best = i;
				best_t = t;
			}
		}
		if (best < 0)
			break;
		e = (union perf_event *)(r->pend[best].data + r->pend[best].head);
		r->pend[best].head += e->header.size;
		rc = rec_process(r, ps, best, e, ids);
	}
	for (int i = 0; final && !rc && i < r->nrings; i++)
		rc = rec_flush_refault(r, i);
	for (int i = 0; i < r->nrings; i++) {
		struct rec_pending *q = &r->pend[i];

		if (!q->head)
			continue;
		memmove(q->data, q->data + q->head, q->len - q->head);
		q->len -= q->head;
		q->head = 0;
	}
	return rc;
}

/* Lost samples per ring: PERF_FORMAT_LOST of every (evsel, thread) on that CPU. */
uint64_t rec_perf_ring_lost(struct perf_state *ps, int ring)
{
	int nthr = perf_thread_map__nr(ps->threads);
	uint64_t lost = 0;

	for (int e = 0; e < ps->nevsel; e++)
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values cv = { 0 };

			if (perf_evsel__read(ps->evsel[e], ring, t, &cv) == 0)
				lost += cv.lost;
		}
	return lost;
}

/* Samples of evsel e lost on every ring (PERF_FORMAT_LOST). */
uint64_t rec_perf_evsel_lost(struct perf_state *ps, int e)
{
	int ncpu = perf_cpu_map__nr(ps->cpus), nthr = perf_thread_map__nr(ps->threads);
	uint64_t lost = 0;

	for (int c = 0; c < ncpu; c++)
		for (int t = 0; t < nthr; t++) {
			struct perf_counts_values cv = { 0 };

			if (perf_evsel__read(ps->evsel[e], c, t, &cv) == 0)
				lost += cv.lost;
		}
	return lost;
}

/* Kernel-side filters: memcg items (required), page_fault_user W|X (optional: without it
 * every fault comes twice, still paired right). Returns non-zero when the memcg filter
 * failed (why says so). */
int rec_perf_apply_filters(struct rec *r, struct perf_state *ps, char *why, size_t cap)
{
	char f[256];
	size_t n = 0;
	int rc;

	for (int e = 0; e < ps->nevsel; e++) {
		if (ps->kind[e] == RK_TP_BASE + RTP_MEMCG) {
			for (int k = 0; k < RWS_NR; k++)
				n += (size_t)snprintf(f + n, sizeof(f) - n, "%sitem == %lld",
						      k ? " || " : "", (long long)r->ws_item[k]);
			rc = perf_evsel__apply_filter(ps->evsel[e], f);
			if (rc) {
				snprintf(why, cap, "PERF_EVENT_IOC_SET_FILTER (%.60s...) failed: %.40s",
					 f, strerror(rc < 0 ? -rc : EINVAL));
				return 1;
			}
		} else if (ps->kind[e] == RK_TP_BASE + RTP_PF_USER) {
			snprintf(f, sizeof(f), "error_code & %u", X86_PF_WRITE | X86_PF_INSTR);
			if (perf_evsel__apply_filter(ps->evsel[e], f))
				snprintf(why, cap, "exceptions:page_fault_user without a kernel "
					 "filter (\"%.40s\" refused): every fault is paired", f);
		}
	}
	return 0;
}
