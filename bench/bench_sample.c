// SPDX-License-Identifier: GPL-2.0
/*
 * bench_sample.c - `memreplay bench sample`: how far a sampled replay's curve is from the
 * full one, and how long each takes (docs/replay.md, "Sampled replay").
 *
 * Per trace (a Zipf(1.0) trace generated as `bench replay` makes it, default 50M accesses
 * over 1M pages, and any traces given): lru, mglru and opt at 16 memory sizes from 1/32
 * of the trace's distinct pages to all of them (equal ratios), replayed
 *   - in full, all 48 runs in one pass;
 *   - in full at one size (the middle one): "one full replay", the time the issue holds
 *     a sampled curve to;
 *   - sampled at 1/N (default 1/16), the 48 runs in one pass, once per seed (--seeds K:
 *     seeds 0 .. K - 1; one seed's error says little on a trace of few units);
 * each on one thread (threads = 0), next-use times and the sampling's page counts from a
 * cache primed before the timed runs (the page counts' pass is timed on its own: what a
 * first sampled replay of a trace adds). The error per policy is over the 16 sizes:
 * |sampled - full| miss ratio in percentage points, as `memreplay curve` prints both
 * (mr_results_curve() on the results files the replays write), its mean over sizes and
 * seeds, the worst seed's mean and the largest at any size, and the mean of the raw
 * ratio (misses / the sampled machine's own references) beside it.
 *
 * Figures, not assertions. Times are wall times of create + run, not of the results'
 * writing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_int.h"
#include "mr_replay.h"

#define NSIZES 16

static const char *const policies[] = { "lru", "mglru", "opt" };
#define NPOL (sizeof(policies) / sizeof(policies[0]))

/* The trace's distinct pages (those with page rows). */
static int trace_pages(const char *trace, const char *dir, uint64_t *pages, struct mr_error *err)
{
	const char *pol = "lru";
	struct mr_replay_opts ro = { .trace = trace, .policies = &pol, .npolicies = 1,
				     .memory_pages = 1, .tmpdir = dir };
	struct mr_replay *r = NULL;
	int rc = mr_replay_create(&ro, &r, err);

	if (!rc)
		mr_replay_sampled_pages(r, pages);
	mr_replay_destroy(r);
	return rc;
}

/* One replay of the policies at sizes[0..nsizes), sampled 1/den (0 = in full), its
 * results to out (NULL = none); *secs = create + run. */
static int replay_once(const char *trace, const char *dir, const char *nucache,
		       const uint64_t *sizes, size_t nsizes, uint32_t den, uint64_t seed,
		       uint32_t unit, const char *out, double *secs, uint64_t *events,
		       struct mr_error *err)
{
	struct mr_replay_opts ro = {
		.trace = trace, .policies = policies, .npolicies = NPOL,
		.memory_sizes = sizes, .nmemory = nsizes, .threads = 0, .tmpdir = dir,
		.nextuse_cache = nucache, .sample_den = den, .sample_seed = seed,
		.sample_unit = unit,
	};
	struct mr_replay *r = NULL;
	double t0 = mr_clock_s();
	int rc = mr_replay_create(&ro, &r, err);

	if (!rc)
		rc = mr_replay_run(r, err);
	*secs = mr_clock_s() - t0;
	if (!rc && events) {
		struct mr_replay_summary s;

		if (!mr_replay_summary(r, 0, &s))
			*events = s.events;
	}
	if (!rc && out)
		rc = mr_replay_write_results(r, out, err);
	mr_replay_destroy(r);
	return rc;
}

static int read_curve(const char *path, struct mr_results **res, struct mr_curve **c,
		      struct mr_error *err)
{
	int rc = mr_results_open(path, res, err);

	if (!rc)
		rc = mr_results_curve(*res, c, err);
	return rc;
}

/* One seed's errors, added into the trace's NPOL rows at out[0..NPOL): per policy,
 * sampled against full over the sizes (the caller divides the sums by the seeds). */
