// SPDX-License-Identifier: GPL-2.0
/*
 * bench_record.c - `memreplay bench record`: what recording costs the recorded programs.
 *
 * The workloads, each run in three (build, sort, fixed: two) modes, interleaved,
 * opts->runs times:
 *
 *   faults  wl_faultbench N: N anonymous pages touched once (THP off): fault-bound
 *   build   /bin/sh running gcc -O2 -c over the project's base, storage and traces/gen
 *           sources, one after the other, objects into the temporary directory (the
 *           files storage/ held before base/ was split from it)
 *   sort    (opts->sort) sort -S 40M of a generated 192 MB file of random lines in a
 *           100 MiB memory cgroup made for it: I/O and memory-cgroup reclaim bound
 *   fixed   /bin/true: the whole mr_record_run() call against the command alone, with
 *           the wall time of each of the recorder's steps (mr_record_stats.phase_ns)
 *
 *   alone     the workload only
 *   raw perf  the recorder's fault events (PAGE_FAULTS_MIN and _MAJ, sample_period 1,
 *             IDENTIFIER|IP|TID|TIME|ADDR|CPU, inherit, enable_on_exec, one ring per CPU
 *             through libperf, the recorder's ring size and watermark), with a reader
 *             that only drains the rings and counts samples: the floor any perf-based
 *             recorder pays (faults only)
 *   record    mr_record_run() with default settings on the workload
 *   perf record  (faults only, when opts->perf is given) the perf tool as a user would
 *             run it instead: perf record -e page-faults -c 1 -d -o FILE -- workload,
 *             perf's defaults otherwise (its ring size, no compression). The workload
 *             is started through /bin/sh -c '...; exec "$@"' so that it can report its
 *             pid and wait for our go like in the other modes; perf therefore also
 *             samples that shell's few faults (about a hundred) before the exec.
 *             Workload CPU = the runner's children minus perf's own (utime + stime of
 *             /proc/PERF/stat, read while perf is a zombie); events = fault samples in
 *             perf.data; bytes per event = its data section and the whole file.
 *
 * Process layout of one run: this process forks a runner (own process group, killed
 * with the group on stop or failure; PDEATHSIG if we die); the runner forks the workload
 * stopped on a pipe (mr_record_run() does that itself for "record"), tells us its pid
 * and waits for our go. We take a pidfd of the workload, note the time, answer; the
 * runner releases the workload; the workload's wall time ends when its pidfd turns
 * readable (exit). So wall time means the same thing in every mode and excludes the
 * recorder's setup and final write, which are reported as the recorder's session time
 * and CPU. CPU times come from the runner's getrusage: its children (the workload and
 * everything it started) and itself (the recorder or the drainer).
 *
 * Figures, not assertions; on a 2-CPU machine the recorder and the workload compete.
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

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_int.h"
#include "libperf_compat.h" /* the recorder's: libperf internals in one place */
#include "mr_recorder.h"
#include "mr_store.h"

#define RING_PAGES 2048	/* = rec_int.h's DEFAULT_RING_PAGES: the same rings as the recorder */
#define POLL_MS 50	/* = recorder/record.c's POLL_MS */
#define DEFAULT_PAGES 262144ull /* 1 GiB of 4 KiB pages */
#define MAX_RUNS 64
#define FIXED_SETTLE_US 800000 /* the previous recording's deferred teardown (drop_events()) */
#define NMODES 4
/* The sort case (opts->sort): `sort -S 40M` of a 192 MB file in a 100 MiB memory cgroup */
#define SORT_INPUT_BYTES 192000000ull
#define SORT_MEMCG_BYTES (100ull << 20)
#define SORT_BUFFER "40M"

static const char *const mode_name[NMODES] = { "alone", "raw perf", "record",
					       "perf record" };

/* What a runner sends back when it is done. */
struct run_result {
	int rc;			/* enum mr_err */
	char msg[400];
	int status;		/* the workload's wait status, -1 if it never ran */
	double work_cpu_s;	/* RUSAGE_CHILDREN of the runner */
	double rec_cpu_s;	/* the recorder's / drainer's own CPU */
	double session_s;	/* recorder wall time */
	double call_s;		/* the whole mr_record_run() call, setup and teardown in */
	uint64_t events, faults, lost;
	uint64_t data_bytes, file_bytes; /* perf tool: perf.data's data section, file */
	double phase_s[MR_BENCH_RECORD_NPHASES]; /* record: mr_record_stats.phase_ns */
};

_Static_assert(MR_BENCH_RECORD_NPHASES == MR_RECORD_NPHASES, "one entry per phase");

/* One measured run, in the parent. */
struct run {
	double wall_s;
	struct run_result r;
	uint64_t stored_bytes, payload_bytes, file_bytes, store_events;
};

/* The runner's end of the start handshake. */
struct handshake {
	int pid_fd;	/* runner -> parent: the workload's pid */
	int ack_fd;	/* parent -> runner: one byte, "timing started, release it" */
};

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static double ru_cpu(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
}

static int stopped(const struct mr_bench_record_opts *o)
{
	return o->stop && *o->stop;
}

