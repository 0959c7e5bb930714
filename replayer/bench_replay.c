// SPDX-License-Identifier: GPL-2.0
/*
 * bench_replay.c - `memreplay bench replay`: replay speed and memory on a Zipf(1.0) trace
 * (generator `zipf`, default 50M accesses over 1M pages, generated once into a temporary
 * directory) at memory sizes of 10% and 50% of its pages:
 *
 *   - each policy alone, single-threaded (threads = 0: decode and replay on one core):
 *     events/s of the replay phase and of the machine alone, peak RSS; and again as
 *     `memreplay replay` runs one policy by default, the decode on a second thread;
 *   - every policy in one pass, single-threaded and with the default worker threads,
 *     against the sum of the single runs (load + replay wall time);
 *   - peak RSS per distinct page: the peak minus the floor (the same case replayed on a
 *     4096-page Zipf trace, which has the same program, SQLite and decode buffers but
 *     almost no per-page state), over the distinct pages;
 *   - the ceiling: the first policy with memory for every page, so nothing is reclaimed
 *     and the run is the decode, 1 fault per page and a PTE young bit per access. No
 *     policy replays this trace faster with less memory, where it also reclaims.
 *
 * mr_bench_memory() measures what a random cache-line load costs here, the bound the
 * replay figures sit on.
 *
 * Every case runs in a child process so that its peak RSS (getrusage of the child) is its
 * own. Figures, not assertions.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_gen.h"
#include "mr_replay.h"
#include "mr_util.h"
#include "rp_int.h"

struct child_result {
	int rc;
	char msg[256];
	double load_s, run_s, machine_s;
	uint64_t events;
	int nu_computed; /* the next-use times were computed, not reused from the cache */
};