static int add_errors(const char *full_db, const char *sampled_db,
		      struct mr_bench_sample_case *out, const uint64_t *sizes,
		      double (*sum)[NSIZES], double (*full)[NSIZES], struct mr_error *err)
{
	struct mr_results *rf = NULL, *rs = NULL;
	struct mr_curve *cf = NULL, *cs = NULL;
	int rc = read_curve(full_db, &rf, &cf, err);

	if (!rc)
		rc = read_curve(sampled_db, &rs, &cs, err);
	for (size_t p = 0; !rc && p < NPOL; p++) {
		struct mr_bench_sample_case *k = &out[p];
		double mae = 0, raw_mae = 0;
		size_t m = 0;

		for (size_t i = 0; i < cf->n; i++) {
			const struct mr_curve_row *f = &cf->rows[i];

			if (strcmp(f->policy, policies[p]))
				continue;
			for (size_t j = 0; j < cs->n; j++) {
				const struct mr_curve_row *s = &cs->rows[j];
				double e, raw;

				if (strcmp(s->spec, f->spec) || s->memory_pages != f->memory_pages ||
				    isnan(s->miss_ratio) || isnan(f->miss_ratio))
					continue;
				e = 100.0 * fabs(s->miss_ratio - f->miss_ratio);
				raw = 100.0 * fabs(s->miss_ratio_raw - f->miss_ratio);
				/* the seeds' sum at this size, for their mean's error */
				for (int z = 0; z < NSIZES; z++)
					if (sizes[z] == f->memory_pages) {
						sum[p][z] += s->miss_ratio;
						full[p][z] = f->miss_ratio;
					}
				mae += e;
				raw_mae += raw;
				if (e > k->max_pp)
					k->max_pp = e;
				m++;
			}
		}
		k->nsizes = m;
		if (m) {
			mae /= (double)m;
			raw_mae /= (double)m;
		}
		k->mae_pp += mae;
		k->mae_raw_pp += raw_mae;
		if (mae > k->worst_seed_pp)
			k->worst_seed_pp = mae;
	}
	mr_curve_free(cf);
	mr_curve_free(cs);
	mr_results_close(rf);
	mr_results_close(rs);
	return rc;
}

/* The sampling's page counts into the cache first (a sampled replay's creation counts
 * them, once per trace), so that no timed run counts them; *secs = that count. */
static int prime_counts(const char *trace, const char *dir, const char *nucache,
			uint64_t size, uint32_t den, uint32_t unit, double *secs,
			struct mr_error *err)
{
	const char *pol = "lru";
	struct mr_replay_opts ro = { .trace = trace, .policies = &pol, .npolicies = 1,
				     .memory_sizes = &size, .nmemory = 1, .threads = 0,
				     .tmpdir = dir, .nextuse_cache = nucache, .sample_den = den,
				     .sample_unit = unit };
	struct mr_replay *r = NULL;
	int rc = mr_replay_create(&ro, &r, err);

	if (!rc)
		*secs = mr_replay_sample_counts_s(r);
	mr_replay_destroy(r);
	return rc;
}