static int swallow(enum libperf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* ---- runner side (a child process; never returns to the caller) ---- */

/* Tell the parent the workload's pid, wait for its go. 0 or -1 (parent gone). */
static int announce(const struct handshake *h, pid_t pid)
{
	char c;

	if (write(h->pid_fd, &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		return -1;
	while (read(h->ack_fd, &c, 1) != 1)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* mr_record_opts.on_start: the command is forked, enabled on exec, not yet released. */
static void record_started(void *ctx, int cmd_pid)
{
	announce(ctx, cmd_pid);
}

/* Fork argv stopped on a pipe; exec when *go_fd is written. Returns the pid or -1. */
static pid_t spawn_stopped(char *const *argv, int *go_fd)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "bench record: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

/* waitpid that gives up the wait (killing the workload) when the bench is stopped. */
static int wait_workload(const struct mr_bench_record_opts *o, pid_t pid, int *status)
{
	for (;;) {
		pid_t w = waitpid(pid, status, 0);

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (stopped(o))
			kill(pid, SIGKILL);
	}
}

static void run_alone(const struct mr_bench_record_opts *o, char *const *argv,
		      const struct handshake *h, struct run_result *res)
{
	int go_fd;
	pid_t pid = spawn_stopped(argv, &go_fd);

	if (pid < 0) {
		res->rc = MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "fork: %s", strerror(errno));
		return;
	}
	if (announce(h, pid) || write(go_fd, "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go_fd);
	if (wait_workload(o, pid, &res->status))
		res->status = -1;
	res->work_cpu_s = ru_cpu(RUSAGE_CHILDREN);
}

/* Drain every ring, counting samples; records of other types are consumed too. */
static uint64_t drain_count(struct perf_evlist *evlist)
{
	struct perf_mmap *map;
	union perf_event *ev;
	uint64_t n = 0;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			n += ev->header.type == PERF_RECORD_SAMPLE;
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	return n;
}

static void run_raw_perf(const struct mr_bench_record_opts *o, char *const *argv,
			 const struct handshake *h, struct run_result *res)
{
	static const uint64_t config[2] = { PERF_COUNT_SW_PAGE_FAULTS_MIN,
					    PERF_COUNT_SW_PAGE_FAULTS_MAJ };
	struct perf_cpu_map *cpus = NULL;
	struct perf_thread_map *threads = NULL;
	struct perf_evlist *evlist = NULL;
	struct perf_evsel *evsel[2] = { NULL, NULL };
	double cpu0 = ru_cpu(RUSAGE_SELF), t0 = mr_clock_s();
	long psize = sysconf(_SC_PAGESIZE);
	const char *step = "";
	int go_fd = -1, rc, exited = 0;
	pid_t pid;

	libperf_init(swallow);
	pid = spawn_stopped(argv, &go_fd);
	if (pid < 0) {
		res->rc = MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "fork: %s", strerror(errno));
		return;
	}
	cpus = perf_cpu_map__new(NULL);
	threads = perf_thread_map__new_dummy();
	evlist = perf_evlist__new();
	if (!cpus || !threads || !evlist) {
		rc = -ENOMEM;
		step = "libperf maps";
		goto fail;
	}
	perf_thread_map__set_pid(threads, 0, pid);
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = config[i];
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
		a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a.disabled = 1;
		a.inherit = 1;
		a.enable_on_exec = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(RING_PAGES * psize / 2);
		evsel[i] = perf_evsel__new(&a);
		if (!evsel[i]) {
			rc = -ENOMEM;
			step = "perf_evsel__new";
			goto fail;
		}
		perf_evlist__add(evlist, evsel[i]);
	}
	perf_evlist__set_maps(evlist, cpus, threads);
	rc = perf_evlist__open(evlist);
	if (rc < 0) {
		step = "perf_evlist__open";
		goto fail;
	}
	errno = 0;
	rc = perf_evlist__mmap(evlist, RING_PAGES);
	if (rc < 0) {
		rc = rc == -1 ? (errno ? -errno : -EPERM) : rc;
		step = "perf_evlist__mmap";
		goto fail;
	}
	if (announce(h, pid) || write(go_fd, "g", 1) != 1) {
		rc = -EPIPE;
		step = "start handshake";
		goto fail;
	}
	close(go_fd);
	go_fd = -1;
	while (!exited) {
		perf_evlist__poll(evlist, POLL_MS);
		res->events += drain_count(evlist);
		if (waitpid(pid, &res->status, WNOHANG) == pid)
			exited = 1;
		else if (stopped(o))
			kill(pid, SIGKILL);
	}
	pid = 0;
	perf_evlist__disable(evlist);
	res->events += drain_count(evlist);
	res->faults = res->events;
	for (int i = 0; i < 2; i++)
		for (int c = 0; c < perf_cpu_map__nr(cpus); c++) {
			struct perf_counts_values cv = { 0 };

			if (perf_evsel__read(evsel[i], c, 0, &cv) == 0)
				res->lost += cv.lost;
		}
	rc = 0;
fail:
	if (rc) {
		res->rc = rc == -EACCES || rc == -EPERM ? MR_EPERM : MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "raw perf: %s: %s", step, strerror(-rc));
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &res->status, 0);
	}
	if (go_fd >= 0)
		close(go_fd);
	rec_evlist_delete(evlist); /* every evsel is in it; NULL-safe */
	perf_thread_map__put(threads);
	perf_cpu_map__put(cpus);
	res->rec_cpu_s = ru_cpu(RUSAGE_SELF) - cpu0;
	res->session_s = mr_clock_s() - t0;
	res->work_cpu_s = ru_cpu(RUSAGE_CHILDREN);
}

static void run_record(const struct mr_bench_record_opts *o, char *const *argv,
		       const char *store, struct handshake *h, struct run_result *res)
{
	struct mr_record_opts ro = {
		.output = store, .overwrite = 1, .target = MR_TARGET_COMMAND, .argv = argv,
		.stop = o->stop, .on_start = record_started, .ctx = h,
	};
	struct mr_record_stats st;
	struct mr_error e = { 0 };
	double t0 = mr_clock_s();

	res->rc = mr_record_run(&ro, &st, &e);
	res->call_s = mr_clock_s() - t0;
	if (res->rc)
		snprintf(res->msg, sizeof(res->msg), "%.399s", e.msg[0] ? e.msg :
			 mr_strerror(res->rc));
	res->status = st.cmd_status;
	res->work_cpu_s = ru_cpu(RUSAGE_CHILDREN);
	res->rec_cpu_s = (double)st.cpu_ns * 1e-9;
	res->session_s = (double)st.wall_ns * 1e-9;
	res->events = st.events;
	res->faults = st.by_kind[MR_EV_FAULT];
	res->lost = st.lost;
	for (int p = 0; p < MR_RECORD_NPHASES; p++)
		res->phase_s[p] = (double)st.phase_ns[p] * 1e-9;
}

/*
 * Count the records of a perf.data file (the perf tool's format: tools/perf/util/header.h,
 * struct perf_file_header): samples, and samples lost per PERF_RECORD_LOST and
 * PERF_RECORD_LOST_SAMPLES. 0, or -errno (-EPROTO when it is not a finished perf.data).
 */
static int perf_data_count(const char *path, uint64_t *samples, uint64_t *lost,
			   uint64_t *data_bytes)
{
	unsigned char h[56];
	uint64_t off, size, pos = 0;
	unsigned char *d = NULL;
	int rc = 0;
	FILE *f = fopen(path, "re");

	*samples = *lost = *data_bytes = 0;
	if (!f)
		return -errno;
	/* magic, header size, attr size, attrs {offset, size}, data {offset, size} */
	if (fread(h, 1, sizeof(h), f) != sizeof(h) || memcmp(h, "PERFILE2", 8)) {
		rc = -EPROTO;
		goto out;
	}
	memcpy(&off, h + 40, 8);
	memcpy(&size, h + 48, 8);
	if (size > (1ull << 32) || !(d = malloc(size ? size : 1)) ||
	    fseeko(f, (off_t)off, SEEK_SET) || fread(d, 1, size, f) != size) {
		rc = d ? -EPROTO : -ENOMEM;
		goto out;
	}
	*data_bytes = size;
	while (pos + 8 <= size) {
		uint32_t type;
		uint16_t len;
		uint64_t v;

		memcpy(&type, d + pos, 4);
		memcpy(&len, d + pos + 6, 2);
		if (len < 8 || pos + len > size)
			break;
		if (type == PERF_RECORD_SAMPLE)
			(*samples)++;
		else if (type == PERF_RECORD_LOST && len >= 24) {
			memcpy(&v, d + pos + 16, 8);
			*lost += v;
		} else if (type == PERF_RECORD_LOST_SAMPLES && len >= 16) {
			memcpy(&v, d + pos + 8, 8);
			*lost += v;
		}
		pos += len;
	}
out:
	free(d);
	fclose(f);
	return rc;
}

/* utime + stime of a process (not its children) from /proc/PID/stat; -1 on failure. */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* comm may hold spaces */
	/* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime" */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void run_perf_tool(const struct mr_bench_record_opts *o, char *const *argv,
			  const char *data, const struct handshake *h, struct run_result *res)
{
	/* fd 4: the workload's pid out; fd 3: our go in; then the workload itself */
	static const char stub[] = "echo $$ >&4; exec 4>&-; read go <&3 || exit 126; "
				   "exec 3<&-; exec \"$@\"";
	char *args[64];
	int pid_p[2] = { -1, -1 }, go_p[2] = { -1, -1 }, na = 0, eof;
	double cpu_perf = 0, t0 = mr_clock_s();
	pid_t perf, wpid = 0;
	siginfo_t si;
	struct stat sb;
	size_t got = 0;

	args[na++] = (char *)o->perf;
	args[na++] = "record";
	args[na++] = "-e";
	args[na++] = "page-faults";
	args[na++] = "-c";
	args[na++] = "1";
	args[na++] = "-d";
	args[na++] = "-o";
	args[na++] = (char *)data;
	args[na++] = "--";
	args[na++] = "/bin/sh";
	args[na++] = "-c";
	args[na++] = (char *)stub;
	args[na++] = "sh";
	for (int i = 0; argv[i] && na < 63; i++)
		args[na++] = argv[i];
	args[na] = NULL;
	if (pipe2(pid_p, O_CLOEXEC) || pipe2(go_p, O_CLOEXEC)) {
		res->rc = MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "pipe: %s", strerror(errno));
		return;
	}
	perf = fork();
	if (perf == 0) {
		/* dup2 clears FD_CLOEXEC: fds 3 and 4 reach perf's workload */
		if (dup2(go_p[0], 3) < 0 || dup2(pid_p[1], 4) < 0)
			_exit(126);
		execv(o->perf, args);
		fprintf(stderr, "bench record: cannot run %s: %s\n", o->perf, strerror(errno));
		_exit(127);
	}
	close(pid_p[1]);
	close(go_p[0]);
	if (perf < 0) {
		res->rc = MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "fork: %s", strerror(errno));
		close(pid_p[0]);
		close(go_p[1]);
		return;
	}
	/* "PID\n" from the shell once perf has set up and exec'd it */
	for (char buf[32]; got < sizeof(buf) - 1;) {
		ssize_t n = read(pid_p[0], buf + got, sizeof(buf) - 1 - got);

		if (n < 0 && errno == EINTR && !stopped(o))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (strchr(buf, '\n')) {
			wpid = (pid_t)atoi(buf);
			break;
		}
	}
	close(pid_p[0]);
	eof = wpid <= 0;
	if (eof || announce(h, wpid) || write(go_p[1], "g\n", 2) != 2)
		kill(perf, SIGKILL);
	close(go_p[1]);
	/* perf's own CPU while it is a zombie (WNOWAIT), then reap it */
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)perf, &si, WEXITED | WNOWAIT) == 0)
			break;
		if (errno != EINTR)
			break;
		if (stopped(o))
			kill(perf, SIGKILL);
	}
	cpu_perf = proc_cpu_s(perf);
	while (waitpid(perf, &res->status, 0) < 0 && errno == EINTR)
		;
	res->session_s = mr_clock_s() - t0;
	res->work_cpu_s = ru_cpu(RUSAGE_CHILDREN) - (cpu_perf > 0 ? cpu_perf : 0);
	res->rec_cpu_s = cpu_perf > 0 ? cpu_perf : 0;
	if (eof) {
		res->rc = MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "perf record did not start the workload "
			 "(perf %s); see the log", WIFEXITED(res->status) ? "exited" : "died");
		return;
	}
	if (res->status != 0)
		return; /* run_once reports the exit status */
	if (perf_data_count(data, &res->events, &res->lost, &res->data_bytes)) {
		res->rc = MR_EIO;
		snprintf(res->msg, sizeof(res->msg), "%.200s: not a finished perf.data file",
			 data);
		return;
	}
	res->faults = res->events;
	if (stat(data, &sb) == 0)
		res->file_bytes = (uint64_t)sb.st_size;
}

