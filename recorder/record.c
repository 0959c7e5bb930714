// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - mr_record_run(): one recording as a list of steps, each below. Until the
 * store exists a failure returns at once; from there on it ends in clean_up().
 *
 *   check_opts()         validate the options, fill in the defaults
 *   init_rec()           the --cgroup filter (cgroup.c), page size, anonymisation key
 *   read_tracepoints()   tracefs: ids and formats of the tracepoints asked for (tp.c)
 *   probe_hw()           which hardware sampling events open here (hwsample.c)
 *   create_store()       the trace store and its writer
 *   set_targets()        every CPU, and the command, the pids' threads or every task
 *   open_events()        the perf events and rings (perf.c), without what fails with
 *                        the rest
 *   add_streams()        a stream per ring, one for the young-bit scans
 *   rec_sources_state()  each source on, or off with the reason (sources.c)
 *   rec_meta_start()     the metadata known at the start (meta.c)
 *   snapshot()           the maps of the processes that exist already
 *   start()              exec the command, or enable the events
 *   record_loop()        drain the rings into the decoders (decode.c), scan, until the end
 *   finish()             the last drain, the loss per ring, the closing metadata, commit
 *   clean_up()           stop the command, free, the stats that come last
 */
#define _GNU_SOURCE
/* libperf's tree header first: its struct perf_event_attr is the size libperf copies. */
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/threadmap.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libperf_compat.h"
#include "rec_int.h"

#define POLL_MS 50

/* Whether any source asked for reads a tracepoint (then tracefs is needed). */
static int tp_wanted(unsigned int sources)
{
	for (int t = 0; t < RTP_NR; t++)
		if (sources & rec_tp_names[t].source)
			return 1;
	return 0;
}