/* Full, one size, sampled: the three timed replays of one trace and its error rows. */
static int bench_trace(const struct mr_bench_sample_opts *o, const char *trace, const char *name,
		       const char *dir, uint32_t den, struct mr_bench_sample_case *out,
		       size_t cap, size_t *n, struct mr_error *err)
{
	char nucache[1100], full_db[1100], sampled_db[1100];
	uint64_t pages = 0, sizes[NSIZES], events = 0;
	double sum[NPOL][NSIZES], full[NPOL][NSIZES]; /* the seeds' sum, the full curve */
	double full_s = 0, full1_s = 0, sampled_s = 0, prime_s = 0, counts_s = 0;
	uint32_t seeds = o->seeds ? o->seeds : 1;
	int rc;

	snprintf(nucache, sizeof(nucache), "%s/nextuse-cache", dir);
	snprintf(full_db, sizeof(full_db), "%s/full.db", dir);
	snprintf(sampled_db, sizeof(sampled_db), "%s/sampled.db", dir);
	rc = trace_pages(trace, dir, &pages, err);
	if (rc)
		return rc;
	if (pages < 32 * 16)
		return mr_error_set(err, MR_EINVAL, "bench sample: %s has %llu pages: too few for 16 sizes from 1/32 of them",
				    trace, (unsigned long long)pages);
	/* 16 sizes in equal ratios from pages / 32 to pages */
	for (int i = 0; i < NSIZES; i++)
		sizes[i] = (uint64_t)llround((double)pages / 32.0 * pow(32.0, (double)i / (NSIZES - 1)));
	/* the next-use times into the cache first, so that no timed run computes them */
	BENCH_NOTE(o, "%s: %llu pages; next-use times for opt ...", name, (unsigned long long)pages);
	rc = replay_once(trace, dir, nucache, &sizes[NSIZES - 1], 1, 0, 0, 0, NULL, &prime_s,
			 &events, err);
	if (rc)
		return rc;
	BENCH_NOTE(o, "%s: the sampling's page counts ...", name);
	rc = prime_counts(trace, dir, nucache, sizes[NSIZES - 1], den, o->unit, &counts_s, err);
	if (rc)
		return rc;
	BENCH_NOTE(o, "%s: in full, 3 policies x %d sizes in one pass ...", name, NSIZES);
	rc = replay_once(trace, dir, nucache, sizes, NSIZES, 0, 0, 0, full_db, &full_s, NULL, err);
	if (rc)
		return rc;
	BENCH_NOTE(o, "%s: in full, 3 policies at one size ...", name);
	rc = replay_once(trace, dir, nucache, &sizes[NSIZES / 2], 1, 0, 0, 0, NULL, &full1_s, NULL,
			 err);
	if (rc)
		return rc;
	if (*n + NPOL > cap)
		return mr_error_set(err, MR_ERANGE, "bench sample: no room for more rows");
	for (size_t p = 0; p < NPOL; p++) {
		struct mr_bench_sample_case *k = &out[*n + p];

		memset(k, 0, sizeof(*k));
		snprintf(k->trace, sizeof(k->trace), "%s", name);
		snprintf(k->policy, sizeof(k->policy), "%s", policies[p]);
		k->pages = pages;
		k->events = events;
		k->den = den;
		k->unit = o->unit ? o->unit : MR_REPLAY_SAMPLE_UNIT;
		k->seeds = seeds;
		k->full_s = full_s;
		k->full1_s = full1_s;
		k->counts_s = counts_s;
	}
	memset(sum, 0, sizeof(sum));
	for (size_t p = 0; p < NPOL; p++)
		for (int z = 0; z < NSIZES; z++)
			full[p][z] = NAN;
	for (uint32_t seed = 0; seed < seeds; seed++) {
		double t = 0;

		BENCH_NOTE(o, "%s: sampled 1/%u (seed %u), 3 policies x %d sizes in one pass ...",
			   name, den, seed, NSIZES);
		unlink(sampled_db);
		rc = replay_once(trace, dir, nucache, sizes, NSIZES, den, seed, o->unit, sampled_db,
				 &t, NULL, err);
		if (!rc)
			rc = add_errors(full_db, sampled_db, &out[*n], sizes, sum, full, err);
		if (rc)
			return rc;
		sampled_s += t;
	}
	sampled_s /= seeds;
	for (size_t p = 0; p < NPOL; p++) {
		double m = 0;
		int nz = 0;

		out[*n + p].mae_pp /= seeds;
		out[*n + p].mae_raw_pp /= seeds;
		out[*n + p].sampled_s = sampled_s;
		for (int z = 0; z < NSIZES; z++)
			if (!isnan(full[p][z])) {
				m += 100.0 * fabs(sum[p][z] / seeds - full[p][z]);
				nz++;
			}
		out[*n + p].mean_mae_pp = nz ? m / nz : NAN;
	}
	*n += NPOL;
	BENCH_NOTE(o, "%s: full %.1f s, one size %.1f s, sampled %.1f s (mean of %u seeds), "
		   "page counts %.1f s", name, full_s, full1_s, sampled_s, seeds, counts_s);
	return 0;
}

int mr_bench_sample(const struct mr_bench_sample_opts *o, struct mr_bench_sample_case *out,
		    size_t cap, size_t *n, struct mr_error *err)
{
	uint64_t pages = o->pages ? o->pages : 1048576, events = o->events ? o->events : 50000000;
	uint32_t den = o->den ? o->den : 16;
	char dir[1024], trace[1100], name[96];
	int rc;

	*n = 0;
	rc = bench_mkdtemp(o->dir, "sample", dir, sizeof(dir), err);
	if (rc)
		return rc;
	if (!o->no_zipf) {
		char np[32], ne[32];
		const char *const params[] = { "pages", np, "events", ne, "skew", "1.0", NULL };
		double t0 = mr_clock_s();

		snprintf(trace, sizeof(trace), "%s/zipf.db", dir);
		snprintf(np, sizeof(np), "%llu", (unsigned long long)pages);
		snprintf(ne, sizeof(ne), "%llu", (unsigned long long)events);
		BENCH_NOTE(o, "generating zipf: %llu accesses over %llu pages into %s ...",
			   (unsigned long long)events, (unsigned long long)pages, trace);
		rc = bench_gen("zipf", params, trace, err);
		if (!rc) {
			BENCH_NOTE(o, "generated in %.1f s", mr_clock_s() - t0);
			snprintf(name, sizeof(name), "zipf %s", ne);
			rc = bench_trace(o, trace, name, dir, den, out, cap, n, err);
		}
	}
	for (size_t i = 0; !rc && i < o->ntraces; i++) {
		const char *base = strrchr(o->traces[i], '/');
		char sub[1100];

		/* each trace's next-use cache and results files apart */
		rc = bench_mkdtemp(dir, "trace", sub, sizeof(sub), err);
		if (rc)
			break;
		snprintf(name, sizeof(name), "%.95s", base ? base + 1 : o->traces[i]);
		rc = bench_trace(o, o->traces[i], name, sub, den, out, cap, n, err);
	}
	if (!o->keep)
		bench_rmtree(dir);
	else
		BENCH_NOTE(o, "kept %s", dir);
	return rc;
}