/* ---- parent side ---- */

static int read_full(const struct mr_bench_record_opts *o, int fd, void *buf, size_t len,
		     int *got_eof)
{
	size_t done = 0;

	*got_eof = 0;
	while (done < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (stopped(o))
			return -1;
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, (char *)buf + done, len - done);
		if (n == 0) {
			*got_eof = 1;
			return -1;
		}
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			done += (size_t)n;
	}
	return 0;
}

/* Kill whatever is left of a runner's process group (stragglers of the workload), then
 * reap the runner: in this order, so that the group id cannot have been reused. */
static void reap_group(pid_t runner)
{
	int status;

	kill(-runner, SIGKILL);
	while (waitpid(runner, &status, 0) < 0 && errno == EINTR)
		;
}

/* Stop a runner's process group: SIGTERM (the recorder finishes its store), then
 * SIGKILL after a grace period. Reaps the runner. */
static void kill_group(pid_t runner)
{
	double until = mr_clock_s() + 3.0;
	siginfo_t si;

	kill(-runner, SIGTERM);
	while (mr_clock_s() < until) {
		memset(&si, 0, sizeof(si));
		/* WNOWAIT: the runner's zombie keeps the group id ours until reaped. */
		if (waitid(P_PID, (id_t)runner, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == runner)
			break;
		usleep(20000);
	}
	reap_group(runner);
}

static void describe_status(char *buf, size_t cap, int status)
{
	if (status < 0)
		snprintf(buf, cap, "did not run");
	else if (WIFEXITED(status))
		snprintf(buf, cap, "exited with %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, cap, "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, cap, "ended with status %d", status);
}

/* One run of argv in mode; *run filled. Store (record mode) at store, output to log. */
static int run_once(const struct mr_bench_record_opts *o, int mode, char *const *argv,
		    const char *store, const char *log, struct run *run, struct mr_error *err)
{
	int pid_p[2] = { -1, -1 }, ack_p[2] = { -1, -1 }, res_p[2] = { -1, -1 };
	int pfd = -1, rc = 0, eof;
	pid_t runner, wpid = 0;
	double t0 = 0;
	char what[64];

	memset(run, 0, sizeof(*run));
	if (pipe2(pid_p, O_CLOEXEC) || pipe2(ack_p, O_CLOEXEC) || pipe2(res_p, O_CLOEXEC)) {
		rc = mr_error_set(err, MR_EIO, "bench record: pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	runner = fork();
	if (runner < 0) {
		rc = mr_error_set(err, MR_EIO, "bench record: fork: %s", strerror(errno));
		goto out;
	}
	if (runner == 0) {
		struct handshake h = { .pid_fd = pid_p[1], .ack_fd = ack_p[0] };
		struct run_result r = { .status = -1 };
		int fd;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(pid_p[0]);
		close(ack_p[1]);
		close(res_p[0]);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		if (mode == MR_BENCH_ALONE)
			run_alone(o, argv, &h, &r);
		else if (mode == MR_BENCH_RAW_PERF)
			run_raw_perf(o, argv, &h, &r);
		else if (mode == MR_BENCH_PERF_TOOL)
			run_perf_tool(o, argv, store, &h, &r);
		else
			run_record(o, argv, store, &h, &r);
		if (write(res_p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(2);
		_exit(0);
	}
	setpgid(runner, runner); /* also here: no window in which a kill misses the group */
	close(pid_p[1]);
	close(ack_p[0]);
	close(res_p[1]);
	pid_p[1] = ack_p[0] = res_p[1] = -1;

	/* Start: the workload exists, stopped; take its pidfd, start the clock, release. */
	if (read_full(o, pid_p[0], &wpid, sizeof(wpid), &eof) == 0) {
		pfd = (int)syscall(SYS_pidfd_open, wpid, 0);
		if (pfd < 0) {
			rc = mr_error_set(err, MR_EIO, "bench record: pidfd_open(%d): %s",
					  (int)wpid, strerror(errno));
			goto kill;
		}
		t0 = mr_clock_s();
		if (write(ack_p[1], "g", 1) != 1) {
			rc = mr_error_set(err, MR_EIO, "bench record: the runner went away");
			goto kill;
		}
		for (;;) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };

			if (stopped(o))
				goto kill;
			if (poll(&p, 1, 200) > 0) {
				run->wall_s = mr_clock_s() - t0;
				break;
			}
		}
	} else if (!eof) {
		goto kill; /* stopped */
	}
	/* eof: the runner failed before starting the workload; its result says why. */
	if (read_full(o, res_p[0], &run->r, sizeof(run->r), &eof)) {
		if (!stopped(o))
			rc = mr_error_set(err, MR_EIO, "bench record: the %s runner died without "
					  "a result; see %s", mode_name[mode], log);
		goto kill;
	}
	reap_group(runner); /* nothing of the run may outlive it */
	if (run->r.rc) {
		rc = mr_error_set(err, run->r.rc, "bench record (%s): %s", mode_name[mode],
				  run->r.msg);
		goto out;
	}
	if (run->r.status != 0) {
		describe_status(what, sizeof(what), run->r.status);
		rc = mr_error_set(err, MR_EIO, "bench record (%s): the workload %s; see %s",
				  mode_name[mode], what, log);
		goto out;
	}
	if (mode == MR_BENCH_RECORD) {
		struct mr_store *s = NULL;
		struct mr_store_summary sum;

		rc = mr_store_open(store, MR_STORE_RDONLY, &s, err);
		if (!rc)
			rc = mr_store_summarize(s, &sum, err);
		if (!rc) {
			run->stored_bytes = sum.stored_bytes;
			run->payload_bytes = sum.payload_bytes;
			run->file_bytes = sum.file_bytes;
			run->store_events = sum.n_events;
		}
		mr_store_close(s);
	} else if (mode == MR_BENCH_PERF_TOOL) {
		run->stored_bytes = run->payload_bytes = run->r.data_bytes;
		run->file_bytes = run->r.file_bytes;
		run->store_events = run->r.events;
	}
	goto out;
kill:
	kill_group(runner);
	if (!rc)
		rc = mr_error_set(err, MR_EIO, "bench record: interrupted");
out:
	if (pfd >= 0)
		close(pfd);
	for (int i = 0; i < 2; i++) {
		if (pid_p[i] >= 0)
			close(pid_p[i]);
		if (ack_p[i] >= 0)
			close(ack_p[i]);
		if (res_p[i] >= 0)
			close(res_p[i]);
	}
	return rc;
}

/* Median run by wall time (the lower middle for an even count) into a row. */
static void summarize(struct run *runs, int n, const char *name, int mode,
		      struct mr_bench_record_case *c)
{
	double wall[MAX_RUNS], min, max;
	const struct run *m;

	for (int i = 0; i < n; i++)
		wall[i] = runs[i].wall_s;
	m = &runs[bench_median(wall, (size_t)n, &min, &max)];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->mode = mode;
	c->runs = n;
	c->wall_s = m->wall_s;
	c->wall_min_s = min;
	c->wall_max_s = max;
	c->work_cpu_s = m->r.work_cpu_s;
	c->rec_cpu_s = mode == MR_BENCH_ALONE ? 0 : m->r.rec_cpu_s;
	c->session_s = mode == MR_BENCH_RECORD || mode == MR_BENCH_PERF_TOOL ? m->r.session_s : 0;
	c->call_s = 0;
	if (mode == MR_BENCH_RECORD) { /* the fixed cost's measure: its own median */
		for (int i = 0; i < n; i++)
			wall[i] = runs[i].r.call_s;
		c->call_s = wall[bench_median(wall, (size_t)n, &min, &max)];
	}
	c->events = m->r.events;
	c->faults = m->r.faults;
	c->events_per_s = bench_rate((double)c->events, m->wall_s);
	c->rec_us_per_event = c->events ? c->rec_cpu_s * 1e6 / (double)c->events : 0;
	for (int i = 0; i < n; i++)
		if (runs[i].r.lost > c->lost)
			c->lost = runs[i].r.lost;
	for (int p = 0; mode == MR_BENCH_RECORD && p < MR_RECORD_NPHASES; p++) {
		for (int i = 0; i < n; i++)
			wall[i] = runs[i].r.phase_s[p];
		c->phase_s[p] = wall[bench_median(wall, (size_t)n, &min, &max)];
	}
	if ((mode == MR_BENCH_RECORD || mode == MR_BENCH_PERF_TOOL) && m->store_events) {
		double ev = (double)m->store_events;

		c->chunk_bytes_per_event = (double)m->stored_bytes / ev;
		c->payload_bytes_per_event = (double)m->payload_bytes / ev;
		c->file_bytes_per_event = (double)m->file_bytes / ev;
	}
}

/* Run one workload in the given modes, interleaved; append one row per mode. */
static int bench_workload(const struct mr_bench_record_opts *o, const char *name,
			  char *const *argv, const int *modes, int nmodes, const char *dir,
			  const char *tag, unsigned settle_us, struct mr_bench_record_case *out,
			  size_t cap, size_t *n, struct mr_error *err)
{
	int runs = o->runs > 0 ? (o->runs > MAX_RUNS ? MAX_RUNS : o->runs) : 3;
	struct run *r = calloc((size_t)(NMODES * runs), sizeof(*r));
	char log[1100], store[1100], skip[200] = "";
	struct run warm;
	struct stat sb;
	int rc;

	/* The perf tool baseline is a comparison, not the subject: when perf is missing or
	 * fails, its row says why and the other modes go on. */
	for (int k = 0; k < nmodes; k++) {
		errno = 0;
		if (modes[k] == MR_BENCH_PERF_TOOL &&
		    (stat(o->perf, &sb) || !S_ISREG(sb.st_mode) || access(o->perf, X_OK)))
			snprintf(skip, sizeof(skip), "%.100s: %s; fix: install perf (Debian: "
				 "apt-get install linux-perf)", o->perf, errno ? strerror(errno) :
				 "not an executable file");
	}
	if (skip[0])
		BENCH_NOTE(o, "%s: perf record baseline skipped: %s", name, skip);
	if (!r)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	if (*n + (size_t)nmodes > cap) {
		free(r);
		return mr_error_set(err, MR_ENOSPC, "bench record: %zu result rows are too few",
				    cap);
	}
	snprintf(log, sizeof(log), "%s/%s.log", dir, tag);
	/* Warm-up (not measured): page cache for the binaries and sources. */
	BENCH_NOTE(o, "%s: warm-up run ...", name);
	rc = run_once(o, MR_BENCH_ALONE, argv, NULL, log, &warm, err);
	for (int i = 0; !rc && i < runs; i++)
		for (int k = 0; !rc && k < nmodes; k++) {
			int m = modes[k];
			struct run *x = &r[m * runs + i];

			if (m == MR_BENCH_PERF_TOOL && skip[0])
				continue;
			snprintf(store, sizeof(store), "%s/%s-%d.%s", dir, tag, i,
				 m == MR_BENCH_PERF_TOOL ? "perf.data" : "db");
			BENCH_NOTE(o, "%s: run %d/%d %s ...", name, i + 1, runs, mode_name[m]);
			if (settle_us)
				usleep(settle_us);
			rc = run_once(o, m, argv, store, log, x, err);
			if (!rc)
				BENCH_NOTE(o, "%s: run %d/%d %s: %.3f s", name, i + 1, runs,
				     mode_name[m], x->wall_s);
			if (rc && m == MR_BENCH_PERF_TOOL && !stopped(o)) {
				snprintf(skip, sizeof(skip), "%.199s", err && err->msg[0] ?
					 err->msg : "perf record failed");
				BENCH_NOTE(o, "%s: perf record baseline dropped: %s", name, skip);
				rc = 0;
				if (err) {
					err->code = 0;
					err->msg[0] = '\0';
				}
			}
			if (!rc && m == MR_BENCH_PERF_TOOL && !o->keep)
				unlink(store);
			if (!rc && m == MR_BENCH_RECORD && !o->keep)
				mr_store_remove(store);
		}
	if (!rc) {
		struct mr_bench_record_case *alone = &out[*n];

		for (int k = 0; k < nmodes; k++) {
			struct mr_bench_record_case *c = &out[*n + (size_t)k];

			if (modes[k] == MR_BENCH_PERF_TOOL && skip[0]) {
				memset(c, 0, sizeof(*c));
				snprintf(c->name, sizeof(c->name), "%s", name);
				c->mode = MR_BENCH_PERF_TOOL;
				snprintf(c->why, sizeof(c->why), "%s", skip);
				continue;
			}
			summarize(&r[modes[k] * runs], runs, name, modes[k], c);
			if (modes[k] != MR_BENCH_ALONE && alone->wall_s > 0) {
				c->overhead = (c->wall_s - alone->wall_s) / alone->wall_s;
				if (alone->work_cpu_s > 0)
					c->cpu_overhead = (c->work_cpu_s + c->rec_cpu_s -
							   alone->work_cpu_s) / alone->work_cpu_s;
			}
		}
		*n += (size_t)nmodes;
	}
	free(r);
	return rc;
}

/* 'quoted' for /bin/sh. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* Write dir/build.sh: gcc -O2 -c over src's base/, storage/ and traces/gen sources. */
static int write_build_script(const char *src, const char *dir, char *script, size_t cap,
			      size_t *nfiles, struct mr_error *err)
{
	static const char *const pats[] = { "base/*.c", "storage/*.c", "traces/gen*.c" };
	char pat[1200], obj[1100];
	glob_t g;
	FILE *f;
	int rc = 0;

	*nfiles = 0;
	snprintf(script, cap, "%s/build.sh", dir);
	snprintf(obj, sizeof(obj), "%s/obj", dir);
	if (mkdir(obj, 0755) && errno != EEXIST)
		return mr_error_set(err, MR_EIO, "bench record: mkdir %s: %s", obj, strerror(errno));
	f = fopen(script, "w");
	if (!f)
		return mr_error_set(err, MR_EIO, "bench record: %s: %s", script, strerror(errno));
	fputs("#!/bin/sh\n# memreplay bench record: the build workload\nset -e\ncd ", f);
	sh_quote(f, src);
	fputc('\n', f);
	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		snprintf(pat, sizeof(pat), "%s/%s", src, pats[p]);
		if (glob(pat, 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *rel = g.gl_pathv[i] + strlen(src) + 1;
			const char *base = strrchr(rel, '/') + 1;

			fputs("gcc -O2 -std=gnu11 -Ibase -Istorage -Itraces -c ", f);
			sh_quote(f, rel);
			fputs(" -o ", f);
			snprintf(pat, sizeof(pat), "%s/%.*s.o", obj, (int)(strlen(base) - 2), base);
			sh_quote(f, pat);
			fputc('\n', f);
			(*nfiles)++;
		}
		globfree(&g);
	}
	if (fclose(f))
		rc = mr_error_set(err, MR_EIO, "bench record: writing %s failed", script);
	else if (!*nfiles)
		rc = mr_error_set(err, MR_ENOENT, "bench record: no sources under %s/storage; "
				  "fix: --src DIR, the memreplay source tree", src);
	return rc;
}

/*
 * The sort case's input: bytes of lines of 16 to 111 letters from a fixed xorshift64
 * sequence, the same file on every machine, written to path.
 */
static int write_sort_input(const char *path, uint64_t bytes, struct mr_error *err)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, done = 0;
	char line[128];
	FILE *f = fopen(path, "we");

	if (!f)
		return mr_error_set(err, MR_EIO, "bench record: %s: %s", path, strerror(errno));
	while (done < bytes) {
		int len = 16 + (int)(x % 96), i;

		for (i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			line[i] = (char)('a' + x % 26);
		}
		line[i++] = '\n';
		if (done + (uint64_t)i > bytes) { /* the last line is cut to the size */
			i = (int)(bytes - done);
			line[i - 1] = '\n';
		}
		fwrite(line, 1, (size_t)i, f);
		done += (uint64_t)i;
	}
	if (fclose(f))
		return mr_error_set(err, MR_EIO, "bench record: writing %s failed", path);
	return 0;
}

/* Write a number to a cgroup file: 0 or -errno. */
static int cg_write(const char *dir, const char *file, uint64_t v)
{
	char path[1300];
	int rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	if (fprintf(f, "%llu\n", (unsigned long long)v) < 0)
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/*
 * A memory cgroup of limit bytes for the sort case, as the tests make theirs: a v1
 * memory hierarchy at /sys/fs/cgroup/memory (memory.limit_in_bytes), else cgroup2 at
 * /sys/fs/cgroup with the memory controller (memory.max). cg gets its directory; 0, or
 * non-zero with why set.
 */
static int make_memcg(uint64_t limit, char *cg, size_t cap, char *why, size_t wcap)
{
	static const struct { const char *root, *probe, *limit; } h[] = {
		{ "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.limit_in_bytes" },
		{ "/sys/fs/cgroup", "memory.max", "memory.max" }, /* a child's file: see below */
	};
	char probe[1200];

	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		int rc;

		snprintf(probe, sizeof(probe), "%s/%s", h[i].root, i ? "cgroup.subtree_control" :
			 h[i].probe);
		if (access(probe, R_OK))
			continue;
		snprintf(cg, cap, "%s/memreplay-bench-sort-%d", h[i].root, (int)getpid());
		if (mkdir(cg, 0755) && errno != EEXIST) {
			snprintf(why, wcap, "mkdir %.100s: %s", cg, strerror(errno));
			return -1;
		}
		rc = cg_write(cg, h[i].limit, limit);
		if (rc == 0)
			return 0;
		rmdir(cg);
		snprintf(why, wcap, "%.100s/%s: %s", cg, h[i].limit, strerror(-rc));
		return -1;
	}
	snprintf(why, wcap, "no memory cgroup hierarchy (/sys/fs/cgroup/memory or cgroup2 "
		 "with the memory controller)");
	return -1;
}

static int check_root(struct mr_error *err)
{
	char buf[32] = "";
	FILE *f;

	if (geteuid() == 0)
		return 0;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return mr_error_set(err, MR_EPERM, "bench record needs root: the recorder's default "
			    "sources (tracepoints, clear_refs young-bit scans) and its 8 MiB rings "
			    "per CPU are root-only, and perf_event_paranoid is %s; fix: run as "
			    "root (sudo memreplay bench record)", buf[0] ? buf : "unreadable");
}

int mr_bench_record(const struct mr_bench_record_opts *o, struct mr_bench_record_case *out,
		    size_t cap, size_t *n, struct mr_error *err)
{
	static const int fault_modes[] = { MR_BENCH_ALONE, MR_BENCH_RAW_PERF, MR_BENCH_RECORD,
					   MR_BENCH_PERF_TOOL };
	static const int build_modes[] = { MR_BENCH_ALONE, MR_BENCH_RECORD };
	uint64_t pages = o->pages ? o->pages : DEFAULT_PAGES;
	char dir[1024], name[48], size[32], npages[32], script[1100];
	int rc;

	*n = 0;
	if (!o->no_faults && (!o->workload || access(o->workload, X_OK)))
		return mr_error_set(err, MR_EINVAL, "bench record: the fault-bound workload %s "
				    "is not an executable; fix: build the tree (traces/"
				    "wl_faultbench.c) or give --workload PATH",
				    o->workload ? o->workload : "(none)");
	if (!o->no_build && !o->src)
		return mr_error_set(err, MR_EINVAL, "bench record: no source tree for the build "
				    "case; fix: --src DIR");
	rc = check_root(err);
	if (rc)
		return rc;
	rc = bench_mkdtemp(o->dir, "record", dir, sizeof(dir), err);
	if (rc)
		return rc;
	if (o->keep)
		BENCH_NOTE(o, "keeping %s", dir);

	if (!o->no_faults) {
		char *argv[] = { (char *)o->workload, npages, NULL };

		snprintf(npages, sizeof(npages), "%llu", (unsigned long long)pages);
		mr_format_bytes(pages * (uint64_t)sysconf(_SC_PAGESIZE), size, sizeof(size));
		snprintf(name, sizeof(name), "faults %s", size);
		rc = bench_workload(o, name, argv, fault_modes, o->perf ? 4 : 3, dir, "faults", 0,
				    out, cap, n, err);
	}
	if (!rc && !o->no_build) {
		char *argv[] = { "/bin/sh", script, NULL };
		size_t nfiles;

		rc = write_build_script(o->src, dir, script, sizeof(script), &nfiles, err);
		snprintf(name, sizeof(name), "build %zu files", nfiles);
		if (!rc)
			rc = bench_workload(o, name, argv, build_modes, 2, dir, "build", 0, out, cap, n,
					    err);
	}
	if (!rc && o->sort) {
		/* The issue's realistic case: an external sort of a file larger than the memory
		 * cgroup it runs in (memory cgroup reclaim, page-cache inserts and deletes,
		 * readahead, temporary files). The command joins the cgroup itself and execs
		 * sort, so alone and recorded runs are the same processes. Caches are not
		 * dropped in either mode (drop_caches is global): the input stays cached
		 * outside the cgroup (written by this process), the temporary files and the
		 * output are charged to the cgroup and reclaimed within it. */
		char in[1100], out_path[1100], cg[1200], why[240];
		char *argv[] = { "/bin/sh", "-c", "echo $$ > \"$1/cgroup.procs\" && exec sort -S "
				 SORT_BUFFER " -T \"$4\" \"$2\" -o \"$3\"", "sh", cg, in,
				 out_path, dir, NULL };

		snprintf(in, sizeof(in), "%s/sort.in", dir);
		snprintf(out_path, sizeof(out_path), "%s/sort.out", dir);
		if (make_memcg(SORT_MEMCG_BYTES, cg, sizeof(cg), why, sizeof(why))) {
			rc = mr_error_set(err, MR_EIO, "bench record: sort case: %s", why);
		} else {
			BENCH_NOTE(o, "sort: writing %s (%llu bytes)", in,
				   (unsigned long long)SORT_INPUT_BYTES);
			rc = write_sort_input(in, SORT_INPUT_BYTES, err);
			snprintf(name, sizeof(name), "sort 192 MB");
			if (!rc)
				rc = bench_workload(o, name, argv, build_modes, 2, dir, "sort",
						    FIXED_SETTLE_US, out, cap, n, err);
			unlink(in);
			unlink(out_path);
			rmdir(cg);
		}
	}
	if (!rc && !o->no_fixed) {
		/* The fixed cost: what `record -- /bin/true` adds to a command that does
		 * nothing (perf and tracepoint setup, the store, the teardown), the whole
		 * recorder call against the command alone. Each run waits first: the
		 * recorder leaves the closing of its tracepoint events to a grandchild
		 * (recorder/record.c, drop_events()), each last close waits for an RCU grace
		 * period under the kernel's event_mutex, 0.3-0.4 s in all here, and a
		 * recorder started meanwhile waits for that mutex in its perf_event_open()s:
		 * this case measures a recording on its own. */
		char *argv[] = { "/bin/true", NULL };

		rc = bench_workload(o, "fixed (true)", argv, build_modes, 2, dir, "fixed",
				    FIXED_SETTLE_US, out, cap, n, err);
	}
	if (rc && !stopped(o))
		BENCH_NOTE(o, "kept %s for inspection", dir);
	else if (!o->keep)
		bench_rmtree(dir);
	return rc;
}

/* ---- the report ---- */

static const char *mode_label(int m)
{
	return m >= 0 && m < NMODES ? mode_name[m] : "?";
}

static const struct mr_bench_record_case *find_row(const struct mr_bench_record_case *c,
						   size_t n, const char *prefix, int mode)
{
	for (size_t i = 0; i < n; i++)
		if ((int)c[i].mode == mode && !strncmp(c[i].name, prefix, strlen(prefix)))
			return &c[i];
	return NULL;
}

/* A target line: the case's wall overhead against MR_BENCH_RECORD_MAX_OVERHEAD, with its
 * CPU overhead and extra beside it, or "not run (not_run)" without the case. */
static void overhead_target(struct mr_strbuf *f, const char *label,
			    const struct mr_bench_record_case *r, const char *extra,
			    const char *not_run)
{
	mr_strbuf_printf(f, "  %-18s wall overhead <= %.0f %%:%*s", label,
			 100 * MR_BENCH_RECORD_MAX_OVERHEAD, 7, "");
	if (!r) {
		mr_strbuf_printf(f, "not run (%s)\n", not_run);
		return;
	}
	mr_strbuf_printf(f, "%+.1f %% (CPU %+.1f %%%s)   %s\n", 100 * r->overhead,
			 100 * r->cpu_overhead, extra ? extra : "",
			 r->overhead <= MR_BENCH_RECORD_MAX_OVERHEAD ? "met" : "NOT met");
}

/*
 * One target line: the recorder against a baseline on the fault-bound workload, by wall
 * overhead (the issue's criterion; met within noise when the excess is inside half the
 * run-to-run range of both) with the CPU figures beside it.
 */
static void put_vs(struct mr_strbuf *f, const struct mr_bench_record_case *rec,
		   const struct mr_bench_record_case *base, const char *label, const char *who)
{
	double noise, excess;

	if (!base) {
		mr_strbuf_printf(f, "  faults, record no worse than %-13s not run\n", label);
		return;
	}
	if (!base->runs) {
		mr_strbuf_printf(f, "  faults, record no worse than %-13s not run: %s\n", label, base->why);
		return;
	}
	noise = (base->wall_max_s - base->wall_min_s + rec->wall_max_s - rec->wall_min_s) / 2;
	excess = rec->wall_s - base->wall_s;
	mr_strbuf_printf(f, "  faults, record no worse than %-13s wall %+.1f %% vs %+.1f %%, CPU %+.1f %% "
	    "vs %+.1f %%, recorder %.2f vs %s %.2f us/event   %s\n", label,
	    100 * rec->overhead, 100 * base->overhead, 100 * rec->cpu_overhead,
	    100 * base->cpu_overhead, rec->rec_us_per_event, who, base->rec_us_per_event,
	    excess <= 0 ? "met" : excess <= noise ? "met within run-to-run noise" : "NOT met");
}

int mr_bench_record_format(const struct mr_bench_record_case *c, size_t n, char *buf,
			   size_t cap)
{
	struct mr_strbuf f = { .buf = buf, .cap = cap };
	const struct mr_bench_record_case *b, *raw, *tool, *rec;
	int runs = 0;

	if ((!c && n) || (!buf && cap))
		return MR_EINVAL;
	if (cap)
		buf[0] = '\0';
	mr_strbuf_printf(&f, "%-18s %-11s %7s %6s %8s %8s %8s %8s %10s %10s %7s %6s %6s %6s %7s\n", "case",
	    "mode", "wall s", "spread", "work CPU", "rec CPU", "wall ovh", "CPU ovh", "events",
	    "events/s", "us/ev", "lost", "B/ev", "col/ev", "file/ev");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_record_case *k = &c[i];
		int alone = k->mode == MR_BENCH_ALONE;
		int stored = k->mode == MR_BENCH_RECORD || k->mode == MR_BENCH_PERF_TOOL;
		char t[11][24];

		if (!k->runs) {
			mr_strbuf_printf(&f, "%-18s %-11s skipped: %s\n", k->name, mode_label(k->mode), k->why);
			continue;
		}
		if (k->runs > runs)
			runs = k->runs;
		mr_strbuf_printf(&f, "%-18s %-11s %7.3f %5.1f%% %8.3f %8s %8s %8s %10s %10s %7s %6s %6s %6s "
		    "%7s\n", k->name, mode_label(k->mode), k->wall_s,
		    k->wall_s > 0 ? 50.0 * (k->wall_max_s - k->wall_min_s) / k->wall_s : 0.0,
		    k->work_cpu_s, bench_fig(t[0], 24, !alone, "%.3f", k->rec_cpu_s),
		    bench_fig(t[1], 24, !alone, "%+.1f%%", 100 * k->overhead),
		    bench_fig(t[2], 24, !alone, "%+.1f%%", 100 * k->cpu_overhead),
		    bench_fig(t[3], 24, !alone, "%.0f", (double)k->events),
		    bench_fig(t[4], 24, !alone, "%.3g", k->events_per_s),
		    bench_fig(t[5], 24, !alone, "%.2f", k->rec_us_per_event),
		    bench_fig(t[6], 24, !alone, "%.0f", (double)k->lost),
		    bench_fig(t[7], 24, stored, "%.3f", k->chunk_bytes_per_event),
		    bench_fig(t[8], 24, stored, "%.2f", k->payload_bytes_per_event),
		    bench_fig(t[9], 24, stored, "%.2f", k->file_bytes_per_event));
	}
	mr_strbuf_printf(&f, "wall = workload exec to exit, median of %d run%s (spread = half the min-max "
	    "range); work CPU = the\n"
	    "workload's user+sys; rec CPU = the recorder's (record), ring drainer's (raw perf) "
	    "or perf tool's (perf record)\n"
	    "own CPU; wall/CPU ovh = against alone (CPU: work + rec CPU over alone work CPU); "
	    "us/ev = rec CPU per event;\n"
	    "events = stored events (record: FAULT + ACCESS per fault, plus mmap/page-cache/"
	    "young) or fault samples\n"
	    "(raw perf, perf record); lost = worst run (PERF_FORMAT_LOST; perf record: its "
	    "LOST records); B/ev = stored\n"
	    "(LZ4) chunk bytes per event, col/ev = chunks.payload_bytes (columns before LZ4), "
	    "file/ev = whole store file;\n"
	    "perf record: B/ev and col/ev = perf.data's records, file/ev = perf.data, per "
	    "sample. raw perf = the recorder's\n"
	    "fault events drained and counted only; perf record = perf record -e page-faults "
	    "-c 1 -d. On a 2-CPU machine\n"
	    "the recorder and the workload compete.\n", runs, runs == 1 ? "" : "s");

	{
		const struct mr_bench_record_case *fx = find_row(c, n, "fixed", MR_BENCH_RECORD);
		const struct mr_bench_record_case *fa = find_row(c, n, "fixed", MR_BENCH_ALONE);

		if (fx && fa) {
			mr_strbuf_printf(&f, "fixed cost = the whole record call for /bin/true (%.1f ms) "
			    "minus the command alone (%.1f ms)\n", 1e3 * fx->call_s, 1e3 * fa->wall_s);
			mr_strbuf_printf(&f, "fixed cost by step, ms (median of each):");
			for (int p = 0; p < MR_RECORD_NPHASES; p++)
				mr_strbuf_printf(&f, " %s %.1f", mr_record_phase_name(p),
				    1e3 * fx->phase_s[p]);
			mr_strbuf_printf(&f, "\n");
		}
	}
	b = find_row(c, n, "build", MR_BENCH_RECORD);
	raw = find_row(c, n, "faults", MR_BENCH_RAW_PERF);
	tool = find_row(c, n, "faults", MR_BENCH_PERF_TOOL);
	rec = find_row(c, n, "faults", MR_BENCH_RECORD);
	mr_strbuf_printf(&f, "targets:\n");
	overhead_target(&f, "build,", b, NULL, "--no-build");
	{
		const struct mr_bench_record_case *sr = find_row(c, n, "sort", MR_BENCH_RECORD);
		const struct mr_bench_record_case *sa = find_row(c, n, "sort", MR_BENCH_ALONE);
		char call[64] = "";

		if (sr && sa && sa->wall_s > 0)
			snprintf(call, sizeof(call), "; whole record call %+.1f %%",
				 100 * (sr->call_s - sa->wall_s) / sa->wall_s);
		overhead_target(&f, "sort (in 100 MiB),", sa && sa->wall_s > 0 ? sr : NULL, call,
				"--sort runs it");
	}
	{
		const struct mr_bench_record_case *fx = find_row(c, n, "fixed", MR_BENCH_RECORD);
		const struct mr_bench_record_case *fa = find_row(c, n, "fixed", MR_BENCH_ALONE);

		if (fx && fa) {
			double ms = 1e3 * (fx->call_s - fa->wall_s);

			mr_strbuf_printf(&f, "  fixed cost <= %.0f ms:                           %.1f ms   %s\n",
			    MR_BENCH_RECORD_MAX_FIXED_MS, ms,
			    ms <= MR_BENCH_RECORD_MAX_FIXED_MS ? "met" : "NOT met");
		} else {
			mr_strbuf_printf(&f, "  fixed cost <= %.0f ms:                           not run (--no-fixed)\n",
			    MR_BENCH_RECORD_MAX_FIXED_MS);
		}
	}
	if (rec) {
		double per_fault = rec->faults ? rec->chunk_bytes_per_event * (double)rec->events /
						 (double)rec->faults : 0.0;

		put_vs(&f, rec, raw, "raw perf:", "drainer");
		put_vs(&f, rec, tool, "perf record:", "perf");
		mr_strbuf_printf(&f, "  faults, stored <= %.0f byte/event:                  %.3f B/event "
		    "(%.3f B per fault)   %s\n", MR_BENCH_RECORD_MAX_BYTES_PER_EVENT,
		    rec->chunk_bytes_per_event, per_fault,
		    rec->chunk_bytes_per_event <= MR_BENCH_RECORD_MAX_BYTES_PER_EVENT ? "met" :
		    "NOT met");
		if (tool && tool->runs)
			mr_strbuf_printf(&f, "  faults, bytes per fault:                      record %.3f (store "
			    "file %.2f), perf.data %.1f\n", per_fault, rec->faults ?
			    rec->file_bytes_per_event * (double)rec->events / (double)rec->faults :
			    0.0, tool->file_bytes_per_event);
		if (rec->lost || (raw && raw->lost) || (tool && tool->lost))
			mr_strbuf_printf(&f, "  loss: %llu samples lost by the recorder, %llu by raw perf, %llu "
			    "by perf record (events/s is then not sustained)\n",
			    (unsigned long long)rec->lost,
			    (unsigned long long)(raw ? raw->lost : 0),
			    (unsigned long long)(tool ? tool->lost : 0));
	} else {
		mr_strbuf_printf(&f, "  faults targets:                                  not run (--no-faults)\n");
	}
	return bench_report_end(&f);
}
