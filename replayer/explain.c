// SPDX-License-Identifier: GPL-2.0
/*
 * explain.c - why was this page evicted here and kept there (mr_explain(), mr_detail.h;
 * docs/replay.md "Why was this page evicted").
 *
 * A results database says what each run counted, not what happened to each page. Every
 * run is a function of the trace and its runs row (docs/results-schema.md: the
 * replay is deterministic), so the history is had by replaying the run again from that
 * row: once with per-page counters to find the pages whose outcomes differ most between
 * the two runs, then once more keeping the history of those pages. Each replay is
 * checked against the run's stored counters, so a history is never shown for a run it
 * does not reproduce (a changed trace, script or memreplay).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mr_detail.h"
#include "mr_replay.h"
#include "rp_detail.h"
#include "rp_int.h"

/* A runs row, as needed to replay it again. */
struct run_row {
	int64_t id;
	char spec[256];
	char trace[1024];
	char trace_id[80];
	uint64_t memory_pages;      /* 0 = NULL */
	int swap_null;
	uint64_t swap_pages;
	int64_t wb_delay;           /* -1 = sync */
	uint64_t interval_ns, snapshot_ns;
	char script[1024];          /* "" = none */
	char reclaim[16], shadow[16];
	uint32_t fault_around;
	uint32_t vary_seed;
	double vary_p;
	struct mr_replay_limit limits[64];
	size_t nlimits;
};

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t cap)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, cap, "%s", s ? (const char *)s : "");
}

