// SPDX-License-Identifier: GPL-2.0
/*
 * test_curve.c - the miss ratio and the curve: mr_references counts every touch that
 * could miss (ACCESS, FD_ACCESS pages, READAHEAD / PC_INSERT pages), so mr_misses never
 * exceeds it, on generated traces with page-cache fills and readahead and on
 * traces/default.db; the results view `curve` and mr_results_curve() give one row per
 * run with the miss ratio mr_misses / mr_references.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_gen.h"
#include "mr_replay.h"
#include "mr_test.h"
#include "test_replay_trace.h"

#ifndef MR_SOURCE_DIR
#define MR_SOURCE_DIR "."
#endif

/* lru, mglru and opt at sizes into out; 0 or the error (printed). */
static int replay_to(const char *trace, const uint64_t *sizes, size_t nsizes, const char *out)
{
	static const char *const pol[] = { "lru", "mglru", "opt" };
	struct mr_replay_opts o = { .trace = trace, .policies = pol, .npolicies = 3,
				    .memory_sizes = sizes, .nmemory = nsizes, .threads = 2,
				    .tmpdir = mr_test_tmpdir() };
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };
	int rc = mr_replay_create(&o, &r, &err);

	if (!rc)
		rc = mr_replay_run(r, &err);
	if (!rc)
		rc = mr_replay_write_results(r, out, &err);
	if (rc)
		fprintf(stderr, "replay %s: %s\n", trace, err.msg);
	mr_replay_destroy(r);
	return rc;
}

static void check_references(const char *trace, const uint64_t *sizes, size_t nsizes,
			     const char *out)
{
	if (!trace || replay_to(trace, sizes, nsizes, out)) {
		CHECK(0);
		return;
	}
	/* every run: misses <= references, and references are the same for every run */
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM runs r WHERE (SELECT value FROM vmstat "
				  "WHERE run = r.id AND name = 'mr_misses') > (SELECT value FROM "
				  "vmstat WHERE run = r.id AND name = 'mr_references')"), 0);
	CHECK_EQ_U64(sql_int(out, "SELECT count(DISTINCT value) FROM vmstat WHERE name = 'mr_references'"), 1);
	/* the references: accesses and fd pages, and the insertions beside them */
	CHECK(sql_int(out, "SELECT value FROM vmstat WHERE run = 1 AND name = 'mr_references'") >=
	      sql_int(out, "SELECT sum(value) FROM vmstat WHERE run = 1 AND name IN ('mr_accesses', "
			   "'mr_fd_access_pages')") - sql_int(out, "SELECT value FROM vmstat WHERE "
							     "run = 1 AND name = 'mr_bad_events'"));
	/* with room for everything, every miss is a first touch */
	CHECK_EQ_U64(sql_int(out, "SELECT value FROM vmstat WHERE run = (SELECT max(id) FROM runs) "
				  "AND name = 'mr_refaults'"), 0);
}

static void test_references(void)
{
	static const char *const zipf[] = { "pages", "4096", "events", "200000" };
	static const char *const filerefault[] = { "size", "16M", "events", "100000", "jobs", "4" };
	static const char *const seq[] = { "size", "16M", "passes", "2" };
	static const uint64_t sizes[] = { 512, 2048, 1u << 20 };
	const char *t;

	t = gen_trace("zipf", "zipf.db", zipf, 4);
	check_references(t, sizes, 3, path_in("zipf.r.db"));
	t = gen_trace("filerefault", "filerefault.db", filerefault, 6);
	check_references(t, sizes, 3, path_in("filerefault.r.db"));
	t = gen_trace("seq", "seq.db", seq, 4);
	check_references(t, sizes, 3, path_in("seq.r.db"));
	if (!access(MR_SOURCE_DIR "/traces/default.db", R_OK)) {
		const char *d = path_in("default.r.db");

		check_references(MR_SOURCE_DIR "/traces/default.db", sizes, 3, d);
		/* a recorded trace with read()s and readahead: misses beyond accesses, and
		 * still not beyond the references */
		CHECK(sql_int(d, "SELECT value FROM vmstat WHERE run = 1 AND name = 'mr_fd_access_pages'") > 0);
		CHECK(sql_int(d, "SELECT value FROM vmstat WHERE run = 1 AND name = 'mr_references'") >
		      sql_int(d, "SELECT sum(value) FROM vmstat WHERE run = 1 AND name IN "
				 "('mr_accesses', 'mr_fd_access_pages')"));
	}
}