static void note(const struct mr_bench_replay_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(const struct mr_bench_replay_opts *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->note(o->note_arg, line);
}

/* One replay in a child; fills res and the child's peak RSS. */
static int run_case(const char *trace, const char *dir, const char *nucache,
		    const char *const *pol, size_t npol,
		    uint64_t memory, int threads, struct child_result *res, uint64_t *peak,
		    struct mr_error *err)
{
	int fds[2], status = 0;
	struct rusage ru;
	pid_t pid;
	ssize_t got;

	memset(res, 0, sizeof(*res));
	if (pipe(fds))
		return mr_error_set(err, MR_EIO, "bench: pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return mr_error_set(err, MR_EIO, "bench: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		struct mr_replay_opts ro = {
			.trace = trace, .policies = pol, .npolicies = npol, .memory_pages = memory,
			.threads = threads, .tmpdir = dir, .nextuse_cache = nucache,
		};
		struct child_result r = { 0 };
		struct mr_error e = { 0 };
		struct mr_replay *rp = NULL;
		double t0 = mr_clock_s(), t1;

		close(fds[0]);
		r.rc = mr_replay_create(&ro, &rp, &e);
		t1 = mr_clock_s();
		if (!r.rc)
			r.rc = mr_replay_run(rp, &e);
		r.load_s = t1 - t0;
		r.run_s = mr_clock_s() - t1;
		if (!r.rc) {
			for (size_t i = 0; i < npol; i++) {
				struct mr_replay_summary s;

				if (!mr_replay_summary(rp, i, &s)) {
					r.machine_s += s.wall_s;
					r.events = s.events;
				}
			}
		}
		snprintf(r.msg, sizeof(r.msg), "%.255s", e.msg);
		r.nu_computed = !r.rc && mr_replay_nextuse_note(rp) &&
				strstr(mr_replay_nextuse_note(rp), "computed");
		mr_replay_destroy(rp);
		if (write(fds[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	got = read(fds[0], res, sizeof(*res));
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return mr_error_set(err, MR_EIO, "bench: wait: %s", strerror(errno));
	if (got != (ssize_t)sizeof(*res) || !WIFEXITED(status) || WEXITSTATUS(status))
		return mr_error_set(err, MR_EIO, "bench: the replay child failed (status %d)", status);
	if (res->rc)
		return mr_error_set(err, res->rc, "%s", res->msg);
	*peak = (uint64_t)ru.ru_maxrss * 1024;
	return 0;
}

static struct mr_bench_replay_case *next_case(struct mr_bench_replay_case *out, size_t cap,
					      size_t *n)
{
	if (*n >= cap)
		return NULL;
	memset(&out[*n], 0, sizeof(out[*n]));
	return &out[(*n)++];
}

/* The figures of one case from its child's result: policy-events per second of the
 * machines' own time for npol machines. */
static void fill_case(struct mr_bench_replay_case *c, const struct child_result *res,
		      uint64_t peak, size_t npol)
{
	c->events = res->events;
	c->seconds = res->run_s;
	c->mevps = res->run_s > 0 ? (double)res->events / res->run_s / 1e6 : 0;
	c->machine_mevps = res->machine_s > 0 ?
		(double)res->events * (double)npol / res->machine_s / 1e6 : 0;
	c->load_s = res->load_s;
	c->peak_rss = peak;
}

/* Write a Zipf(1.0) trace of events accesses over pages pages, seed 1. */
static int gen_zipf(const char *path, uint64_t pages, uint64_t events, struct mr_error *err)
{
	const struct mr_gen *g = mr_gen_find("zipf");
	struct mr_gen_values v;
	char num[32];
	int rc;

	if (!g)
		return mr_error_set(err, MR_ENOENT, "bench: the zipf generator is not built in");
	rc = mr_gen_defaults(g, &v, err);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)pages);
	if (!rc)
		rc = mr_gen_set(g, &v, "pages", num, err);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)events);
	if (!rc)
		rc = mr_gen_set(g, &v, "events", num, err);
	if (!rc)
		rc = mr_gen_set(g, &v, "skew", "1.0", err);
	v.seed = 1;
	if (!rc)
		rc = mr_gen_write(g, &v, path, NULL, err);
	return rc;
}

/* Peak RSS over distinct pages, without the floor that does not grow with them. */
static double per_page(uint64_t peak, uint64_t floor, uint64_t pages)
{
	return peak > floor ? (double)(peak - floor) / (double)pages : 0;
}

#define FLOOR_PAGES 4096

/* Remove the files of a directory (the next-use cache the cases made). */
static void remove_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[1400];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

int mr_bench_replay(const struct mr_bench_replay_opts *o, struct mr_bench_replay_case *out,
		    size_t cap, size_t *n, struct mr_error *err)
{
	static const char *const six_mglru[] = { "lru", "lru:swappiness=100", "mglru",
						 "mglru:swappiness=100", "mglru:enabled=3", "opt" };
	static const char *const six_lru[] = { "lru", "lru:swappiness=100", "lru:swappiness=0",
					       "lru:swappiness=200", "opt", "opt" };
	const char *const *pol;
	size_t npol;
	uint64_t pages = o->pages ? o->pages : 1048576, events = o->events ? o->events : 50000000;
	char dir[1024], trace[1100], small[1100], nucache[1100];
	int rc;

	*n = 0;
	if (o->npolicies) {
		pol = o->policies;
		npol = o->npolicies;
	} else if (mr_replay_policy_exists("mglru")) {
		pol = six_mglru;
		npol = 6;
	} else {
		pol = six_lru;
		npol = 6;
	}
	/* a mistyped spec fails now, not after generating the trace */
	for (size_t i = 0; i < npol; i++) {
		rc = mr_replay_check_policy(pol[i], err);
		if (rc)
			return rc;
	}
	snprintf(dir, sizeof(dir), "%s/memreplay-bench-replay.XXXXXX", o->dir ? o->dir : "/tmp");
	if (!mkdtemp(dir))
		return mr_error_set(err, MR_EIO, "bench: cannot create a directory under %s: %s",
				    o->dir ? o->dir : "/tmp", strerror(errno));
	snprintf(trace, sizeof(trace), "%s/zipf.db", dir);
	snprintf(small, sizeof(small), "%s/floor.db", dir);
	snprintf(nucache, sizeof(nucache), "%s/nextuse-cache", dir);
	{
		double t0 = mr_clock_s();

		note(o, "generating zipf: %llu accesses over %llu pages into %s ...",
		     (unsigned long long)events, (unsigned long long)pages, trace);
		rc = gen_zipf(trace, pages, events, err);
		if (!rc)
			rc = gen_zipf(small, FLOOR_PAGES, events < 2000000 ? events : 2000000, err);
		if (!rc)
			note(o, "generated in %.1f s", mr_clock_s() - t0);
	}
	for (int pct = 10; !rc && pct <= 50; pct += 40) {
		uint64_t memory = pages * (uint64_t)pct / 100;
		double sum_wall = 0;
		struct child_result res, fres;
		struct mr_bench_replay_case *c;
		uint64_t peak = 0, floor = 0, floor_all = 0;

		for (size_t i = 0; !rc && i < npol; i++) {
			int dup = 0;

			for (size_t j = 0; j < i; j++)
				dup |= !strcmp(pol[i], pol[j]);
			note(o, "%s @%d%%: single-threaded ...", pol[i], pct);
			rc = run_case(trace, dir, nucache, &pol[i], 1, memory, 0, &res, &peak, err);
			if (!rc && res.nu_computed) {
				/* the first replay of the trace computed and kept the next-use
				 * times: a row of its own, then the case again as later replays
				 * of the trace run it */
				c = next_case(out, cap, n);
				if (c) {
					snprintf(c->name, sizeof(c->name), "%s @%d%%, next-use computed",
						 pol[i], pct);
					fill_case(c, &res, peak, 1);
				}
				note(o, "%s @%d%%: again, next-use times from the cache ...", pol[i], pct);
				rc = run_case(trace, dir, nucache, &pol[i], 1, memory, 0, &res, &peak, err);
			}
			if (rc)
				break;
			sum_wall += res.load_s + res.run_s;
			if (dup)
				continue;
			rc = run_case(small, dir, nucache, &pol[i], 1, FLOOR_PAGES * (uint64_t)pct / 100, 0,
				      &fres, &floor, err);
			if (rc)
				break;
			c = next_case(out, cap, n);
			if (!c)
				continue;
			snprintf(c->name, sizeof(c->name), "%s @%d%%", pol[i], pct);
			fill_case(c, &res, peak, 1);
			c->floor_rss = floor;
			c->bytes_per_page = per_page(peak, floor, pages);
			/* what `memreplay replay` with this one policy does by default: the
			 * machine on a worker, the decode on the calling thread */
			note(o, "%s @%d%%: decode on a second thread ...", pol[i], pct);
			rc = run_case(trace, dir, nucache, &pol[i], 1, memory, MR_REPLAY_THREADS_AUTO,
				      &res, &peak, err);
			c = rc ? NULL : next_case(out, cap, n);
			if (c) {
				snprintf(c->name, sizeof(c->name), "%s, threads @%d%%", pol[i], pct);
				fill_case(c, &res, peak, 1);
			}
		}
		if (!rc)
			rc = run_case(small, dir, nucache, pol, npol, FLOOR_PAGES * (uint64_t)pct / 100,
				      MR_REPLAY_THREADS_AUTO, &fres, &floor_all, err);
		for (int threaded = 0; !rc && threaded < 2; threaded++) {
			note(o, "%zu policies in one pass @%d%%, %s ...", npol, pct,
			     threaded ? "default threads" : "one thread");
			rc = run_case(trace, dir, nucache, pol, npol, memory, threaded ? MR_REPLAY_THREADS_AUTO : 0,
				      &res, &peak, err);
			if (rc)
				break;
			c = next_case(out, cap, n);
			if (!c)
				continue;
			snprintf(c->name, sizeof(c->name), "%zu in one pass%s @%d%%", npol,
				 threaded ? ", threads" : "", pct);
			fill_case(c, &res, peak, npol);
			c->floor_rss = floor_all;
			c->bytes_per_page = per_page(peak, floor_all, pages);
			c->ratio = sum_wall > 0 ? (res.load_s + res.run_s) / sum_wall : 0;
		}
	}
	/* the ceiling runs last, when the next-use times any policy needs are in the cache
	 * (so its time is the replay's alone and the "next-use computed" row stays the
	 * first replay's), and is listed first */
	if (!rc) {
		struct child_result res;
		struct mr_bench_replay_case *c;
		uint64_t peak = 0;

		note(o, "%s with memory for every page (the ceiling) ...", pol[0]);
		rc = run_case(trace, dir, nucache, &pol[0], 1, pages, 0, &res, &peak, err);
		c = rc ? NULL : next_case(out, cap, n);
		if (c) {
			struct mr_bench_replay_case row;

			snprintf(c->name, sizeof(c->name), "%s @100%%, no reclaim", pol[0]);
			fill_case(c, &res, peak, 1);
			row = *c;
			memmove(&out[1], &out[0], (*n - 1) * sizeof(*out));
			out[0] = row;
		}
	}
	if (!o->keep) {
		/* the traces with their -wal/-shm files, the next-use cache, the directory */
		remove_files(nucache);
		rmdir(nucache);
		remove_files(dir);
		rmdir(dir);
	} else {
		note(o, "kept %s", trace);
	}
	return rc;
}

/* xorshift64: the probe's addresses, cheap next to a cache miss */
static uint64_t xs64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#define PROBE_BYTES (64u << 20)
#define PROBE_LINE 64
#define PROBE_LOADS (4u << 20)

int mr_bench_memory(struct mr_bench_memory *out, struct mr_error *err)
{
	const uint64_t lines = PROBE_BYTES / PROBE_LINE, mask = lines - 1;
	uint64_t *buf = mr_big_alloc(PROBE_BYTES), x = 0x9e3779b97f4a7c15ull, sum = 0, at = 0;
	double t0;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return mr_error_set(err, MR_ENOMEM, "bench: cannot map %u MiB for the memory probe",
				    PROBE_BYTES >> 20);
	/* One cycle through every line in random order (Sattolo), each line's first word
	 * the index of the next: walking it is a chain of dependent misses. */
	for (uint64_t i = 0; i < lines; i++)
		buf[i * (PROBE_LINE / 8)] = i;
	for (uint64_t i = lines - 1; i > 0; i--) {
		uint64_t j = xs64(&x) % i, t = buf[i * (PROBE_LINE / 8)];

		buf[i * (PROBE_LINE / 8)] = buf[j * (PROBE_LINE / 8)];
		buf[j * (PROBE_LINE / 8)] = t;
	}
	t0 = mr_clock_s();
	for (uint32_t i = 0; i < PROBE_LOADS; i++)
		at = buf[at * (PROBE_LINE / 8)];
	out->dependent_ns = (mr_clock_s() - t0) * 1e9 / PROBE_LOADS;
	t0 = mr_clock_s();
	for (uint32_t i = 0; i < PROBE_LOADS; i++)
		sum += buf[(xs64(&x) & mask) * (PROBE_LINE / 8)];
	out->independent_ns = (mr_clock_s() - t0) * 1e9 / PROBE_LOADS;
	out->bytes = PROBE_BYTES;
	mr_big_free(buf, PROBE_BYTES);
	/* keep the loads: their results feed nothing else */
	__asm__ volatile("" : : "r"(at), "r"(sum));
	return 0;
}
