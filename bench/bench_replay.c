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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_int.h"
#include "mr_replay.h"

/* One replay case, and what its child process measured. */
struct replay_case {
	const char *trace, *dir, *nucache;
	const char *const *pol;
	size_t npol;
	uint64_t memory;
	int threads;
};

struct child_result {
	double load_s, run_s, machine_s;
	uint64_t events, misses, memory_pages;
	int nu_computed; /* the next-use times were computed, not reused from the cache */
};

/* In the child: create, run, sum the machines' time. */
static int replay_in_child(void *arg, void *result, struct mr_error *err)
{
	const struct replay_case *k = arg;
	struct mr_replay_opts ro = {
		.trace = k->trace, .policies = k->pol, .npolicies = k->npol,
		.memory_pages = k->memory, .threads = k->threads, .tmpdir = k->dir,
		.nextuse_cache = k->nucache,
	};
	struct child_result *r = result;
	struct mr_replay *rp = NULL;
	double t0 = mr_clock_s(), t1;
	int rc;

	rc = mr_replay_create(&ro, &rp, err);
	t1 = mr_clock_s();
	if (!rc)
		rc = mr_replay_run(rp, err);
	r->load_s = t1 - t0;
	r->run_s = mr_clock_s() - t1;
	if (!rc) {
		for (size_t i = 0; i < k->npol; i++) {
			struct mr_replay_summary s;

			if (!mr_replay_summary(rp, i, &s)) {
				r->machine_s += s.wall_s;
				r->events = s.events;
				r->misses = k->npol == 1 ? s.misses : 0;
				r->memory_pages = k->memory;
			}
		}
	}
	r->nu_computed = !rc && mr_replay_nextuse_note(rp) &&
			 strstr(mr_replay_nextuse_note(rp), "computed");
	mr_replay_destroy(rp);
	return rc;
}

/* One replay in a child; fills res and the child's peak RSS. */
static int run_case(const char *trace, const char *dir, const char *nucache,
		    const char *const *pol, size_t npol,
		    uint64_t memory, int threads, struct child_result *res, uint64_t *peak,
		    struct mr_error *err)
{
	struct replay_case k = { .trace = trace, .dir = dir, .nucache = nucache, .pol = pol,
				 .npol = npol, .memory = memory, .threads = threads };

	memset(res, 0, sizeof(*res));
	return bench_in_child("replay", replay_in_child, &k, res, sizeof(*res), peak, err);
}

/*
 * Append the row of one case, named by fmt, with the figures of its child's result (the
 * machines' rate in policy-events per second of their own time, for npol machines).
 * NULL when out[0..cap) is full.
 */