static int run_ids(sqlite3 *db, char *buf, size_t cap)
{
	sqlite3_stmt *st;
	size_t l = 0;
	int n = 0;

	buf[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT id FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(st) == SQLITE_ROW && l + 24 < cap) {
		l += (size_t)snprintf(buf + l, cap - l, "%s%lld", n ? ", " : "",
				      (long long)sqlite3_column_int64(st, 0));
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

static int read_run(sqlite3 *db, const char *path, int64_t id, struct run_row *rr,
		    struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc;

	memset(rr, 0, sizeof(*rr));
	rr->id = id;
	if (sqlite3_prepare_v2(db, "SELECT spec, trace, trace_id, memory_pages, swap_pages,"
			       " writeback_delay_ns, interval_ns, snapshot_every_ns, script, reclaim,"
			       " shadow, fault_around_pages, vary_seed, vary_p FROM runs WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return mr_error_set(err, MR_EINVAL, "%s: not a results database (%s)", path,
				    sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		char ids[256];
		int n;

		sqlite3_finalize(st);
		n = run_ids(db, ids, sizeof(ids));
		return mr_error_set(err, MR_EINVAL, "%s has no run %lld (%s%s); --runs takes two run ids of it",
				    path, (long long)id, n ? "its runs: " : "it has no runs", ids);
	}
	col_text(st, 0, rr->spec, sizeof(rr->spec));
	col_text(st, 1, rr->trace, sizeof(rr->trace));
	col_text(st, 2, rr->trace_id, sizeof(rr->trace_id));
	rr->memory_pages = (uint64_t)sqlite3_column_int64(st, 3);
	rr->swap_null = sqlite3_column_type(st, 4) == SQLITE_NULL;
	rr->swap_pages = (uint64_t)sqlite3_column_int64(st, 4);
	rr->wb_delay = sqlite3_column_int64(st, 5);
	rr->interval_ns = (uint64_t)sqlite3_column_int64(st, 6);
	rr->snapshot_ns = (uint64_t)sqlite3_column_int64(st, 7);
	col_text(st, 8, rr->script, sizeof(rr->script));
	col_text(st, 9, rr->reclaim, sizeof(rr->reclaim));
	col_text(st, 10, rr->shadow, sizeof(rr->shadow));
	rr->fault_around = (uint32_t)sqlite3_column_int64(st, 11);
	rr->vary_seed = (uint32_t)sqlite3_column_int64(st, 12);
	rr->vary_p = sqlite3_column_double(st, 13);
	sqlite3_finalize(st);
	if (!strcmp(rr->script, "(inline)"))
		return mr_error_set(err, MR_EINVAL, "run %lld of %s ran an inline script, which the results do not keep: it cannot be replayed again to explain it",
				    (long long)id, path);
	/* a sampled run's machine holds 1 in N pages, renumbered: explain follows pages of
	 * a full replay */
	if (sqlite3_prepare_v2(db, "SELECT substr(message, 1, 40) FROM notes WHERE run = ?1 AND "
			       "kind = 'sampled'", -1, &st, NULL) == SQLITE_OK) {
		char what[48] = "";

		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *m = (const char *)sqlite3_column_text(st, 0);
			size_t n = m ? strcspn(m, ":") : 0;

			snprintf(what, sizeof(what), "%.*s", (int)n, m ? m : "");
		}
		sqlite3_finalize(st);
		if (what[0])
			return mr_error_set(err, MR_EINVAL, "run %lld of %s is a sampled run (%s): "
					    "explain follows pages through a full replay; replay the "
					    "trace in full at that size (replay TRACE --policy SPEC "
					    "--memory SIZE -o FULL.db) and explain its runs",
					    (long long)id, path, what);
	}
	if (sqlite3_prepare_v2(db, "SELECT cgroup, limit_pages FROM memcgs WHERE run = ?1 AND"
			       " limit_pages IS NOT NULL ORDER BY cgroup", -1, &st, NULL) != SQLITE_OK)
		return mr_error_set(err, MR_EINVAL, "%s: %s", path, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	rc = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (rr->nlimits == sizeof(rr->limits) / sizeof(rr->limits[0])) {
			rc = mr_error_set(err, MR_ERANGE, "run %lld has more than %zu cgroup limits",
					  (long long)id, rr->nlimits);
			break;
		}
		rr->limits[rr->nlimits].cgroup = (uint32_t)sqlite3_column_int64(st, 0);
		rr->limits[rr->nlimits].pages = (uint64_t)sqlite3_column_int64(st, 1);
		rr->nlimits++;
	}
	sqlite3_finalize(st);
	return rc;
}

/* A final machine-wide counter of run in the results database. */
static int stored_counter(sqlite3 *db, int64_t run, const char *name, uint64_t *v)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT value FROM counters WHERE run = ?1 AND memcg IS NULL"
			       " AND name = ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*v = (uint64_t)sqlite3_column_int64(st, 0);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

/* Replay rr again (one policy, one size), with per-page counters and the history of
 * pages[npages]; check that it reproduces the run's stored counters. */
static int replay_again(sqlite3 *db, const struct mr_explain_opts *o, const struct run_row *rr,
			const uint32_t *pages, size_t npages, struct mr_replay **out,
			struct mr_error *err)
{
	static const char *const check[] = { "mr_evictions", "mr_misses", "pgfault", "pgscan_file",
					     "pgscan_anon", "mr_refaults" };
	const char *spec = rr->spec;
	struct mr_replay_opts ro = {
		.trace = o->trace ? o->trace : rr->trace,
		.policies = &spec,
		.npolicies = 1,
		.memory_pages = rr->memory_pages,
		.limits = rr->limits,
		.nlimits = rr->nlimits,
		.reclaim = !strcmp(rr->reclaim, "node") ? MR_RECLAIM_NODE : MR_RECLAIM_MEMCG,
		.shadow = !strcmp(rr->shadow, "kernel") ? MR_SHADOW_KERNEL :
			  !strcmp(rr->shadow, "none") ? MR_SHADOW_NONE : MR_SHADOW_KEEP,
		.fault_around_pages = rr->fault_around,
		.policy_vary_seed = rr->vary_seed ? &rr->vary_seed : NULL,
		.vary_p = rr->vary_seed ? rr->vary_p : 0,
		/* NULL swap: unlimited, which is what a trace without the host's swap gives */
		.swap_pages = rr->swap_null ? 0 : rr->swap_pages,
		.swap_given = !rr->swap_null,
		.writeback_given = 1,
		.writeback_delay_ns = rr->wb_delay < 0 ? MR_WRITEBACK_SYNC : (uint64_t)rr->wb_delay,
		.interval_ns = rr->interval_ns,
		.snapshot_every_ns = rr->snapshot_ns,
		.script = rr->script[0] ? rr->script : NULL,
		.threads = 0,
		.tmpdir = o->tmpdir,
		.nextuse_cache = o->nextuse_cache,
		.detail = MR_DETAIL_PAGES,
		.trace_pages = pages,
		.ntrace_pages = npages,
	};
	struct mr_replay *r = NULL;
	size_t checked = 0;
	int rc;

	*out = NULL;
	rc = mr_replay_create(&ro, &r, err);
	if (rc && rc != MR_ENOMEM) {
		char msg[sizeof(err->msg)];
		/* the trace cannot be read where the replay read it, or the runs row's
		 * settings (spec, sizes, script ...) are not ones a replay takes */
		int trace = rc == MR_ENOENT || rc == MR_ENOTSTORE || rc == MR_EVERSION || rc == MR_EIO ||
			    strstr(err->msg, ro.trace) != NULL;

		snprintf(msg, sizeof(msg), "%s", err->msg);
		if (trace && !o->trace)
			mr_error_set(err, rc, "%.400s (run %lld's trace, at the path its replay was given: give it with --trace)",
				     msg, (long long)rr->id);
		else if (!trace)
			mr_error_set(err, rc, "%.400s (from run %lld's row of runs in %s: the results file was changed, or written by another memreplay; replay the trace again to explain it)",
				     msg, (long long)rr->id, o->results);
	}
	if (!rc && strcmp(rp_replay_image(r)->identity, rr->trace_id))
		rc = mr_error_set(err, MR_EINVAL,
				  "%s is not the trace run %lld replayed (its content differs from %s): give that trace with --trace",
				  ro.trace, (long long)rr->id, rr->trace_id);
	if (!rc)
		rc = mr_replay_run(r, err);
	for (size_t i = 0; !rc && i < sizeof(check) / sizeof(check[0]); i++) {
		uint64_t want, got;

		if (!stored_counter(db, rr->id, check[i], &want) ||
		    mr_replay_counter(r, 0, check[i], -1, &got))
			continue;
		checked++;
		if (want != got)
			rc = mr_error_set(err, MR_ECORRUPT,
					  "replaying run %lld (%s) again gives %s %llu where the results have %llu: the trace, its script or memreplay changed since; replay it again to explain it",
					  (long long)rr->id, rr->spec, check[i], (unsigned long long)got,
					  (unsigned long long)want);
	}
	if (!rc && !checked) /* none of them stored: nothing says this replay is the run's */
		rc = mr_error_set(err, MR_ECORRUPT,
				  "run %lld has none of the counters (mr_misses, mr_evictions, pgfault, "
				  "...) its replay is checked against: the results file was changed; "
				  "replay the trace again to explain it", (long long)rr->id);
	if (rc) {
		mr_replay_destroy(r);
		return rc;
	}
	*out = r;
	return 0;
}

/*
 * Counts per page of both runs from the database's detail_pages, when the replay that
 * wrote it had --detail pages: c[k][page] for page < *np. 1 when read, 0 when the
 * table is absent (then the runs are replayed to count), negative on an error.
 */
static int stored_counts(sqlite3 *db, const int64_t *runs, struct mr_detail_counts **c,
			 uint32_t *np, struct mr_error *err)
{
	sqlite3_stmt *st;
	int64_t max = -1;

	c[0] = c[1] = NULL;
	if (sqlite3_prepare_v2(db, "SELECT max(page) FROM detail_pages", -1, &st, NULL) != SQLITE_OK)
		return 0; /* no such table */
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		max = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (max < 0 || max >= UINT32_MAX)
		return 0;
	*np = (uint32_t)max + 1;
	c[0] = calloc(*np, sizeof(**c));
	c[1] = calloc(*np, sizeof(**c));
	if (!c[0] || !c[1])
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(db, "SELECT run, page, faults, majfaults, misses, refaults,"
			       " shadow_refaults, evictions, freed, pswpin, writebacks FROM detail_pages"
			       " WHERE run IN (?1, ?2)", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, runs[0]);
	sqlite3_bind_int64(st, 2, runs[1]);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t page = sqlite3_column_int64(st, 1);
		struct mr_detail_counts *d;

		if (page < 0 || page >= *np)
			continue;
		d = &c[sqlite3_column_int64(st, 0) == runs[0] ? 0 : 1][page];
		*d = (struct mr_detail_counts){
			.faults = (uint32_t)sqlite3_column_int64(st, 2),
			.majfaults = (uint32_t)sqlite3_column_int64(st, 3),
			.misses = (uint32_t)sqlite3_column_int64(st, 4),
			.refaults = (uint32_t)sqlite3_column_int64(st, 5),
			.shadow_refaults = (uint32_t)sqlite3_column_int64(st, 6),
			.evictions = (uint32_t)sqlite3_column_int64(st, 7),
			.freed = (uint32_t)sqlite3_column_int64(st, 8),
			.pswpin = (uint32_t)sqlite3_column_int64(st, 9),
			.writebacks = (uint32_t)sqlite3_column_int64(st, 10),
		};
	}
	sqlite3_finalize(st);
	return 1;
}

struct ranked {
	uint32_t page;
	int64_t score;
	int differs; /* any of the page's counts differ */
};

static int64_t outcome(const struct mr_detail_counts *c)
{
	return (int64_t)c->refaults + c->evictions;
}

static int by_score(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int64_t ax = x->score < 0 ? -x->score : x->score, ay = y->score < 0 ? -y->score : y->score;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1; /* more under A first */
	return x->page < y->page ? -1 : x->page > y->page;
}

/* What the trace's pages row says of page: "file 3 (/usr/lib/x.so) index 17". */
static void describe(const char *trace, uint32_t page, char *buf, size_t cap)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	snprintf(buf, cap, "page %u", page);
	if (sqlite3_open_v2(trace, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT p.type, p.mm, p.vpage, p.file, p.idx, p.exec, p.cgroup,"
			       " f.path FROM pages p LEFT JOIN files f ON f.id = p.file WHERE p.id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, page);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int type = sqlite3_column_int(st, 0);
		const unsigned char *path = sqlite3_column_text(st, 7);

		if (type == 1)
			snprintf(buf, cap, "file %lld (%s) index %lld%s, cgroup %lld",
				 (long long)sqlite3_column_int64(st, 3), path ? (const char *)path : "no path",
				 (long long)sqlite3_column_int64(st, 4),
				 sqlite3_column_int(st, 5) ? ", exec-mapped" : "",
				 (long long)sqlite3_column_int64(st, 6));
		else
			snprintf(buf, cap, "%s mm %lld address 0x%llx%s, cgroup %lld",
				 type == 2 ? "shmem" : "anon", (long long)sqlite3_column_int64(st, 1),
				 (unsigned long long)sqlite3_column_int64(st, 2) << 12,
				 sqlite3_column_int(st, 5) ? ", exec-mapped" : "",
				 (long long)sqlite3_column_int64(st, 6));
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
}

void mr_explain_free(struct mr_explain *x)
{
	if (!x)
		return;
	mr_replay_destroy(x->r[0]);
	mr_replay_destroy(x->r[1]);
	free(x->pages);
	free(x);
}

int mr_explain(const struct mr_explain_opts *o, struct mr_explain **out, struct mr_error *err)
{
	struct run_row *rr = calloc(2, sizeof(*rr));
	struct mr_explain *x = calloc(1, sizeof(*x));
	struct ranked *rank = NULL;
	uint32_t chosen[MR_TRACE_MAX_PAGES], nrank = 0;
	size_t nchosen = 0, top = o->top ? o->top : 5;
	sqlite3 *db = NULL;
	int rc = 0;

	*out = NULL;
	if (!rr || !x) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	if (o->npages > MR_TRACE_MAX_PAGES || top > MR_TRACE_MAX_PAGES) {
		rc = mr_error_set(err, MR_EINVAL, "at most %d pages at a time", MR_TRACE_MAX_PAGES);
		goto out;
	}
	if (o->runs[0] == o->runs[1]) {
		rc = mr_error_set(err, MR_EINVAL, "--runs %lld,%lld names one run twice: give two different runs",
				  (long long)o->runs[0], (long long)o->runs[1]);
		goto out;
	}
	{
		struct stat sb;

		if (!stat(o->results, &sb) && !S_ISREG(sb.st_mode)) { /* a FIFO blocks the open */
			rc = mr_error_set(err, MR_EINVAL, "cannot open results %s: not a regular file",
					  o->results);
			goto out;
		}
	}
	if (sqlite3_open_v2(o->results, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		rc = mr_error_set(err, MR_EINVAL, "cannot open results %s: %s", o->results,
				  db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	for (int k = 0; !rc && k < 2; k++)
		rc = read_run(db, o->results, o->runs[k], &rr[k], err);
	if (rc)
		goto out;
	if (strcmp(rr[0].trace_id, rr[1].trace_id)) {
		rc = mr_error_set(err, MR_EINVAL,
				  "runs %lld and %lld replayed different traces (%s, %.24s..., and %s, "
				  "%.24s...): explain compares two runs of one trace",
				  (long long)rr[0].id, (long long)rr[1].id, rr[0].trace, rr[0].trace_id,
				  rr[1].trace, rr[1].trace_id);
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		snprintf(x->spec[k], sizeof(x->spec[k]), "%s", rr[k].spec);
		x->memory_pages[k] = rr[k].memory_pages;
	}
	snprintf(x->trace, sizeof(x->trace), "%s", o->trace ? o->trace : rr[0].trace);

	if (o->npages) {
		memcpy(chosen, o->pages, o->npages * sizeof(chosen[0]));
		nchosen = o->npages;
	} else {
		/* first pass: per-page counts under both runs, from the database's
		 * detail_pages when it has them, else by replaying both */
		struct mr_detail_counts *sc[2];
		uint32_t np = 0;
		int got = stored_counts(db, o->runs, sc, &np, err);

		if (got < 0) {
			rc = got;
			free(sc[0]);
			free(sc[1]);
			goto out;
		}
		x->from_table = got;
		for (int k = 0; !rc && !got && k < 2; k++)
			rc = replay_again(db, o, &rr[k], NULL, 0, &x->r[k], err);
		if (!rc && !got)
			np = mr_replay_nr_pages(x->r[0]);
		rank = rc ? NULL : calloc(np ? np : 1, sizeof(*rank));
		if (!rc && !rank)
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		for (uint32_t p = 0; !rc && p < np; p++) {
			struct mr_detail_counts c[2];

			for (int k = 0; k < 2; k++) {
				if (got)
					c[k] = sc[k][p];
				else
					mr_replay_page_counts(x->r[k], 0, p, &c[k]);
			}
			rank[p].page = p;
			rank[p].score = outcome(&c[0]) - outcome(&c[1]);
			rank[p].differs = memcmp(&c[0], &c[1], sizeof(c[0])) != 0;
			x->differing += rank[p].differs;
		}
		free(sc[0]);
		free(sc[1]);
		if (rc)
			goto out;
		nrank = np;
		qsort(rank, np, sizeof(*rank), by_score);
		for (uint32_t p = 0; p < np && nchosen < top && rank[p].score; p++)
			chosen[nchosen++] = rank[p].page;
		mr_replay_destroy(x->r[0]);
		mr_replay_destroy(x->r[1]);
		x->r[0] = x->r[1] = NULL;
	}
	/* second pass: their histories */
	for (int k = 0; !rc && k < 2; k++)
		rc = replay_again(db, o, &rr[k], chosen, nchosen, &x->r[k], err);
	if (rc)
		goto out;
	x->pages = calloc(nchosen ? nchosen : 1, sizeof(*x->pages));
	if (!x->pages) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	/* the differing pages by type, from the trace's page rows (the image the second
	 * pass loaded) */
	for (uint32_t i = 0, type; i < nrank; i++) {
		const struct rp_image *t = rp_replay_image(x->r[0]);

		/* ranked from detail_pages, a page id may be past the trace's (a changed file) */
		if (!rank[i].differs || rank[i].page >= t->nr_pages ||
		    (type = rp_page_type(&t->pages[rank[i].page])) >= 3)
			continue;
		x->differing_type[type]++;
		x->score_type[type] += rank[i].score;
	}
	for (size_t i = 0; i < nchosen; i++) {
		struct mr_explain_page *pg = &x->pages[x->npages];
		size_t dup = 0;

		for (size_t j = 0; j < x->npages; j++)
			dup |= x->pages[j].page == chosen[i];
		if (dup)
			continue;
		x->npages++;
		pg->page = chosen[i];
		for (int k = 0; k < 2; k++) {
			mr_replay_page_counts(x->r[k], 0, pg->page, &pg->c[k]);
			pg->ev[k] = mr_replay_page_history(x->r[k], 0, pg->page, &pg->nev[k],
							   &pg->dropped[k]);
		}
		pg->score = outcome(&pg->c[0]) - outcome(&pg->c[1]);
		describe(x->trace, pg->page, pg->what, sizeof(pg->what));
	}
	*out = x;
	x = NULL;
out:
	free(rank);
	free(rr);
	sqlite3_close(db);
	mr_explain_free(x);
	return rc;
}
