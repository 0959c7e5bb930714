// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - mr_record_run(): open the perf sources (perf.c), drain the rings into the
 * store writer, run the periodic scanners, and write the metadata a replay depends on.
 */
#define _GNU_SOURCE
/* libperf's tree header first: its struct perf_event_attr is the size libperf copies. */
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include <numa.h>

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
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
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

/* Source name (static) is on, or off, with the reason fmt (NULL: none). */
static void src_vset(struct mr_record_stats *st, const char *name, int on, const char *fmt,
		     va_list ap)
{
	struct mr_record_source_state *s = NULL;

	for (int i = 0; i < st->nsrc; i++)
		if (!strcmp(st->src[i].name, name))
			s = &st->src[i];
	if (!s) {
		if (st->nsrc >= MR_RECORD_NSOURCES)
			return;
		s = &st->src[st->nsrc++];
	}
	s->name = name;
	s->on = on;
	s->why[0] = '\0';
	if (fmt) {
		int n;

		n = vsnprintf(s->why, sizeof(s->why), fmt, ap);
		/* MR_RECORD_WHY_MAX is sized for the longest reason (mr_recorder.h) */
		MR_WARN_ON_ONCE(n < 0 || (size_t)n >= sizeof(s->why));
	}
}

/* The state of a source that is no --sources name ("munmap", "cgroup"). */
static void src_set(struct mr_record_stats *st, const char *name, int on, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void src_set(struct mr_record_stats *st, const char *name, int on, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	src_vset(st, name, on, fmt, ap);
	va_end(ap);
}

/* The state of the --sources source of bit (MR_RSRC_*), by its name in sources.c. */
static void src_bit(struct mr_record_stats *st, unsigned int bit, int on, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void src_bit(struct mr_record_stats *st, unsigned int bit, int on, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	src_vset(st, mr_record_source_name(bit), on, fmt, ap);
	va_end(ap);
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
	pid = fork();
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

int mr_record_run(const struct mr_record_opts *opts, struct mr_record_stats *stats,
		  struct mr_error *err)
{
	struct mr_record_stats st_local;
	struct mr_record_opts o;
	struct perf_state ps = { 0 };
	struct rec r = { 0 };
	struct rusage ru0, ru1;
	uint32_t *ids = NULL;
	pid_t child = 0;
	int go_fd = -1, ex_fd = -1, rc = 0, with_tp = 0, exited = 0;
	uint64_t t_end, next_young;
	const char *step = "";
	char tracefs_why[sizeof(stats->tracefs)] = "", refault_why[160] = "";
	char filter_why[160] = "", hw_why[MR_RECORD_HW_WHY] = "", hw_open_why[256] = "";
	int tp_why[RTP_NR] = { 0 };

	if (!stats)
		stats = &st_local;
	memset(stats, 0, sizeof(*stats));
	stats->cmd_status = -1;
	if (!opts || !opts->output)
		return mr_error_set(err, MR_EINVAL, "record: no output path (-o TRACE.db)");
	o = *opts;
	if (!o.sources)
		o.sources = MR_RSRC_DEFAULT;
	if (!o.young_interval_ns)
		o.young_interval_ns = 1000000000ull;
	if (o.ring_pages && (o.ring_pages & (o.ring_pages - 1)))
		return mr_error_set(err, MR_EINVAL, "ring size %u pages is not a power of two",
				    o.ring_pages);
	if (o.target == MR_TARGET_COMMAND && (!o.argv || !o.argv[0]))
		return mr_error_set(err, MR_EINVAL, "no command to run (-- COMMAND ARGS...)");
	if (o.target == MR_TARGET_PIDS && (!o.pids || o.n_pids <= 0))
		return mr_error_set(err, MR_EINVAL, "no process ids (-p PID)");
	r.cg_fd = -1;
	if (o.target == MR_TARGET_CGROUP && rec_cgroup_set(&r, o.cgroup, err))
		return MR_EINVAL;
	r.o = &o;
	r.err = err;
	r.st = stats;
	r.psize = sysconf(_SC_PAGESIZE);
	for (r.pshift = 0; (1L << r.pshift) < r.psize; r.pshift++)
		;
	if (getrandom(&r.anon_key, sizeof(r.anon_key), 0) != sizeof(r.anon_key))
		r.anon_key = now_mono() * 0x9e3779b97f4a7c15ULL;
	libperf_init(swallow);
	getrusage(RUSAGE_SELF, &ru0);

	/* Tracepoints: ids and layouts from tracefs (mounted privately for the setup when
	 * the host has none mounted, see tp.c). */
	if (tp_wanted(o.sources)) {
		struct rec_tracefs tf;

		if (rec_tracefs_enter(&tf))
			snprintf(tracefs_why, sizeof(tracefs_why), "%s", tf.how);
		for (int t = 0; tf.path[0] && t < RTP_NR; t++) {
			if (!(o.sources & rec_tp_names[t].source))
				continue;
			tp_why[t] = -rec_tp_load(&r.tp[t], tf.path, rec_tp_names[t].sys,
						 rec_tp_names[t].name, rec_tp_names[t].need);
			with_tp |= r.tp[t].present;
		}
		snprintf(stats->tracefs, sizeof(stats->tracefs), "%s", tf.how);
		rc = rec_tracefs_leave(&tf);
		if (rc)
			return mr_error_set(err, MR_EIO, "returning to the host's mount namespace "
					    "after reading tracefs failed: %s", strerror(-rc));
	} else {
		snprintf(stats->tracefs, sizeof(stats->tracefs), "not needed (--sources)");
	}
	refault_setup(&r, tracefs_why, refault_why, sizeof(refault_why));

	/* Hardware sampling: which events open here, each alone on this thread (an
	 * option error stops before the store is created). */
	if (o.sources & MR_RSRC_HWSAMPLE) {
		struct perf_event_attr ha;

		rec_perf_base_attr(&ha, &o);
		ha.sample_type = HW_SAMPLE_TYPE;
		rc = rec_hw_setup(&r.hw, o.hw_events, o.hw_period, &ha, hw_why, sizeof(hw_why));
		if (rc < 0) {
			if (r.cg_fd >= 0) /* rec_cgroup_set() opened it for the perf open */
				close(r.cg_fd);
			return mr_error_set(err, rc, "%s", hw_why);
		}
		r.hw_on = rc > 0;
		rc = 0;
	}

	rc = mr_store_create(o.output, o.overwrite, &r.store, err);
	if (rc)
		goto out;
	rc = mr_writer_create(r.store, NULL, &r.w, err);
	if (rc)
		goto out;

	ps.cpus = perf_cpu_map__new(NULL);
	if (!ps.cpus) {
		rc = mr_error_set(err, MR_ENOMEM, "perf_cpu_map__new failed");
		goto out;
	}
	if (o.target == MR_TARGET_COMMAND) {
		ex_fd = spawn(o.argv, &go_fd, &child, err);
		if (ex_fd < 0) {
			rc = ex_fd;
			goto out;
		}
		ps.threads = perf_thread_map__new_dummy();
		if (ps.threads)
			perf_thread_map__set_pid(ps.threads, 0, child);
	} else if (o.target == MR_TARGET_PIDS) {
		pid_t *tids = NULL;
		int n = 0, cap = 0;

		for (int i = 0; i < o.n_pids; i++) {
			char path[64];
			struct dirent *d;
			DIR *dir;

			snprintf(path, sizeof(path), "/proc/%d/task", o.pids[i]);
			dir = opendir(path);
			if (!dir) {
				free(tids);
				rc = mr_error_set(err, MR_ENOENT, "process %d: %s", o.pids[i],
						  strerror(errno));
				goto out;
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
		ps.threads = perf_thread_map__new_array(n, tids);
		free(tids);
	} else {
		ps.threads = perf_thread_map__new_dummy(); /* pid -1: every task */
	}
	if (!ps.threads) {
		rc = mr_error_set(err, MR_ENOMEM, "perf_thread_map failed");
		goto out;
	}

	rc = rec_perf_open(&r, &ps, with_tp, &step);
	if (rc < 0 && r.hw_on) {
		/* the hardware events opened alone; with the rest (inherit, the cgroup
		 * scope, the shared rings) they may not: record without them when that is
		 * what failed */
		const char *hw_step = step;
		int hw_rc = rc;

		rc = rec_perf_open_without(&r, &ps, with_tp, &step, &r.hw_on);
		if (rc == 0)
			snprintf(hw_open_why, sizeof(hw_open_why), "the hardware events open "
				 "alone but not with the other streams: %s at %s (%s); the "
				 "software sources continue", strerrorname_np(-hw_rc) ?
				 strerrorname_np(-hw_rc) : "?", hw_step, strerror(-hw_rc));
	}
	if (rc < 0 && r.cg_kernel) {
		/* the kernel refused the cgroup scope (a LSM, an odd cgroup): filter in user
		 * space when the same events open without it; else the error is another */
		const char *cg_step = step;
		int cg_rc = rc;

		rc = rec_perf_open_without(&r, &ps, with_tp, &step, &r.cg_kernel);
		if (rc == 0)
			snprintf(r.cg_how, sizeof(r.cg_how), "in user space (every task sampled): "
				 "perf_event_open(PERF_FLAG_PID_CGROUP) failed: %s at %s",
				 strerror(-cg_rc), cg_step);
	}
	if (rc == 0 && with_tp &&
	    rec_perf_apply_filters(&r, &ps, filter_why, sizeof(filter_why))) {
		/* the refault labels without their filter would be every memcg stat update */
		rec_evlist_delete(ps.evlist);
		ps.evlist = NULL;
		r.tp[RTP_MEMCG].present = 0;
		snprintf(refault_why, sizeof(refault_why), "%s", filter_why);
		rc = rec_perf_open(&r, &ps, with_tp, &step);
		if (rc == 0)
			rec_perf_apply_filters(&r, &ps, filter_why, sizeof(filter_why));
	}
	if (rc < 0 && with_tp && (rc == -EACCES || rc == -EPERM || rc == -ENOENT ||
				  rc == -EINVAL)) {
		/* tracepoints denied: record the rest */
		snprintf(tracefs_why, sizeof(tracefs_why), "tracepoint events cannot be opened: "
			 "%s; fix: run as root", strerror(-rc));
		rec_evlist_delete(ps.evlist);
		ps.evlist = NULL;
		with_tp = 0;
		for (int t = 0; t < RTP_NR; t++)
			r.tp[t].present = 0;
		rc = rec_perf_open(&r, &ps, 0, &step);
	}
	if (r.cg_fd >= 0) {
		close(r.cg_fd); /* the events hold the cgroup now */
		r.cg_fd = -1;
	}
	if (rc < 0) {
		if (rc == -EACCES || rc == -EPERM)
			rc = perm_error(err, -rc, step);
		else if (rc == -ENOMEM || (rc == -EPERM && !strcmp(step, "perf_evlist__mmap")))
			rc = mr_error_set(err, MR_EPERM, "%s: %s; the rings (%u pages per CPU) "
					  "exceed the locked-memory limit; fix: smaller "
					  "--ring-size, or sysctl kernel.perf_event_mlock_kb, or "
					  "run as root", step, strerror(-rc), o.ring_pages ?
					  o.ring_pages : DEFAULT_RING_PAGES);
		else
			rc = mr_error_set(err, MR_EIO, "%s: %s", step, strerror(-rc));
		goto out;
	}
	rc = rec_perf_read_ids(&ps);
	if (rc) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}

	/* Streams: one per ring, then the young-bit scans. */
	r.nrings = perf_cpu_map__nr(ps.cpus);
	r.ring_stream = calloc((size_t)r.nrings, sizeof(*r.ring_stream));
	r.ring_last = calloc((size_t)r.nrings, sizeof(*r.ring_last));
	r.pend = calloc((size_t)r.nrings, sizeof(*r.pend));
	r.rs = calloc((size_t)r.nrings, sizeof(*r.rs));
	ids = calloc(MAX_RANGE, sizeof(*ids));
	if (!r.ring_stream || !r.ring_last || !r.pend || !r.rs || !ids) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < r.nrings; i++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%d", perf_cpu_map__cpu(ps.cpus, i).cpu);
		mr_writer_add_stream(r.w, name, "perf", perf_cpu_map__cpu(ps.cpus, i).cpu,
				     &r.ring_stream[i]);
	}
	mr_writer_add_stream(r.w, "young", "scan", -1, &r.young_stream);
	stats->nrings = r.nrings;

	/* Sources: on/off and why. */
	src_bit(stats, MR_RSRC_FAULTS, !!(o.sources & MR_RSRC_FAULTS),
		(o.sources & MR_RSRC_FAULTS) ? NULL : "not asked for (--sources)");
	src_bit(stats, MR_RSRC_MMAP, !!(o.sources & MR_RSRC_MMAP),
		(o.sources & MR_RSRC_MMAP) ? NULL : "not asked for (--sources)");
	if (!(o.sources & MR_RSRC_PAGECACHE))
		src_bit(stats, MR_RSRC_PAGECACHE, 0, "not asked for (--sources)");
	else if (with_tp && r.tp[RTP_ADD].present)
		src_bit(stats, MR_RSRC_PAGECACHE, 1, NULL);
	else
		src_bit(stats, MR_RSRC_PAGECACHE, 0, "%s", tracefs_why[0] ? tracefs_why :
			"filemap tracepoints missing");
	if (!(o.sources & MR_RSRC_READAHEAD))
		src_bit(stats, MR_RSRC_READAHEAD, 0, "not asked for (--sources)");
	else if (with_tp && r.tp[RTP_RA_SYNC].present)
		src_bit(stats, MR_RSRC_READAHEAD, 1, NULL);
	else
		src_bit(stats, MR_RSRC_READAHEAD, 0, "%s", tracefs_why[0] ? tracefs_why :
			"readahead tracepoints not in this kernel (they exist from 6.10 on)");
	r.refault_on = with_tp && r.tp[RTP_MEMCG].present;
	r.pf_user_on = with_tp && r.tp[RTP_PF_USER].present;
	if (!(o.sources & MR_RSRC_REFAULT))
		src_bit(stats, MR_RSRC_REFAULT, 0, "not asked for (--sources default,refault adds "
			"the kernel's labels, ~1.2 us per fault; key-matched refaults come with "
			"pagecache)");
	else if (r.refault_on)
		src_bit(stats, MR_RSRC_REFAULT, 1, "kernel labels: memcg:mod_memcg_lruvec_state "
			"WORKINGSET_* items (values from BTF)");
	else
		src_bit(stats, MR_RSRC_REFAULT, 0, "%s; REFAULT events are key matches only "
			"(delete then insert of the same file page)",
			refault_why[0] ? refault_why : tracefs_why[0] ? tracefs_why :
			"tracepoint unusable");
	if (!(o.sources & MR_RSRC_MMAP))
		src_set(stats, "munmap", 0, "not asked for (--sources mmap)");
	else if (with_tp && r.tp[RTP_MUNMAP].present)
		src_set(stats, "munmap", 1, r.tp[RTP_EXIT_MMAP].present ? NULL :
			"mmap:exit_mmap missing: an exited address space is freed only by "
			"the replay's EXIT handling");
	else
		src_set(stats, "munmap", 0, "syscalls:sys_enter_munmap %s: no UNMAP/FREE "
			"for munmap", tracefs_why[0] ? tracefs_why : tp_why[RTP_MUNMAP] ==
			ENOENT ? "not in this kernel (CONFIG_FTRACE_SYSCALLS off?)" :
			"unusable");
	if (!(o.sources & MR_RSRC_FAULTS) || !(o.sources & MR_RSRC_FAULT_RW))
		src_bit(stats, MR_RSRC_FAULT_RW, 0, "not asked for (--sources faults,fault_rw; off "
			"by default: it doubles the ring traffic of write faults)");
	else if (r.pf_user_on)
		src_bit(stats, MR_RSRC_FAULT_RW, 1, "%s", filter_why[0] ? filter_why :
			"exceptions:page_fault_user (write / instruction fetch only, kernel "
			"filter) paired with each fault: exact W and X");
	else
		src_bit(stats, MR_RSRC_FAULT_RW, 0, "exceptions:page_fault_user %s; FAULT events "
			"have no W bit and X only when the IP is on the faulting page",
			tracefs_why[0] ? tracefs_why : tp_why[RTP_PF_USER] == ENOENT ?
			"not in this kernel (x86 only)" : "unusable");
	if (!(o.sources & MR_RSRC_HWSAMPLE)) {
		src_bit(stats, MR_RSRC_HWSAMPLE, 0, "not asked for (--sources)");
	} else {
		char why[MR_RECORD_WHY_MAX];

		if (hw_open_why[0])
			snprintf(why, sizeof(why), "%s", hw_open_why);
		else if (r.hw.n)
			rec_hw_describe(&r.hw, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s; the software sources continue", hw_why);
		/* said once: the CLI prints the sources, the metadata keeps them */
		src_bit(stats, MR_RSRC_HWSAMPLE, r.hw_on, "%s", why);
	}
	{
		int y = o.young;
		int pi = access("/sys/kernel/mm/page_idle/bitmap", F_OK) == 0;

		if (!(o.sources & MR_RSRC_YOUNG) || y == MR_YOUNG_OFF) {
			src_bit(stats, MR_RSRC_YOUNG, 0, "off (--young-scan off or --sources)");
			r.young_src = "off";
		} else if (y == MR_YOUNG_AUTO && o.target == MR_TARGET_SYSTEM) {
			src_bit(stats, MR_RSRC_YOUNG, 0, "auto is off with -a: clear_refs would "
				"reset the young bits of every process on the host; ask for it "
				"with --young-scan clear_refs");
			r.young_src = "off";
		} else if (y == MR_YOUNG_PAGE_IDLE || y == MR_YOUNG_DAMON) {
			src_bit(stats, MR_RSRC_YOUNG, 0, "%s is not implemented by this "
				"recorder%s; use --young-scan clear_refs", y == MR_YOUNG_DAMON ?
				"DAMON vaddr" : "page_idle", y == MR_YOUNG_PAGE_IDLE && !pi ?
				" (and /sys/kernel/mm/page_idle/bitmap is missing here)" : "");
			r.young_src = "off";
		} else {
			r.young_on = 1;
			r.young_src = "clear_refs";
			src_bit(stats, MR_RSRC_YOUNG, 1, y == MR_YOUNG_AUTO ? "auto: clear_refs + "
				"smaps (page_idle %s, DAMON vaddr not used)" : NULL,
				pi ? "present but not implemented" : "missing");
		}
	}
	if (o.sources & MR_RSRC_NUMA)
		src_bit(stats, MR_RSRC_NUMA, 1, "move_pages on up to 4096 anon pages per interval");
	else
		src_bit(stats, MR_RSRC_NUMA, 0, "not asked for (--sources)");
	if (o.target == MR_TARGET_CGROUP)
		/* said once: the CLI prints the sources, the metadata keeps them */
		src_set(stats, "cgroup", 1, "%s: filter %s", o.cgroup, r.cg_how);

	rec_meta_start(&r);

	/* Snapshot what exists already. */
	r.t0 = now_mono();
	if (o.target == MR_TARGET_COMMAND)
		rec_task_get(&r, child, child, 0); /* its cgroup, while it surely exists */
	if (o.sources & MR_RSRC_MMAP) {
		if (o.target == MR_TARGET_PIDS) {
			for (int i = 0; i < o.n_pids; i++) {
				uint32_t task = rec_task_get(&r, o.pids[i], o.pids[i], 0);
				char path[64];
				struct dirent *d;
				DIR *dir;

				if (task)
					rec_maps_snapshot(&r, o.pids[i], r.tasks[task].mm, 0,
							  r.ring_stream[0], &r.ring_last[0]);
				/* every thread known: the mm ends when the last one exits */
				snprintf(path, sizeof(path), "/proc/%d/task", o.pids[i]);
				dir = opendir(path);
				while (dir && (d = readdir(dir)))
					if (atoi(d->d_name) > 0)
						rec_task_get(&r, o.pids[i], atoi(d->d_name), 0);
				if (dir)
					closedir(dir);
			}
		} else if (o.target == MR_TARGET_SYSTEM || o.target == MR_TARGET_CGROUP) {
			DIR *dir = opendir("/proc");
			struct dirent *d;

			while (dir && (d = readdir(dir))) {
				int pid = atoi(d->d_name);
				uint32_t task;

				if (pid <= 0 || pid == getpid() || !rec_in_scope(&r, pid))
					continue;
				task = rec_task_get(&r, pid, pid, 0);
				if (task)
					rec_maps_snapshot(&r, pid, r.tasks[task].mm, 0,
							  r.ring_stream[0], &r.ring_last[0]);
			}
			if (dir)
				closedir(dir);
		}
	}

	if (o.target == MR_TARGET_COMMAND) {
		int e = 0;
		ssize_t n;

		if (o.on_start)
			o.on_start(o.ctx, child);
		if (write(go_fd, "g", 1) != 1) {
			rc = mr_error_set(err, MR_EIO, "cannot start the command: %s",
					  strerror(errno));
			goto out;
		}
		n = read(ex_fd, &e, sizeof(e));
		if (n == sizeof(e)) {
			waitpid(child, NULL, 0);
			child = 0;
			rc = mr_error_set(err, MR_ENOENT, "cannot run '%s': %s", o.argv[0],
					  strerror(e));
			goto out;
		}
	} else {
		perf_evlist__enable(ps.evlist);
		if (o.on_start)
			o.on_start(o.ctx, 0);
	}

	t_end = o.duration_ns ? r.t0 + o.duration_ns : UINT64_MAX;
	next_young = r.t0 + o.young_interval_ns;
	/* Existing processes: clear first, the first interval starts now. A command's
	 * first interval starts at its exec (a fresh address space); clearing here could
	 * race with its first accesses. */
	if (r.young_on && o.target != MR_TARGET_COMMAND)
		rec_young_scan(&r, 0);
	for (;;) {
		uint64_t now;

		perf_evlist__poll(ps.evlist, POLL_MS);
		rc = rec_perf_drain(&r, &ps, ids, 0);
		if (rc)
			break;
		now = now_mono();
		if (exited || (o.stop && *o.stop) || now >= t_end)
			break;
		if (child) {
			int status;

			if (waitpid(child, &status, WNOHANG) == child) {
				stats->cmd_status = status;
				child = 0;
				exited = 1; /* one more drain for what it left in the rings */
			}
		} else if (o.target == MR_TARGET_PIDS) {
			int alive = 0;

			for (int i = 0; i < o.n_pids; i++)
				alive |= kill(o.pids[i], 0) == 0 || errno == EPERM;
			if (!alive)
				exited = 1;
		}
		if (now >= next_young) {
			next_young = now + o.young_interval_ns;
			if (r.young_on && (rc = rec_young_scan(&r, rel_time(&r, now))))
				break;
			if (o.sources & MR_RSRC_NUMA)
				rec_numa_sample(&r);
		}
	}
	perf_evlist__disable(ps.evlist);
	if (!rc)
		rc = rec_perf_drain(&r, &ps, ids, 1);
	if (rc) {
		const struct mr_error *we = mr_writer_error(r.w);

		rc = mr_error_set(err, rc, "writing %s failed: %s; the chunks committed before "
				  "stay readable", o.output, we && we->msg[0] ? we->msg :
				  mr_strerror(rc));
	}

	/* anon refault labels no major fault claimed before the end */
	for (uint32_t t = 1; t < r.ntasks; t++)
		if (r.tasks[t].sw_labels)
			rec_drop_swapin(&r, t);

	/* Loss per ring, exact (PERF_FORMAT_LOST). */
	for (int i = 0; i < r.nrings; i++) {
		uint64_t lost = rec_perf_ring_lost(&ps, i);

		stats->lost += lost;
		mr_writer_set_lost(r.w, r.ring_stream[i], lost);
		if (lost && !rc) {
			struct mr_event ev = { .time = r.ring_last[i], .kind = MR_EV_LOST,
					       .page = MR_PAGE_NONE, .size = r.ring_stream[i],
					       .arg = lost };

			rec_emit(&r, r.ring_stream[i], &r.ring_last[i], &ev);
		}
	}
	rec_meta_end(&r, &ps);
	stats->young_scans = r.young_seq;
	if (!rc) {
		rc = mr_writer_finish(r.w);
		if (rc)
			rc = mr_error_set(err, rc, "finishing %s failed: %s", o.output,
					  mr_writer_error(r.w)->msg);
	}

out:
	if (child > 0) {
		int status;

		/* Still running when the recording stops (signal, --duration, error): the
		 * command does not outlive its recording. */
		kill(child, rc ? SIGKILL : SIGTERM);
		if (waitpid(child, &status, 0) == child)
			stats->cmd_status = status;
	}
	if (go_fd >= 0)
		close(go_fd);
	if (ex_fd >= 0)
		close(ex_fd);
	if (r.cg_fd >= 0)
		close(r.cg_fd);
	if (r.w) {
		struct mr_writer_stats ws;

		mr_writer_get_stats(r.w, &ws);
		stats->bytes_written = ws.stored_bytes;
	}
	rec_evlist_delete(ps.evlist);
	perf_thread_map__put(ps.threads);
	perf_cpu_map__put(ps.cpus);
	free(ps.ids);
	mr_writer_destroy(r.w);
	if (r.store) {
		struct stat sb;
		char wal[4200];

		mr_store_close(r.store);
		if (stat(o.output, &sb) == 0)
			stats->file_bytes = (uint64_t)sb.st_size;
		snprintf(wal, sizeof(wal), "%s-wal", o.output);
		if (stat(wal, &sb) == 0)
			stats->file_bytes += (uint64_t)sb.st_size;
	}
	getrusage(RUSAGE_SELF, &ru1);
	stats->cpu_ns = (uint64_t)((ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec +
				    ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1000000000ll +
				   (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec +
				    ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) * 1000ll);
	stats->wall_ns = r.t0 ? now_mono() - r.t0 : 0;
	free(ids);
	free(r.ring_stream);
	free(r.ring_last);
	for (int i = 0; r.pend && i < r.nrings; i++)
		free(r.pend[i].data);
	free(r.pend);
	free(r.rs);
	rec_ids_free(&r);
	rec_htab_free(&r.scope_ix);
	return rc;
}