static int sql_exec(const char *db_path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(db_path, &db) == SQLITE_OK ? sqlite3_exec(db, sql, NULL, NULL, NULL) : -1;

	if (rc)
		fprintf(stderr, "%s: %s: %s\n", db_path, sql, sqlite3_errmsg(db));
	sqlite3_close(db);
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;
	int rc = a && b ? 0 : -1;

	while (!rc && (n = fread(buf, 1, sizeof(buf), a)) > 0)
		rc = fwrite(buf, 1, n, b) == n ? 0 : -1;
	if (a)
		fclose(a);
	if (b && fclose(b))
		rc = -1;
	return rc;
}

/* mr_results_curve() and the view: one row per run, by policy then memory, ratio =
 * misses / references; an older file without mr_references has no ratio. */
static void test_curve_rows(void)
{
	static const char *const zipf[] = { "pages", "4096", "events", "200000" };
	static const uint64_t sizes[] = { 2048, 512, 1024 };
	const char *t = gen_trace("zipf", "zipf.db", zipf, 4), *out = path_in("rows.db"), *old = path_in("old.db");
	struct mr_results *res = NULL;
	struct mr_curve *c = NULL;
	struct mr_error err = { 0 };

	if (!t || replay_to(t, sizes, 3, out)) {
		CHECK(0);
		return;
	}
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM curve"), 9);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM curve WHERE abs(miss_ratio - CAST(misses AS REAL) / refs) < 1e-12"), 9);
	CHECK(mr_results_open(out, &res, &err) == 0);
	CHECK(mr_results_curve(res, &c, &err) == 0);
	if (c) {
		static const int64_t order[9] = { 4, 7, 1, 5, 8, 2, 6, 9, 3 }; /* lru, mglru, opt x 512, 1024, 2048 */

		CHECK_EQ_U64(c->n, 9);
		CHECK_EQ_U64(c->missing_refs, 0);
		for (size_t i = 0; i < c->n && i < 9; i++) {
			const struct mr_curve_row *r = &c->rows[i];
			char q[160];

			CHECK_EQ_U64(r->run, order[i]);
			CHECK_EQ_U64(r->group, i / 3 * 3);
			CHECK(fabs(r->miss_ratio - (double)r->misses / (double)r->refs) < 1e-15);
			CHECK(r->misses <= r->refs && r->first_touch <= r->misses);
			snprintf(q, sizeof(q), "SELECT refaults_file + 1000000 * refaults_anon FROM curve WHERE run = %lld",
				 (long long)r->run);
			CHECK_EQ_U64(sql_int(out, q), r->refaults_file + 1000000 * r->refaults_anon);
			if (i % 3)
				CHECK(r->memory_pages > c->rows[i - 1].memory_pages);
		}
		/* more memory, fewer misses (for opt at least) */
		CHECK(c->rows[8].misses <= c->rows[6].misses);
	}
	mr_curve_free(c);
	mr_results_close(res);

	/* an older file: no mr_references, so no ratio, and a count of such runs */
	CHECK(copy_file(out, old) == 0);
	CHECK(sql_exec(old, "DELETE FROM counters WHERE name = 'mr_references'") == 0);
	CHECK(mr_results_open(old, &res, &err) == 0);
	c = NULL;
	CHECK(mr_results_curve(res, &c, &err) == 0);
	if (c) {
		CHECK_EQ_U64(c->missing_refs, 9);
		CHECK(isnan(c->rows[0].miss_ratio));
	}
	mr_curve_free(c);
	mr_results_close(res);
	/* and without the view at all (written before it): the same rows */
	CHECK(sql_exec(old, "DROP VIEW curve") == 0);
	CHECK(mr_results_open(old, &res, &err) == 0);
	c = NULL;
	CHECK(mr_results_curve(res, &c, &err) == 0);
	CHECK(c && c->n == 9);
	mr_curve_free(c);
	mr_results_close(res);
	/* a view under the name that is not ours is refused, naming it */
	CHECK(sql_exec(old, "CREATE VIEW curve AS SELECT 1 AS run") == 0);
	CHECK(mr_results_open(old, &res, &err) == MR_ECORRUPT);
	CHECK(strstr(err.msg, "'curve'") != NULL);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_references),
	MR_CASE(test_curve_rows),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_curve", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