static int swallow(enum libperf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* The message for EACCES/EPERM from perf_event_open: which privilege and the fix. */
static int perm_error(struct mr_error *err, int e, const char *what)
{
	long paranoid = 99;

	rec_read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	return mr_error_set(err, MR_EPERM,
			    "%s: %s; perf_event_paranoid is %ld and this process is %s; "
			    "fix: run as root (or with CAP_PERFMON + CAP_SYS_PTRACE), or "
			    "sysctl kernel.perf_event_paranoid=-1", what, strerror(e), paranoid,
			    geteuid() == 0 ? "root (a seccomp filter or LSM denies perf)" :
					     "not root");
}

/*
 * The kernel refault labels need the memcg tracepoint, the page-cache inserts they attach
 * to, and this kernel's enum node_stat_item values (BTF). Turns RTP_MEMCG off otherwise,
 * with the reason in why.
 */
static void refault_setup(struct rec *r, const char *tracefs_why, char *why, size_t cap)
{
	char bwhy[160];

	for (int k = 0; k < RWS_NR; k++)
		r->ws_item[k] = -1;
	if (!r->tp[RTP_MEMCG].present) {
		if (r->o->sources & MR_RSRC_REFAULT)
			snprintf(why, cap, "memcg:mod_memcg_lruvec_state %s",
				 tracefs_why[0] ? "unreadable (tracefs)" :
				 "not in this kernel (added after 6.12)");
		return;
	}
	if (!r->tp[RTP_ADD].present) {
		r->tp[RTP_MEMCG].present = 0;
		snprintf(why, cap, "filemap:mm_filemap_add_to_page_cache missing: kernel "
			 "refault labels have no page-cache insert to attach to");
		return;
	}
	if (rec_btf_enum_file("/sys/kernel/btf/vmlinux", "node_stat_item", rec_ws_names,
			      RWS_NR, r->ws_item, bwhy, sizeof(bwhy))) {
		r->tp[RTP_MEMCG].present = 0;
		snprintf(why, cap, "cannot resolve the WORKINGSET_* items: %.110s", bwhy);
	}
}

/* Fork the command stopped on a pipe; exec happens when the parent writes to it. */
static int spawn(char *const *argv, int *go_fd, pid_t *out, struct mr_error *err)
{
	int go[2], ex[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return mr_error_set(err, MR_EIO, "pipe: %s", strerror(errno));
	pthread_mutex_lock(&rec_fork_lock); /* no fd half-opened on a job thread comes along */
	pid = fork();
	pthread_mutex_unlock(&rec_fork_lock);
	if (pid < 0)
		return mr_error_set(err, MR_EIO, "fork: %s", strerror(errno));
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	*go_fd = go[1];
	*out = pid;
	return ex[0]; /* read end: exec errno, or EOF on a successful exec */
}

/* One recording: what the steps of mr_record_run() share besides the recorder's state. */
struct run {
	struct mr_record_opts o;	/* the options, defaults filled in */
	struct rec r;
	struct perf_state ps;
	struct rusage ru0;		/* the recorder's own usage at the start */
	uint32_t *ids;			/* MAX_RANGE page ids: the decoders' scratch */
	pid_t child;			/* the command until it is reaped, else 0 */
	int started;			/* the command was let exec (it may have run) */
	int write_failed;		/* the loop stopped on a write error (record_loop) */
	char write_why[MR_ERRMSG_MAX];	/* the writer's message for it */
	int go_fd, ex_fd;		/* spawn()'s pipes while the command runs, else -1 */
	/* work beside this thread (overlap.c): the perf scheduler hooks turned on from the
	 * start (key_fd: the dummy event that did it, or -1), the store created while the
	 * events open */
	struct rec_job key_job, store_job, ring_job;
	int key_fd;
	struct mr_error store_err;	/* create_store()'s message on its thread */
	uint64_t store_ns;		/* create_store()'s own wall time */
};

/* Copy *opts into *o with the defaults filled in; MR_EINVAL for what cannot record. */
static int check_opts(const struct mr_record_opts *opts, struct mr_record_opts *o,
		      struct mr_error *err)
{
	if (!opts || !opts->output)
		return mr_error_set(err, MR_EINVAL, "record: no output path (-o TRACE.db)");
	*o = *opts;
	if (!o->sources)
		o->sources = MR_RSRC_DEFAULT;
	/* soft-dirty resets cost one write-protect fault per page written in an interval;
	 * 100 ms keeps a write visible to the replay's reclaim passes (a cgroup under
	 * pressure reclaims every few ms) at that cost. clear_refs scans walk smaps and
	 * pagemap: 1 s. */
	if (!o->young_interval_ns)
		o->young_interval_ns = o->young == MR_YOUNG_CLEAR_REFS ? 1000000000ull
								      : 100000000ull;
	if (o->ring_pages && (o->ring_pages & (o->ring_pages - 1)))
		return mr_error_set(err, MR_EINVAL, "ring size %u pages is not a power of two",
				    o->ring_pages);
	if (o->target == MR_TARGET_COMMAND && (!o->argv || !o->argv[0]))
		return mr_error_set(err, MR_EINVAL, "no command to run (-- COMMAND ARGS...)");
	if (o->target == MR_TARGET_PIDS && (!o->pids || o->n_pids <= 0))
		return mr_error_set(err, MR_EINVAL, "no process ids (-p PID)");
	return 0;
}

/* The recorder's state: the --cgroup filter, page size, anonymisation key; MR_EINVAL
 * for a --cgroup that is not a cgroup directory. */
static int init_rec(struct run *run, struct mr_record_stats *stats, struct mr_error *err)
{
	struct rec *r = &run->r;

	r->cg_fd = -1;
	r->memcg_root = -2;
	if (run->o.target == MR_TARGET_CGROUP && rec_cgroup_set(r, run->o.cgroup, err))
		return MR_EINVAL;
	r->o = &run->o;
	r->err = err;
	r->st = stats;
	r->psize = sysconf(_SC_PAGESIZE);
	for (r->pshift = 0; (1L << r->pshift) < r->psize; r->pshift++)
		;
	if (getrandom(&r->anon_key, sizeof(r->anon_key), 0) != sizeof(r->anon_key))
		r->anon_key = mr_clock_ns() * 0x9e3779b97f4a7c15ULL;
	libperf_init(swallow);
	getrusage(RUSAGE_SELF, &run->ru0);
	return 0;
}

/* Tracepoints: ids and layouts from tracefs (mounted privately for the setup when the
 * host has none mounted, see tp.c), and whether the kernel refault labels can be had. */
static int read_tracepoints(struct rec *r, struct mr_error *err)
{
	const struct mr_record_opts *o = r->o;
	int rc;

	if (tp_wanted(o->sources)) {
		struct rec_tracefs tf;

		if (rec_tracefs_enter(&tf))
			snprintf(r->tracefs_why, sizeof(r->tracefs_why), "%s", tf.how);
		for (int t = 0; tf.path[0] && t < RTP_NR; t++) {
			if (!(o->sources & rec_tp_names[t].source))
				continue;
			r->tp_why[t] = -rec_tp_load(&r->tp[t], tf.path, rec_tp_names[t].sys,
						    rec_tp_names[t].name, rec_tp_names[t].need);
			r->with_tp |= r->tp[t].present;
		}
		snprintf(r->st->tracefs, sizeof(r->st->tracefs), "%s", tf.how);
		rc = rec_tracefs_leave(&tf);
		if (rc)
			return mr_error_set(err, MR_EIO, "returning to the host's mount namespace "
					    "after reading tracefs failed: %s", strerror(-rc));
	} else {
		snprintf(r->st->tracefs, sizeof(r->st->tracefs), "not needed (--sources)");
	}
	refault_setup(r, r->tracefs_why, r->refault_why, sizeof(r->refault_why));
	return 0;
}

/* Hardware sampling: which events open here, each alone on this thread (an option error
 * stops before the store is created). */
static int probe_hw(struct rec *r, struct mr_error *err)
{
	struct perf_event_attr ha;
	int rc;

	if (!(r->o->sources & MR_RSRC_HWSAMPLE))
		return 0;
	rec_perf_base_attr(&ha, r);
	ha.sample_type = HW_SAMPLE_TYPE;
	rc = rec_hw_setup(&r->hw, r->o->hw_events, r->o->hw_period, &ha, r->hw_why,
			  sizeof(r->hw_why));
	if (rc < 0) {
		if (r->cg_fd >= 0) /* rec_cgroup_set() opened it for the perf open */
			close(r->cg_fd);
		return mr_error_set(err, rc, "%s", r->hw_why);
	}
	r->hw_on = rc > 0;
	return 0;
}

/* The trace store at opts->output and its writer. */
static int create_store(struct rec *r, struct mr_error *err)
{
	int rc = mr_store_create(r->o->output, r->o->overwrite, &r->store, err);

	if (rc)
		return rc;
	return mr_writer_create(r->store, NULL, &r->w, err);
}

/* create_store() as a job (beside set_targets() and open_events()): arg is the run. */
static int store_job(void *arg)
{
	struct run *run = arg;
	uint64_t t = mr_clock_ns();
	int rc = create_store(&run->r, &run->store_err);

	run->store_ns = mr_clock_ns() - t;
	return rc;
}

/* The dummy event of rec_sched_key_open() is no longer needed once the recorder's events
 * are open (or could not be): close it. Idempotent. */
static void release_key(struct run *run)
{
	rec_job_wait(&run->key_job);
	if (run->key_fd >= 0)
		close(run->key_fd);
	run->key_fd = -1;
}

/* The rings of rec_rings_open() (perf.c): waited for, unmapped, closed. Idempotent. */
static void release_rings(struct run *run)
{
	rec_job_wait(&run->ring_job);
	rec_rings_close(&run->ps.rings);
}

/* Every CPU, and the threads to follow: the command (forked, stopped before exec), the
 * threads of each pid, or every task (-a, --cgroup). */
static int set_targets(struct run *run, struct mr_error *err)
{
	const struct mr_record_opts *o = &run->o;
	struct perf_state *ps = &run->ps;

	ps->cpus = perf_cpu_map__new(NULL);
	if (!ps->cpus)
		return mr_error_set(err, MR_ENOMEM, "perf_cpu_map__new failed");
	if (o->target == MR_TARGET_COMMAND) {
		run->ex_fd = spawn(o->argv, &run->go_fd, &run->child, err);
		if (run->ex_fd < 0)
			return run->ex_fd;
#ifdef SYS_pidfd_open
		/* polled beside the rings of CPU-wide events, which signal no exit (perf.c,
		 * "Rings before the events"); without one the events map their own */
		ps->rings.pidfd = (int)syscall(SYS_pidfd_open, run->child, 0);
#endif
		ps->threads = perf_thread_map__new_dummy();
		if (ps->threads)
			perf_thread_map__set_pid(ps->threads, 0, run->child);
	} else if (o->target == MR_TARGET_PIDS) {
		pid_t *tids = NULL;
		int n = 0, cap = 0;

		for (int i = 0; i < o->n_pids; i++) {
			char path[64];
			struct dirent *d;
			DIR *dir;

			snprintf(path, sizeof(path), "/proc/%d/task", o->pids[i]);
			dir = opendir(path);
			if (!dir) {
				free(tids);
				return mr_error_set(err, MR_ENOENT, "process %d: %s", o->pids[i],
						    strerror(errno));
			}
			while ((d = readdir(dir))) {
				if (d->d_name[0] < '0' || d->d_name[0] > '9')
					continue;
				if (n == cap) {
					pid_t *nt = realloc(tids, (size_t)(cap = cap ? cap * 2 : 16) *
								  sizeof(*nt));
					if (!nt)
						break;
					tids = nt;
				}
				tids[n++] = atoi(d->d_name);
			}
			closedir(dir);
		}
		ps->threads = perf_thread_map__new_array(n, tids);
		free(tids);
	} else {
		ps->threads = perf_thread_map__new_dummy(); /* pid -1: every task */
	}
	if (!ps->threads)
		return mr_error_set(err, MR_ENOMEM, "perf_thread_map failed");
	return 0;
}

/* The message for rec_perf_open()'s -errno rc at step. */
static int open_error(struct mr_error *err, int rc, const char *step, const struct rec *r)
{
	if (rc == -ENOMEM || (rc == -EPERM && !strcmp(step, "perf_evlist__mmap")))
		return mr_error_set(err, MR_EPERM, "%s: %s; the rings (%u pages per CPU) "
				    "exceed the locked-memory limit; fix: smaller "
				    "--ring-size, or sysctl kernel.perf_event_mlock_kb, or "
				    "run as root", step, strerror(-rc), REC_RING_PAGES(r));
	if (rc == -EACCES || rc == -EPERM)
		return perm_error(err, -rc, step);
	return mr_error_set(err, MR_EIO, "%s: %s", step, strerror(-rc));
}

/*
 * The ring size that fits what an unprivileged user may lock for perf rings:
 * perf_event_mlock_kb per CPU (kernel/events/core.c: perf_mmap(), user_lock_limit), one
 * header page and a power of two of data pages. 0 when that is below 8 data pages.
 */
static uint32_t ring_fit(const struct rec *r)
{
	long kb = 0;
	uint64_t pages;
	uint32_t fit = 1;

	if (rec_read_int_file("/proc/sys/kernel/perf_event_mlock_kb", &kb) || kb <= 0)
		return 0;
	pages = (uint64_t)kb * 1024 / (uint64_t)r->psize;
	if (pages < 9)
		return 0;
	while ((uint64_t)fit * 2 <= pages - 1)
		fit *= 2;
	return fit >= 8 && fit < REC_RING_PAGES(r) ? fit : 0;
}

/*
 * Open and map the events. What fails with the rest is dropped when the others open
 * without it (the hardware events, the kernel's cgroup scope, the refault labels without
 * their filter, the tracepoints), and the source says why.
 */
static int open_events(struct run *run, struct mr_error *err)
{
	struct rec *r = &run->r;
	struct perf_state *ps = &run->ps;
	const char *step = "";
	int rc;

	rec_job_wait(&run->ring_job);
	rc = rec_perf_open(r, ps, r->with_tp, &step);
	if (rc < 0 && r->hw_on) {
		/* the hardware events opened alone; with the rest (inherit, the cgroup
		 * scope, the shared rings) they may not: record without them when that is
		 * what failed */
		const char *hw_step = step;
		int hw_rc = rc;

		rc = rec_perf_open_without(r, ps, r->with_tp, &step, &r->hw_on);
		if (rc == 0)
			snprintf(r->hw_open_why, sizeof(r->hw_open_why), "the hardware events "
				 "open alone but not with the other streams: %s at %s (%s); the "
				 "software sources continue", strerrorname_np(-hw_rc) ?
				 strerrorname_np(-hw_rc) : "?", hw_step, strerror(-hw_rc));
	}
	if (rc < 0 && r->cg_kernel) {
		/* the kernel refused the cgroup scope (a LSM, an odd cgroup): filter in user
		 * space when the same events open without it; else the error is another */
		const char *cg_step = step;
		int cg_rc = rc;

		rc = rec_perf_open_without(r, ps, r->with_tp, &step, &r->cg_kernel);
		if (rc == 0)
			snprintf(r->cg_how, sizeof(r->cg_how), "in user space (every task "
				 "sampled): perf_event_open(PERF_FLAG_PID_CGROUP) failed: %s at %s",
				 strerror(-cg_rc), cg_step);
	}
	if (rc == 0 && r->with_tp &&
	    rec_perf_apply_filters(r, ps, r->filter_why, sizeof(r->filter_why))) {
		/* the refault labels without their filter would be every memcg stat update */
		rec_evlist_delete(ps->evlist);
		ps->evlist = NULL;
		r->tp[RTP_MEMCG].present = 0;
		snprintf(r->refault_why, sizeof(r->refault_why), "%s", r->filter_why);
		rc = rec_perf_open(r, ps, r->with_tp, &step);
		if (rc == 0)
			rec_perf_apply_filters(r, ps, r->filter_why, sizeof(r->filter_why));
	}
	if (rc < 0 && r->with_tp && (rc == -EACCES || rc == -EPERM || rc == -ENOENT ||
				     rc == -EINVAL)) {
		/* tracepoints denied: record the rest */
		snprintf(r->tracefs_why, sizeof(r->tracefs_why), "tracepoint events cannot be "
			 "opened: %s; fix: run as root", strerror(-rc));
		rec_evlist_delete(ps->evlist);
		ps->evlist = NULL;
		r->with_tp = 0;
		for (int t = 0; t < RTP_NR; t++)
			r->tp[t].present = 0;
		rc = rec_perf_open(r, ps, 0, &step);
	}
	if ((rc == -EACCES || rc == -EPERM) && !strcmp(step, "perf_evlist__open")) {
		/* perf_event_paranoid 2 lets a user without CAP_PERFMON sample its own tasks
		 * in user mode only (kernel/events/core.c: perf_allow_kernel()), as the perf
		 * tool does: faults, maps, tasks and switches of the command still come */
		rec_evlist_delete(ps->evlist);
		ps->evlist = NULL;
		r->user_only = 1;
		rc = rec_perf_open(r, ps, r->with_tp, &step);
		if (rc < 0 && rc != -EPERM)
			r->user_only = 0; /* the error to report is the first one's kind */
	}
	if (rc == -EPERM && !strcmp(step, "perf_evlist__mmap") && !run->o.ring_pages &&
	    (r->ring_fit = ring_fit(r))) {
		/* the default rings exceed what an unprivileged user may lock: the largest
		 * that fits (a --ring-size given is kept, and its error reported) */
		rec_evlist_delete(ps->evlist);
		ps->evlist = NULL;
		rc = rec_perf_open(r, ps, r->with_tp, &step);
		if (rc < 0)
			r->ring_fit = 0;
	}
	if (r->cg_fd >= 0) {
		close(r->cg_fd); /* the events hold the cgroup now */
		r->cg_fd = -1;
	}
	if (rc < 0)
		return open_error(err, rc, step, r);
	if (rec_perf_read_ids(ps))
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	return 0;
}

/* Streams: one per ring, then the young-bit scans; and the decoders' buffers. */
static int add_streams(struct run *run, struct mr_error *err)
{
	struct rec *r = &run->r;
	struct perf_cpu_map *cpus = run->ps.cpus;

	r->nrings = perf_cpu_map__nr(cpus);
	r->ring_stream = calloc((size_t)r->nrings, sizeof(*r->ring_stream));
	r->ring_last = calloc((size_t)r->nrings, sizeof(*r->ring_last));
	r->pend = calloc((size_t)r->nrings, sizeof(*r->pend));
	r->rs = calloc((size_t)r->nrings, sizeof(*r->rs));
	run->ids = calloc(MAX_RANGE, sizeof(*run->ids));
	r->held = calloc(REC_HELD_MAX, sizeof(*r->held));
	if (!r->ring_stream || !r->ring_last || !r->pend || !r->rs || !run->ids || !r->held)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (int i = 0; i < r->nrings; i++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%d", perf_cpu_map__cpu(cpus, i).cpu);
		mr_writer_add_stream(r->w, name, "perf", perf_cpu_map__cpu(cpus, i).cpu,
				     &r->ring_stream[i]);
	}
	mr_writer_add_stream(r->w, "young", "scan", -1, &r->young_stream);
	r->st->nrings = r->nrings;
	return 0;
}

/* Snapshot what exists already: the start time, the command's task, and the maps of the
 * processes followed (their threads too for -p: the mm ends when the last one exits). */
static void snapshot(struct run *run)
{
	const struct mr_record_opts *o = &run->o;
	struct rec *r = &run->r;

	r->t0 = mr_clock_ns();
	if (o->target == MR_TARGET_COMMAND)
		rec_task_get(r, run->child, run->child, 0); /* its cgroup, while it surely exists */
	if (!(o->sources & MR_RSRC_MMAP))
		return;
	if (o->target == MR_TARGET_PIDS) {
		for (int i = 0; i < o->n_pids; i++) {
			uint32_t task = rec_task_get(r, o->pids[i], o->pids[i], 0);
			char path[64];
			struct dirent *d;
			DIR *dir;

			if (task)
				rec_maps_snapshot(r, o->pids[i], r->tasks[task].mm, 0,
						  r->ring_stream[0], &r->ring_last[0]);
			/* every thread known: the mm ends when the last one exits */
			snprintf(path, sizeof(path), "/proc/%d/task", o->pids[i]);
			dir = opendir(path);
			while (dir && (d = readdir(dir)))
				if (atoi(d->d_name) > 0)
					rec_task_get(r, o->pids[i], atoi(d->d_name), 0);
			if (dir)
				closedir(dir);
		}
	} else if (o->target == MR_TARGET_SYSTEM || o->target == MR_TARGET_CGROUP) {
		DIR *dir = opendir("/proc");
		struct dirent *d;

		while (dir && (d = readdir(dir))) {
			int pid = atoi(d->d_name);
			uint32_t task;

			if (pid <= 0 || pid == getpid() || !rec_in_scope(r, pid))
				continue;
			task = rec_task_get(r, pid, pid, 0);
			if (task)
				rec_maps_snapshot(r, pid, r->tasks[task].mm, 0,
						  r->ring_stream[0], &r->ring_last[0]);
		}
		if (dir)
			closedir(dir);
	}
}

/* Start: let the command exec (its events enable on exec), else enable the events; then
 * tell the caller (on_start). MR_ENOENT when the command cannot be run. */
static int start(struct run *run, struct mr_error *err)
{
	const struct mr_record_opts *o = &run->o;
	int e = 0;
	ssize_t n;

	if (o->target != MR_TARGET_COMMAND) {
		perf_evlist__enable(run->ps.evlist);
		if (o->on_start)
			o->on_start(o->ctx, 0);
		return 0;
	}
	if (o->on_start)
		o->on_start(o->ctx, run->child);
	if (write(run->go_fd, "g", 1) != 1)
		return mr_error_set(err, MR_EIO, "cannot start the command: %s",
				    strerror(errno));
	run->started = 1;
	n = read(run->ex_fd, &e, sizeof(e));
	if (n == sizeof(e)) {
		waitpid(run->child, NULL, 0);
		run->child = 0;
		return mr_error_set(err, MR_ENOENT, "cannot run '%s': %s", o->argv[0],
				    strerror(e));
	}
	return 0;
}

/*
 * The main loop: drain the rings every POLL_MS, scan the young bits and sample NUMA
 * nodes every interval, until the command exits (one more drain after that), the pids
 * are gone, the duration passes or *stop turns non-zero. Returns 0 or a write error.
 */
static int record_loop(struct run *run)
{
	const struct mr_record_opts *o = &run->o;
	struct rec *r = &run->r;
	uint64_t t_end, next_young;
	int rc = 0, exited = 0;

	t_end = o->duration_ns ? r->t0 + o->duration_ns : UINT64_MAX;
	next_young = r->t0 + o->young_interval_ns;
	/* Existing processes: clear first, the first interval starts now. A command's
	 * first interval starts at its exec (a fresh address space); clearing here could
	 * race with its first accesses. */
	if (r->young_on && o->target != MR_TARGET_COMMAND)
		rec_young_scan(r, 0);
	for (;;) {
		uint64_t now;

		rec_perf_poll(&run->ps, POLL_MS);
		rc = rec_perf_drain(r, &run->ps, run->ids, 0);
		if (rc)
			break;
		now = mr_clock_ns();
		if (exited || (o->stop && *o->stop) || now >= t_end)
			break;
		if (run->child) {
			int status;

			if (waitpid(run->child, &status, WNOHANG) == run->child) {
				r->st->cmd_status = status;
				run->child = 0;
				exited = 1; /* one more drain for what it left in the rings */
			}
		} else if (o->target == MR_TARGET_PIDS) {
			int alive = 0;

			for (int i = 0; i < o->n_pids; i++)
				alive |= kill(o->pids[i], 0) == 0 || errno == EPERM;
			if (!alive)
				exited = 1;
		}
		if (now >= next_young) {
			next_young = now + o->young_interval_ns;
			if (r->young_on && (rc = rec_young_scan(r, rel_time(r, now))))
				break;
			if (o->sources & MR_RSRC_NUMA)
				rec_numa_sample(r);
		}
	}
	return rc;
}

/*
 * Finish after the loop ended with rc: the last drain, the labels left unclaimed, the
 * loss per ring (exact, PERF_FORMAT_LOST; a LOST event where there was some), the
 * closing metadata, and the writer's last commit unless writing failed.
 */
static int finish(struct run *run, int rc, struct mr_error *err)
{
	struct rec *r = &run->r;
	struct mr_record_stats *stats = r->st;

	/* Stop sampling at once: after a write error nothing more can be stored, and the
	 * recorded tasks must not keep paying for samples no one reads. */
	perf_evlist__disable(run->ps.evlist);
	if (rc)
		run->write_failed = 1;
	else
		rc = rec_perf_drain(r, &run->ps, run->ids, 1);
	if (rc) {
		const struct mr_error *we = mr_writer_error(r->w);

		snprintf(run->write_why, sizeof(run->write_why), "%s", we && we->msg[0] ?
			 we->msg : mr_strerror(rc));
		rc = mr_error_set(err, rc, "writing %s failed: %s", run->o.output,
				  run->write_why);
	}

	/* inserts still held for a fault that never came */
	if (!rc && (rc = rec_pend_flush_all(r))) {
		snprintf(run->write_why, sizeof(run->write_why), "%s",
			 mr_writer_error(r->w)->msg[0] ? mr_writer_error(r->w)->msg :
			 mr_strerror(rc));
		rc = mr_error_set(err, rc, "writing %s failed: %s", run->o.output,
				  run->write_why);
	}

	/* anon refault labels no major fault claimed before the end */
	for (uint32_t t = 1; t < r->ntasks; t++)
		if (r->tasks[t].sw_labels)
			rec_drop_swapin(r, t);

	/* Loss per ring, exact (PERF_FORMAT_LOST). */
	for (int i = 0; i < r->nrings; i++) {
		uint64_t lost = rec_perf_ring_lost(&run->ps, i);

		stats->lost += lost;
		mr_writer_set_lost(r->w, r->ring_stream[i], lost);
		if (lost && !rc) {
			struct mr_event ev = { .time = r->ring_last[i], .kind = MR_EV_LOST,
					       .page = MR_PAGE_NONE, .size = r->ring_stream[i],
					       .arg = lost };

			rec_emit(r, r->ring_stream[i], &r->ring_last[i], &ev);
		}
	}
	rec_meta_end(r, &run->ps);
	stats->young_scans = r->young_seq;
	if (!rc) {
		rc = mr_writer_finish(r->w);
		/* MR_EBUSY: every event is committed, only the switch out of WAL mode
		 * waits for another reader; not a write failure */
		if (rc && rc != MR_EBUSY)
			snprintf(run->write_why, sizeof(run->write_why), "%s",
				 mr_writer_error(r->w)->msg);
		if (rc)
			rc = mr_error_set(err, rc, "finishing %s failed: %s", run->o.output,
					  mr_writer_error(r->w)->msg);
	}
	return rc;
}

/*
 * Drop the perf events without waiting for the kernel to unregister them. Closing the
 * last event of a tracepoint waits for an RCU grace period under event_mutex
 * (kernel/trace/trace_event_perf.c: perf_trace_destroy() -> perf_trace_event_unreg() ->
 * tracepoint_synchronize_unregister()), one tracepoint after the other even from
 * several threads: 20-30 ms each here, 0.23 s for the default sources' eleven
 * tracepoints, most of what `record -- /bin/true` cost. The events are disabled and
 * their rings drained by now; a grandchild holding a copy of every descriptor lets the
 * recorder's own close be a reference drop, then closes them itself (the kernel does the
 * waiting there) and exits, reparented to init, never a child the caller could reap.
 * Its standard streams go to /dev/null so a pipe reading the recorder's output ends
 * when the recorder does. Where the fork fails the events are closed here.
 */
static void drop_events(struct perf_evlist *evlist)
{
	int go[2];
	pid_t pid;

	if (!evlist)
		return;
	if (pipe2(go, O_CLOEXEC) < 0) {
		rec_evlist_delete(evlist);
		return;
	}
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		char c;

		for (int fd = 0; fd < 3; fd++)
			dup2(nul, fd);
		if (fork() != 0)
			_exit(0);
		close(go[1]);
		/* until the recorder has dropped its references: then these are the last */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		close_range(3, ~0U, 0);
		_exit(0);
	}
	close(go[0]);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	rec_evlist_delete(evlist);
	close(go[1]);
}

/* Clean up after the recording ended with rc (the command is killed if it still runs)
 * and fill in the stats that come last: the store's size, the recorder's CPU and wall
 * time. */
static void clean_up(struct run *run, int rc)
{
	struct rec *r = &run->r;
	struct mr_record_stats *stats = r->st;
	struct rusage ru1;

	if (run->child > 0 && run->write_failed) {
		int status;
		pid_t p;

		/* Writing failed under a running command: the recorder must never harm what
		 * it records. Close the perf events (they and their inherited copies in the
		 * command's children go: no more sampling cost, no rings to fill) and wait
		 * for the command to end on its own, however long it runs. */
		rec_evlist_delete(run->ps.evlist);
		run->ps.evlist = NULL;
		release_rings(run); /* their pages too (perf.c) */
		while ((p = waitpid(run->child, &status, 0)) < 0 && errno == EINTR)
			;
		if (p == run->child)
			stats->cmd_status = status;
	} else if (run->child > 0) {
		int status;

		/* Still running when the recording stops (signal, --duration, a setup
		 * error): the command does not outlive its recording. SIGKILL only for one
		 * that never exec'd (it waits on the go pipe); one that runs is asked. */
		kill(run->child, run->started ? SIGTERM : SIGKILL);
		if (waitpid(run->child, &status, 0) == run->child)
			stats->cmd_status = status;
	}
	if (r->w) {
		struct mr_writer_stats ws;

		mr_writer_get_stats(r->w, &ws);
		stats->kept_events = ws.events; /* counted per committed chunk */
		stats->kept_chunks = ws.chunks;
	}
	/* any write failure: the command was never stopped for it (left running, or it
	 * had ended, or it was stopped as asked: signal, --duration) */
	stats->write_failed = run->write_why[0] != 0;
	if (run->go_fd >= 0)
		close(run->go_fd);
	if (run->ex_fd >= 0)
		close(run->ex_fd);
	if (r->cg_fd >= 0)
		close(r->cg_fd);
	if (r->w) {
		struct mr_writer_stats ws;

		mr_writer_get_stats(r->w, &ws);
		stats->bytes_written = ws.stored_bytes;
	}
	drop_events(run->ps.evlist);
	release_rings(run);
	perf_thread_map__put(run->ps.threads);
	perf_cpu_map__put(run->ps.cpus);
	free(run->ps.ids);
	mr_writer_destroy(r->w);
	if (r->store) {
		struct stat sb;
		char wal[4200];

		mr_store_close(r->store);
		if (stat(run->o.output, &sb) == 0)
			stats->file_bytes = (uint64_t)sb.st_size;
		snprintf(wal, sizeof(wal), "%s-wal", run->o.output);
		if (stat(wal, &sb) == 0)
			stats->file_bytes += (uint64_t)sb.st_size;
	}
	getrusage(RUSAGE_SELF, &ru1);
	stats->cpu_ns = (uint64_t)((ru1.ru_utime.tv_sec - run->ru0.ru_utime.tv_sec +
				    ru1.ru_stime.tv_sec - run->ru0.ru_stime.tv_sec) * 1000000000ll +
				   (ru1.ru_utime.tv_usec - run->ru0.ru_utime.tv_usec +
				    ru1.ru_stime.tv_usec - run->ru0.ru_stime.tv_usec) * 1000ll);
	stats->wall_ns = r->t0 ? mr_clock_ns() - r->t0 : 0;
	free(run->ids);
	free(r->ring_stream);
	free(r->ring_last);
	for (int i = 0; r->pend && i < r->nrings; i++)
		free(r->pend[i].data);
	free(r->pend);
	free(r->held);
	free(r->rs);
	rec_ids_free(r);
	rec_htab_free(&r->scope_ix);
}

const char *mr_record_phase_name(enum mr_record_phase ph)
{
	static const char *const names[MR_RECORD_NPHASES] = {
		"setup", "store", "open", "prepare", "start", "loop", "finish", "teardown",
	};

	return (unsigned int)ph < MR_RECORD_NPHASES ? names[ph] : NULL;
}

/* Close phase ph at now: its wall time since *t, and *t moves on. */
static void phase_end(struct mr_record_stats *stats, enum mr_record_phase ph, uint64_t *t)
{
	uint64_t now = mr_clock_ns();

	stats->phase_ns[ph] = now - *t;
	*t = now;
}

int mr_record_run(const struct mr_record_opts *opts, struct mr_record_stats *stats,
		  struct mr_error *err)
{
	struct mr_record_stats st_local;
	struct run run = { .go_fd = -1, .ex_fd = -1, .key_fd = -1, .ps.rings.pidfd = -1 };
	struct rec *r = &run.r;
	uint64_t t = mr_clock_ns();
	int rc, src;

	if (!stats)
		stats = &st_local;
	memset(stats, 0, sizeof(*stats));
	stats->cmd_status = -1;

	/* Until the store exists, a failure returns at once. */
	rc = check_opts(opts, &run.o, err);		/* validate the options */
	if (!rc) /* the kernel's wait for its perf hooks, beside the setup (overlap.c) */
		rec_job_start(&run.key_job, rec_sched_key_open, &run.key_fd);
	if (!rc)
		rc = init_rec(&run, stats, err);	/* --cgroup filter, page size, key */
	if (!rc && run.o.target == MR_TARGET_COMMAND) {
		run.ps.rings.pages = (int)REC_RING_PAGES(r);
		run.ps.rings.psize = (int)r->psize;
		rec_job_start(&run.ring_job, rec_rings_open, &run.ps.rings);
	}
	if (!rc)
		rc = read_tracepoints(r, err);		/* tracefs: ids and formats */
	if (!rc)
		rc = probe_hw(r, err);			/* which hardware events open */
	phase_end(stats, MR_RECORD_PH_SETUP, &t);
	if (rc) {
		release_key(&run);
		release_rings(&run);
		return rc;
	}

	/*
	 * The store is created on a thread of its own while the command is forked and the
	 * events open: both wait on the kernel (the store on its file system, the events on
	 * perf_sched_mutex, IPIs and the rings' page allocation), not on each other. Its
	 * error comes first, as when it was created first.
	 */
	rec_job_start(&run.store_job, store_job, &run);	/* the trace store and writer */
	rc = set_targets(&run, err);			/* command, pids, cgroup or all */
	if (!rc)
		rc = open_events(&run, err);		/* the perf events and rings */
	release_key(&run);
	src = rec_job_wait(&run.store_job);
	stats->phase_ns[MR_RECORD_PH_STORE] = run.store_ns;
	phase_end(stats, MR_RECORD_PH_OPEN, &t);
	if (src) {
		if (err)
			*err = run.store_err;
		rc = src;
	}
	if (rc)
		goto out;
	rc = add_streams(&run, err);			/* a stream per ring, young's */
	if (rc)
		goto out;
	rec_sources_state(r);				/* each source: on, or why not */
	rec_meta_start(r);				/* the metadata known now */
	snapshot(&run);					/* the maps that exist already */
	phase_end(stats, MR_RECORD_PH_PREPARE, &t);
	rc = start(&run, err);				/* exec the command, or enable */
	phase_end(stats, MR_RECORD_PH_START, &t);
	if (rc)
		goto out;
	rc = record_loop(&run);				/* drain and scan until the end */
	phase_end(stats, MR_RECORD_PH_LOOP, &t);
	rc = finish(&run, rc, err);			/* last drain, loss, metadata */
	phase_end(stats, MR_RECORD_PH_FINISH, &t);
out:
	clean_up(&run, rc);				/* stop the command, free, stats */
	phase_end(stats, MR_RECORD_PH_TEARDOWN, &t);
	if (rc && r->store && !stats->kept_chunks) {
		/* Failed before committing any event: an empty store would only block a
		 * retry to the same path ("already exists"), so it goes. */
		mr_store_remove(run.o.output);
		stats->store_removed = 1;
	}
	if (rc && run.write_why[0]) {
		/* Say everything the caller must know in one message: what failed, what is
		 * kept, and that what was recorded was left alone. */
		const char *who = run.o.target == MR_TARGET_COMMAND ?
			"the command was left running to its end undisturbed and waited for" :
			"the processes recorded were left running undisturbed";
		char kept[128];

		if (stats->store_removed)
			snprintf(kept, sizeof(kept), "kept: 0 events in 0 chunks (nothing was "
				 "committed: no store is left)");
		else
			snprintf(kept, sizeof(kept), "kept: %llu events in %llu chunks, readable",
				 (unsigned long long)stats->kept_events,
				 (unsigned long long)stats->kept_chunks);
		if (!run.write_failed) /* the recording had ended: finishing the store failed */
			rc = mr_error_set(err, rc, "finishing %s failed: %.320s; the recording had "
					  "ended; %s", run.o.output, run.write_why, kept);
		else
			rc = mr_error_set(err, rc, "writing %s failed: %.320s; recording stopped, "
					  "its perf events closed, %s; %s", run.o.output, run.write_why,
					  who, kept);
	}
	return rc;
}