int mr_bench_sample_format(const struct mr_bench_sample_case *c, size_t n, char *buf, size_t cap)
{
	struct mr_strbuf sb = { buf, cap, 0 };
	double sum = 0, worst = 0, msum = 0;

	if ((!c && n) || (!buf && cap))
		return MR_EINVAL;
	if (cap)
		buf[0] = '\0';
	mr_strbuf_printf(&sb, "%-28s %-6s %8s %10s %5s %5s %5s %9s %9s %9s %9s %9s %8s %8s %9s %8s %7s %7s %7s\n",
			 "trace", "policy", "pages", "events", "rate", "unit", "seeds", "MAE pp",
			 "worst pp", "max pp", "raw MAE", "mean MAE", "full s", "1-size s",
			 "sampled s", "counts s", "/full", "/1-size", "+counts");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_sample_case *k = &c[i];

		mr_strbuf_printf(&sb, "%-28.28s %-6s %8llu %10llu  1/%-2u %4uK %5u %9.3f %9.3f %9.3f "
				 "%9.3f %9.3f %8.1f %8.1f %9.1f %8.2f %7.3f %7.3f %7.3f\n", k->trace, k->policy,
				 (unsigned long long)k->pages, (unsigned long long)k->events, k->den,
				 k->unit * 4, k->seeds, k->mae_pp, k->worst_seed_pp, k->max_pp,
				 k->mae_raw_pp, k->mean_mae_pp, k->full_s, k->full1_s, k->sampled_s, k->counts_s,
				 k->full_s > 0 ? k->sampled_s / k->full_s : 0,
				 k->full1_s > 0 ? k->sampled_s / k->full1_s : 0,
				 k->full1_s > 0 ? (k->sampled_s + k->counts_s) / k->full1_s : 0);
		sum += k->mae_pp;
		msum += k->mean_mae_pp;
		if (k->mae_pp > worst)
			worst = k->mae_pp;
	}
	if (n)
		mr_strbuf_printf(&sb, "mean MAE over the rows %.3f pp, worst %.3f pp; of the seeds' mean "
				 "curves %.3f pp\n", sum / (double)n, worst, msum / (double)n);
	mr_strbuf_printf(&sb,
	       "lru, mglru and opt at 16 sizes from 1/32 of the trace's pages to all of them;\n"
	       "MAE pp = mean |sampled - full| miss ratio over the sizes and seeds, in percentage\n"
	       "points, as `memreplay curve` prints them; worst pp = the worst seed's mean; max\n"
	       "pp = the largest at any size and seed; raw MAE = the mean for the sampled\n"
	       "machine's misses over its own references (no adjustment); mean MAE = the mean\n"
	       "over the sizes of |the seeds' mean - full|, what averaging the seeds leaves (the\n"
	       "scaled machine's bias; MAE pp also has each seed's spread); unit = --sample-unit;\n"
	       "full s = the 48 runs in full in one pass, 1-size s = the 3 policies in full at the\n"
	       "middle size (one full replay), sampled s = the 48 runs sampled in one pass (the\n"
	       "seeds' mean), each create + run on one thread with the next-use times and the\n"
	       "sampling's page counts cached; counts s = counting those (one pass over the\n"
	       "trace, which a first sampled replay of a trace makes); /full, /1-size = sampled\n"
	       "s over those; +counts = (sampled s + counts s) / 1-size s, a first sampled\n"
	       "replay's (docs/replay.md, \"Sampled replay\")\n");
	return bench_report_end(&sb);
}