static struct mr_bench_replay_case *add_case(struct mr_bench_replay_case *out, size_t cap,
					     size_t *n, const struct child_result *res,
					     uint64_t peak, size_t npol, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static struct mr_bench_replay_case *add_case(struct mr_bench_replay_case *out, size_t cap,
					     size_t *n, const struct child_result *res,
					     uint64_t peak, size_t npol, const char *fmt, ...)
{
	struct mr_bench_replay_case *c;
	va_list ap;

	if (*n >= cap)
		return NULL;
	c = &out[(*n)++];
	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	c->events = res->events;
	c->seconds = res->run_s;
	c->mevps = bench_rate((double)res->events, res->run_s) / 1e6;
	c->machine_mevps = bench_rate((double)res->events * (double)npol, res->machine_s) / 1e6;
	c->load_s = res->load_s;
	c->peak_rss = peak;
	c->misses = res->misses;
	c->memory_pages = res->memory_pages;
	c->machine_s = res->machine_s;
	return c;
}

/* Write a Zipf(1.0) trace of events accesses over pages pages, seed 1. */
static int gen_zipf(const char *path, uint64_t pages, uint64_t events, struct mr_error *err)
{
	char np[32], ne[32];
	const char *const params[] = { "pages", np, "events", ne, "skew", "1.0", NULL };

	snprintf(np, sizeof(np), "%llu", (unsigned long long)pages);
	snprintf(ne, sizeof(ne), "%llu", (unsigned long long)events);
	return bench_gen("zipf", params, path, err);
}

/* Peak RSS over distinct pages, without the floor that does not grow with them. */
static double per_page(uint64_t peak, uint64_t floor, uint64_t pages)
{
	return peak > floor ? (double)(peak - floor) / (double)pages : 0;
}

#define FLOOR_PAGES 4096

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
	rc = bench_mkdtemp(o->dir, "replay", dir, sizeof(dir), err);
	if (rc)
		return rc;
	snprintf(trace, sizeof(trace), "%s/zipf.db", dir);
	snprintf(small, sizeof(small), "%s/floor.db", dir);
	snprintf(nucache, sizeof(nucache), "%s/nextuse-cache", dir);
	{
		double t0 = mr_clock_s();

		BENCH_NOTE(o, "generating zipf: %llu accesses over %llu pages into %s ...",
		     (unsigned long long)events, (unsigned long long)pages, trace);
		rc = gen_zipf(trace, pages, events, err);
		if (!rc)
			rc = gen_zipf(small, FLOOR_PAGES, events < 2000000 ? events : 2000000, err);
		if (!rc)
			BENCH_NOTE(o, "generated in %.1f s", mr_clock_s() - t0);
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
			BENCH_NOTE(o, "%s @%d%%: single-threaded ...", pol[i], pct);
			rc = run_case(trace, dir, nucache, &pol[i], 1, memory, 0, &res, &peak, err);
			if (!rc && res.nu_computed) {
				/* the first replay of the trace computed and kept the next-use
				 * times: a row of its own, then the case again as later replays
				 * of the trace run it */
				add_case(out, cap, n, &res, peak, 1, "%s @%d%%, next-use computed",
					 pol[i], pct);
				BENCH_NOTE(o, "%s @%d%%: again, next-use times from the cache ...", pol[i], pct);
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
			c = add_case(out, cap, n, &res, peak, 1, "%s @%d%%", pol[i], pct);
			if (!c)
				continue;
			c->floor_rss = floor;
			c->bytes_per_page = per_page(peak, floor, pages);
			/* what `memreplay replay` with this one policy does by default: the
			 * machine on a worker, the decode on the calling thread */
			BENCH_NOTE(o, "%s @%d%%: decode on a second thread ...", pol[i], pct);
			rc = run_case(trace, dir, nucache, &pol[i], 1, memory, MR_REPLAY_THREADS_AUTO,
				      &res, &peak, err);
			if (!rc)
				add_case(out, cap, n, &res, peak, 1, "%s, threads @%d%%", pol[i], pct);
		}
		if (!rc)
			rc = run_case(small, dir, nucache, pol, npol, FLOOR_PAGES * (uint64_t)pct / 100,
				      MR_REPLAY_THREADS_AUTO, &fres, &floor_all, err);
		for (int threaded = 0; !rc && threaded < 2; threaded++) {
			BENCH_NOTE(o, "%zu policies in one pass @%d%%, %s ...", npol, pct,
			     threaded ? "default threads" : "one thread");
			rc = run_case(trace, dir, nucache, pol, npol, memory, threaded ? MR_REPLAY_THREADS_AUTO : 0,
				      &res, &peak, err);
			if (rc)
				break;
			c = add_case(out, cap, n, &res, peak, npol, "%zu in one pass%s @%d%%", npol,
				     threaded ? ", threads" : "", pct);
			if (!c)
				continue;
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

		BENCH_NOTE(o, "%s with memory for every page (the ceiling) ...", pol[0]);
		rc = run_case(trace, dir, nucache, &pol[0], 1, pages, 0, &res, &peak, err);
		c = rc ? NULL : add_case(out, cap, n, &res, peak, 1, "%s @100%%, no reclaim", pol[0]);
		if (c) {
			struct mr_bench_replay_case row;

			row = *c;
			memmove(&out[1], &out[0], (*n - 1) * sizeof(*out));
			out[0] = row;
		}
	}
	if (!o->keep)
		bench_rmtree(dir); /* the traces, their -wal/-shm files, the next-use cache */
	else
		BENCH_NOTE(o, "kept %s", trace);
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

/* The case named name, NULL if none. */
static const struct mr_bench_replay_case *find_case(const struct mr_bench_replay_case *c,
						    size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

/*
 * The issue's targets as ratios of this run's own figures (docs/replay.md, "Speed"):
 *   - per miss: the machine's time beyond the ceiling's per event, over the misses, in
 *     dependent loads of the probe (targets: lru <= 1.0, mglru <= 1.5);
 *   - the ceiling: its machine time per event in overlapped loads (<= 1.5);
 *   - memory: each policy's 10 % and 50 % rows give two equations, peak - floor =
 *     a * pages + b * frames, solved for a (bytes per distinct page, <= 32) and b (bytes
 *     per simulated frame, <= 128).
 */
static void format_targets(const struct mr_bench_memory *mem, const struct mr_bench_replay_case *c,
			   size_t n, struct mr_strbuf *sb)
{
	const struct mr_bench_replay_case *ceil = n && strstr(c[0].name, "no reclaim") ? &c[0] : NULL;
	double ceil_ns = ceil && ceil->events ? ceil->machine_s * 1e9 / (double)ceil->events : 0;
	uint64_t pages = ceil ? ceil->memory_pages : 0;

	mr_strbuf_printf(sb, "\ntargets (ratios of this run's figures):\n");
	if (ceil_ns > 0 && mem->independent_ns > 0)
		mr_strbuf_printf(sb, "  %-28s %6.1f ns/event = %4.2f overlapped loads   (target <= 1.5)\n",
				 "ceiling, machine", ceil_ns, ceil_ns / mem->independent_ns);
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_replay_case *k = &c[i];
		const char *target = !strncmp(k->name, "lru @", 5) ? "1.0" :
				     !strncmp(k->name, "mglru @", 7) ? "1.5" : NULL;
		double ns;

		if (!k->misses || strchr(k->name, ',') || !ceil_ns || mem->dependent_ns <= 0)
			continue;
		ns = (k->machine_s * 1e9 - ceil_ns * (double)k->events) / (double)k->misses;
		mr_strbuf_printf(sb, "  %-28s %6.0f ns/miss  = %4.2f dependent loads%s%s%s\n",
				 k->name, ns, ns / mem->dependent_ns, target ? "   (target <= " : "",
				 target ? target : "", target ? ")" : "");
	}
	for (size_t i = 0; pages && i < n; i++) {
		const struct mr_bench_replay_case *a = &c[i], *b;
		char name[sizeof(a->name)];
		const char *at = strstr(a->name, " @10%");
		double ya, yb, f10, f50, per_frame, per_page;

		if (!at || strchr(a->name, ',') || strstr(a->name, "in one pass") || !a->floor_rss)
			continue;
		snprintf(name, sizeof(name), "%.*s @50%%", (int)(at - a->name), a->name);
		b = find_case(c, n, name);
		if (!b || !b->floor_rss || b->memory_pages <= a->memory_pages)
			continue;
		ya = a->peak_rss > a->floor_rss ? (double)(a->peak_rss - a->floor_rss) : 0;
		yb = b->peak_rss > b->floor_rss ? (double)(b->peak_rss - b->floor_rss) : 0;
		f10 = (double)a->memory_pages;
		f50 = (double)b->memory_pages;
		per_frame = (yb - ya) / (f50 - f10);
		per_page = (ya - per_frame * f10) / (double)pages;
		snprintf(name, sizeof(name), "%.*s, memory", (int)(at - a->name), a->name);
		mr_strbuf_printf(sb, "  %-28s %6.1f B/page + %5.1f B/frame (target <= 32 + 128)\n",
				 name, per_page, per_frame);
	}
}

int mr_bench_replay_format(const struct mr_bench_memory *mem,
			   const struct mr_bench_replay_case *c, size_t n, char *buf, size_t cap)
{
	struct mr_strbuf sb = { buf, cap, 0 };

	if (!mem || (!c && n) || (!buf && cap))
		return MR_EINVAL;
	if (cap)
		buf[0] = '\0';
	mr_strbuf_printf(&sb, "memory (%llu MiB, as the per-page arrays are mapped): a random "
			 "cache-line load costs %.0f ns when\nthe previous load gives its address "
			 "(a list walk), %.1f ns when the addresses are known ahead\n\n",
			 (unsigned long long)(mem->bytes >> 20), mem->dependent_ns,
			 mem->independent_ns);
	mr_strbuf_printf(&sb, "%-34s %10s %8s %9s %10s %7s %9s %9s %9s %7s\n", "case", "events",
			 "replay s", "M ev/s", "machine", "load s", "peak RSS", "floor", "B/page",
			 "ratio");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_replay_case *k = &c[i];
		char ratio[16] = "", floor[24] = "-", per_page[24];

		if (k->ratio > 0)
			snprintf(ratio, sizeof(ratio), "%.2f", k->ratio);
		/* a case without a floor run (next-use computed) has "-" there */
		if (k->floor_rss)
			snprintf(floor, sizeof(floor), "%5llu MiB",
				 (unsigned long long)(k->floor_rss >> 20));
		bench_fig(per_page, sizeof(per_page), k->floor_rss != 0, "%.1f", k->bytes_per_page);
		mr_strbuf_printf(&sb, "%-34s %10llu %8.2f %9.1f %10.1f %7.2f %5llu MiB %9s %9s %7s\n",
				 k->name, (unsigned long long)k->events, k->seconds, k->mevps,
				 k->machine_mevps, k->load_s,
				 (unsigned long long)(k->peak_rss >> 20), floor, per_page, ratio);
	}
	mr_strbuf_printf(&sb,
	       "M ev/s = events / replay wall time (decode included; one thread for single runs,\n"
	       "\"threads\": the decode on a second thread, as `memreplay replay` runs one policy);\n"
	       "machine = policy-events / the machines' own time (worker time, summed);\n"
	       "load = reading the trace's tables and sizing the machines; peak RSS of the child\n"
	       "process that ran the case; floor = peak RSS of the same case on a 4096-page trace\n"
	       "(program, SQLite, decode buffers); B/page = (peak RSS - floor) / distinct pages;\n"
	       "@100%%, no reclaim = the first policy with memory for every page: the decode, a\n"
	       "fault per page and a PTE young bit per access, the ceiling for any memory size;\n"
	       "ratio = one pass "
	       "(load + replay) over the same summed for the single runs of those policies;\n"
	       "\"next-use computed\": the first replay of the trace by a policy that needs next-use\n"
	       "times (opt), which computes them and keeps them in the cache; the other rows reuse\n"
	       "them, as every later replay of the same trace does (docs/replay.md)\n");
	format_targets(mem, c, n, &sb);
	return bench_report_end(&sb);
}
