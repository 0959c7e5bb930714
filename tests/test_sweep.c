// SPDX-License-Identifier: GPL-2.0
/*
 * test_sweep.c - several memory sizes in one replay (mr_replay_opts.memory_sizes): the
 * `--memory` list and range syntax, the run order (size-major), and the correctness
 * check of one-pass sweeps: every run of a multi-size replay has exactly the results
 * (counters, model counters, time series, lru_gen snapshots, notes) of a replay of
 * that policy at that size alone, under memcg and node reclaim and beside a per-cgroup
 * limit; the results file is byte-identical from one replay to the next and for any
 * thread count; opt's next-use pass runs once for all sizes.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_gen.h"
#include "mr_replay.h"
#include "mr_test.h"
#include "test_replay_trace.h"

static const char *zipf_trace(void)
{
	static const char *const kv[] = { "pages", "4096", "events", "200000" };

	return gen_trace("zipf", "zipf.db", kv, 4);
}

static const char *filerefault_trace(void)
{
	static const char *const kv[] = { "size", "16M", "events", "100000", "jobs", "4" };

	return gen_trace("filerefault", "filerefault.db", kv, 6);
}

/* The result text of one SQL query (rows joined by '\n', columns by '|'); malloc'ed. */
static char *sql_text(const char *db_path, const char *sql, int64_t run)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	out[0] = 0;
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s: %s\n", db_path, sql, sqlite3_errmsg(db));
		CHECK(0);
		goto out;
	}
	if (run >= 0)
		sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *t = (const char *)sqlite3_column_text(st, c);
			size_t l = t ? strlen(t) : 4;

			if (len + l + 2 >= cap) {
				char *n = realloc(out, cap * 2 + l);

				if (!n)
					goto out;
				out = n;
				cap = cap * 2 + l;
			}
			len += (size_t)sprintf(out + len, "%s%c", t ? t : "NULL",
					       c + 1 < sqlite3_column_count(st) ? '|' : '\n');
		}
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

struct sweep {
	const char *trace;
	const char *const *pol;
	size_t npol;
	const uint64_t *sizes;
	size_t nsizes;
	int reclaim;
	const struct mr_replay_limit *limits;
	size_t nlimits;
	int threads;
	const char *out;
	int nu_phases; /* progress callbacks of the next-use pass */
};

static void on_progress(void *arg, const struct mr_replay_progress *p)
{
	struct sweep *s = arg;

	if (p->phase == 0)
		s->nu_phases++;
}

/* Replay and write the results; 0 or the error code (message printed). */
static int run_sweep(struct sweep *s)
{
	struct mr_replay_opts o = {
		.trace = s->trace, .policies = s->pol, .npolicies = s->npol,
		.memory_sizes = s->nsizes > 1 ? s->sizes : NULL,
		.nmemory = s->nsizes > 1 ? s->nsizes : 0,
		.memory_pages = s->nsizes == 1 ? s->sizes[0] : 0,
		.reclaim = s->reclaim, .limits = s->limits, .nlimits = s->nlimits,
		.threads = s->threads, .tmpdir = mr_test_tmpdir(), .check = 1,
		.progress = on_progress, .progress_arg = s,
	};
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };
	int rc = mr_replay_create(&o, &r, &err);

	if (!rc)
		rc = mr_replay_run(r, &err);
	if (!rc)
		rc = mr_replay_write_results(r, s->out, &err);
	if (rc)
		fprintf(stderr, "replay %s: %s\n", s->trace, err.msg);
	mr_replay_destroy(r);
	return rc;
}

/* What a run produced, every table but runs (whose id and memory_spec differ). */
static const char *const run_tables[] = {
	"SELECT memcg, name, value FROM counters WHERE run = ?1 ORDER BY rowid",
	"SELECT name, value FROM model_counters WHERE run = ?1 ORDER BY rowid",
	"SELECT t_ns, name, value FROM timeseries WHERE run = ?1 ORDER BY name, t_ns",
	"SELECT t_ns, full, why, text FROM lru_gen WHERE run = ?1 ORDER BY rowid",
	"SELECT cgroup, path, limit_pages FROM memcgs WHERE run = ?1 ORDER BY cgroup",
	/* the warnings name the size when there are several: compare the others */
	"SELECT kind, message FROM notes WHERE run = ?1 AND kind NOT IN ('coverage_low', "
	"'trace_too_coarse') ORDER BY rowid",
	"SELECT policy, spec, params, trace_id, memory_pages, swap_pages, reclaim, shadow "
	"FROM runs WHERE id = ?1",
};

/*
 * Every run of a one-pass sweep against a replay of its policy at its size alone. The
 * sweep's run s * npol + p must be the single replay's run p, table by table.
 */
static void check_sweep(const char *trace, const char *const *pol, size_t npol,
			const uint64_t *sizes, size_t nsizes, int reclaim,
			const struct mr_replay_limit *limits, size_t nlimits, const char *tag)
{
	char name[128];
	struct sweep all = { .trace = trace, .pol = pol, .npol = npol, .sizes = sizes,
			     .nsizes = nsizes, .reclaim = reclaim, .limits = limits,
			     .nlimits = nlimits, .threads = 2 };

	snprintf(name, sizeof(name), "%s-all.db", tag);
	all.out = path_in(name);
	if (run_sweep(&all)) {
		CHECK(0);
		return;
	}
	CHECK_EQ_U64(sql_int(all.out, "SELECT count(*) FROM runs"), npol * nsizes);
	for (size_t si = 0; si < nsizes; si++) {
		struct sweep one = { .trace = trace, .pol = pol, .npol = npol, .sizes = &sizes[si],
				     .nsizes = 1, .reclaim = reclaim, .limits = limits,
				     .nlimits = nlimits, .threads = 0 };

		snprintf(name, sizeof(name), "%s-%zu.db", tag, si);
		one.out = path_in(name);
		if (run_sweep(&one)) {
			CHECK(0);
			return;
		}
		for (size_t p = 0; p < npol; p++) {
			int64_t id = (int64_t)(si * npol + p + 1);

			for (size_t k = 0; k < sizeof(run_tables) / sizeof(run_tables[0]); k++) {
				char *a = sql_text(all.out, run_tables[k], id);
				char *b = sql_text(one.out, run_tables[k], (int64_t)p + 1);

				CHECK(a && b && (k || *a)); /* every run has counters */
				if (a && b && strcmp(a, b)) {
					fprintf(stderr, "%s: run %lld (%s at %llu pages) differs from its single replay in: %s\n",
						tag, (long long)id, pol[p], (unsigned long long)sizes[si],
						run_tables[k]);
					CHECK(0);
				}
				free(a);
				free(b);
			}
		}
	}
}

static void test_parse_memory(void)
{
	static const struct {
		const char *arg;
		size_t n;
		uint64_t pages[8];
		const char *error; /* fragment of the message, NULL = valid */
	} cases[] = {
		{ "64M", 1, { 16384 }, NULL },
		{ "100", 1, { 100 }, NULL },
		{ "32M,64M,128M", 3, { 8192, 16384, 32768 }, NULL },
		{ "128M,32M", 2, { 32768, 8192 }, NULL },
		{ "16M..1G:4", 4, { 4096, 16384, 65536, 262144 }, NULL },
		{ "16M..1G:2", 2, { 4096, 262144 }, NULL },
		{ "16M..128M:x2", 4, { 4096, 8192, 16384, 32768 }, NULL },
		{ "16M..100M:x2", 3, { 4096, 8192, 16384 }, NULL },
		{ "16M..64M:+16M", 4, { 4096, 8192, 12288, 16384 }, NULL },
		{ "16M..60M:+16M", 3, { 4096, 8192, 12288 }, NULL },
		{ "8M,16M..64M:3", 4, { 2048, 4096, 8192, 16384 }, NULL },
		{ "100..1000:3", 3, { 100, 316, 1000 }, NULL },
		{ "", 0, { 0 }, "give a size" },
		{ "32M,,64M", 0, { 0 }, "empty item" },
		{ "32M,32M", 0, { 0 }, "comes twice" },
		{ "32M,8192", 0, { 0 }, "comes twice" },
		{ "4..6:8", 0, { 0 }, "comes twice" },
		{ "1G..16M:4", 0, { 0 }, "must go up" },
		{ "16M..1G", 0, { 0 }, "needs a count" },
		{ "16M..1G:1", 0, { 0 }, "2 to" },
		{ "16M..1G:100", 0, { 0 }, "2 to" },
		{ "16M..1G:x1", 0, { 0 }, "above 1" },
		{ "16M..1G:y", 0, { 0 }, "not a count" },
		{ "16M..lots:4", 0, { 0 }, "bad size 'lots'" },
		{ "0", 0, { 0 }, "zero" },
		{ "2=32M,64M", 0, { 0 }, "cgroup limit" },
		{ "1..100:+1", 0, { 0 }, "more than" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t pages[MR_REPLAY_MAX_SIZES];
		size_t n = 0;
		struct mr_error err = { 0 };
		int rc = mr_replay_parse_memory(cases[i].arg, pages, MR_REPLAY_MAX_SIZES, &n, &err);

		if (cases[i].error) {
			CHECK(rc != 0);
			if (!strstr(err.msg, cases[i].error) || !rc) {
				fprintf(stderr, "'%s': wanted an error with '%s', got rc %d '%s'\n",
					cases[i].arg, cases[i].error, rc, err.msg);
				CHECK(0);
			}
			continue;
		}
		CHECK(rc == 0);
		CHECK_EQ_U64(n, cases[i].n);
		for (size_t k = 0; rc == 0 && k < n && k < cases[i].n; k++)
			if (pages[k] != cases[i].pages[k]) {
				fprintf(stderr, "'%s': size %zu is %llu pages, wanted %llu\n", cases[i].arg,
					k, (unsigned long long)pages[k],
					(unsigned long long)cases[i].pages[k]);
				CHECK(0);
			}
	}
	/* a second --memory adds to the list, and a size of the first counts */
	{
		uint64_t pages[4];
		size_t n = 0;
		struct mr_error err = { 0 };

		CHECK(mr_replay_parse_memory("32M", pages, 4, &n, &err) == 0);
		CHECK(mr_replay_parse_memory("64M", pages, 4, &n, &err) == 0);
		CHECK_EQ_U64(n, 2);
		CHECK(mr_replay_parse_memory("16M,32M", pages, 4, &n, &err) == MR_EINVAL);
		CHECK(strstr(err.msg, "32M (8192 pages) comes twice") != NULL);
		CHECK(mr_replay_parse_memory("1M..4M:4", pages, 4, &n, &err) == MR_ERANGE);
	}
	{
		char b[32];

		CHECK(!strcmp(mr_replay_format_memory(16384, b, sizeof(b)), "64M"));
		CHECK(!strcmp(mr_replay_format_memory(262144, b, sizeof(b)), "1G"));
		CHECK(!strcmp(mr_replay_format_memory(384, b, sizeof(b)), "1536K"));
		CHECK(!strcmp(mr_replay_format_memory(1, b, sizeof(b)), "4K"));
	}
}

/* lru, mglru (and a toggle), opt at three sizes, one pass against three single replays. */
static void test_one_pass_memcg(void)
{
	static const char *const pol[] = { "lru", "mglru", "mglru:ra_placement=B", "opt" };
	static const uint64_t sizes[] = { 410, 1024, 2048 };
	const char *t = zipf_trace();

	if (t)
		check_sweep(t, pol, 4, sizes, 3, MR_RECLAIM_MEMCG, NULL, 0, "zipf");
	t = filerefault_trace();
	if (t)
		check_sweep(t, pol, 4, sizes, 3, MR_RECLAIM_MEMCG, NULL, 0, "filerefault");
}

static void test_one_pass_node(void)
{
	static const char *const pol[] = { "lru", "mglru", "opt" };
	static const uint64_t sizes[] = { 2048, 600 };
	const char *t = zipf_trace();

	if (t)
		check_sweep(t, pol, 3, sizes, 2, MR_RECLAIM_NODE, NULL, 0, "node");
}

/* A per-cgroup limit applies to every size of the list. */
static void test_one_pass_cgroup_limit(void)
{
	static const char *const pol[] = { "lru", "mglru" };
	static const uint64_t sizes[] = { 3000, 1500 };
	static const struct mr_replay_limit lim[] = { { .cgroup = 1, .pages = 2000 } };
	const char *t = zipf_trace();

	if (!t)
		return;
	check_sweep(t, pol, 2, sizes, 2, MR_RECLAIM_MEMCG, lim, 1, "cglimit");
	CHECK_EQ_U64(sql_int(path_in("cglimit-all.db"),
			     "SELECT count(*) FROM memcgs WHERE cgroup = 1 AND limit_pages = 2000"), 4);
	/* the tighter of the two limits holds in each run */
	CHECK_EQ_U64(sql_int(path_in("cglimit-all.db"),
			     "SELECT count(*) FROM vmstat v JOIN runs r ON r.id = v.run WHERE v.name = "
			     "'mr_usage_max' AND v.value <= min(r.memory_pages, 2000)"), 4);
}

/* The same sweep twice, on one thread and on two: the same bytes; runs size-major. */
static void test_deterministic(void)
{
	static const char *const pol[] = { "lru", "opt", "mglru" };
	static const uint64_t sizes[] = { 1024, 410, 2048 };
	const char *t = zipf_trace();
	struct sweep a = { .trace = t, .pol = pol, .npol = 3, .sizes = sizes, .nsizes = 3,
			   .threads = 0, .out = path_in("det-a.db") };
	struct sweep b = a, c = a;
	char *runs;

	if (!t)
		return;
	b.out = path_in("det-b.db");
	c.out = path_in("det-c.db");
	c.threads = 2;
	CHECK(run_sweep(&a) == 0);
	CHECK(run_sweep(&b) == 0);
	CHECK(run_sweep(&c) == 0);
	CHECK(same_file(a.out, b.out));
	CHECK(same_file(a.out, c.out));
	/* opt's next-use times: one pass for all sizes (a start and an end report) */
	CHECK_EQ_U64(a.nu_phases, 2);
	runs = sql_text(a.out, "SELECT id, policy, memory_pages FROM runs ORDER BY id", -1);
	CHECK(runs && !strcmp(runs, "1|lru|1024\n2|opt|1024\n3|mglru|1024\n"
				    "4|lru|410\n5|opt|410\n6|mglru|410\n"
				    "7|lru|2048\n8|opt|2048\n9|mglru|2048\n"));
	free(runs);
}

/* compare on a sweep: each run against the baseline's policy at its own size. */
static void test_compare_within_size(void)
{
	static const char *const pol[] = { "lru", "opt" };
	static const uint64_t sizes[] = { 410, 1024 };
	const char *names[1] = { "mr_misses" };
	struct mr_compare_opts co = { .baseline = "4", .counters = names, .ncounters = 1 };
	struct sweep s = { .trace = zipf_trace(), .pol = pol, .npol = 2, .sizes = sizes,
			   .nsizes = 2, .out = path_in("cmp.db") };
	struct mr_results *res = NULL;
	struct mr_compare *c = NULL;
	struct mr_error err = { 0 };
	double a, p;

	if (!s.trace || run_sweep(&s))
		return;
	CHECK(mr_results_open(s.out, &res, &err) == 0);
	/* baseline run 4 is opt at 1024: opt at 410 (run 2) is the baseline there */
	CHECK(mr_results_compare(res, &co, &c, &err) == 0);
	if (c) {
		CHECK(c->by_memory);
		CHECK_EQ_U64(c->baseline, 3);
		CHECK_EQ_U64(c->base[0], 1);
		CHECK_EQ_U64(c->base[1], 1);
		CHECK_EQ_U64(c->base[2], 3);
		CHECK_EQ_U64(c->base[3], 3);
		CHECK_EQ_U64(c->memory_pages[0], 410);
		CHECK_EQ_U64(c->memory_pages[3], 1024);
		CHECK(mr_compare_delta(c, 0, 0, &a, &p) == 0);
		CHECK(a == c->rows[0].value[0] - c->rows[0].value[1]);
		CHECK(a > 0); /* lru misses more than opt */
		CHECK(mr_compare_delta(c, 0, 2, &a, &p) == 0);
		CHECK(a == c->rows[0].value[2] - c->rows[0].value[3]);
	}
	mr_compare_free(c);
	c = NULL;
	/* one size: every run against the one baseline, as before */
	{
		struct sweep one = { .trace = s.trace, .pol = pol, .npol = 2, .sizes = sizes,
				     .nsizes = 1, .out = path_in("cmp1.db") };
		struct mr_results *r1 = NULL;

		co.baseline = "2";
		if (!run_sweep(&one) && !mr_results_open(one.out, &r1, &err) &&
		    !mr_results_compare(r1, &co, &c, &err)) {
			CHECK(!c->by_memory);
			CHECK_EQ_U64(c->base[0], 1);
			CHECK_EQ_U64(c->base[1], 1);
		} else {
			CHECK(0);
		}
		mr_compare_free(c);
		mr_results_close(r1);
	}
	mr_results_close(res);
}

static void test_errors(void)
{
	static const char *const pol[] = { "lru", "mglru" };
	uint64_t sizes[MR_REPLAY_MAX_SIZES + 1] = { 100, 200, 100 };
	struct mr_replay_opts o = { .trace = zipf_trace(), .policies = pol, .npolicies = 2,
				    .memory_sizes = sizes, .nmemory = 3 };
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };

	CHECK(mr_replay_create(&o, &r, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "given twice") != NULL);
	sizes[2] = 0;
	CHECK(mr_replay_create(&o, &r, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "0 pages") != NULL);
	sizes[2] = 300;
	o.memory_pages = 100;
	CHECK(mr_replay_create(&o, &r, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "not both") != NULL);
	o.memory_pages = 0;
	for (size_t i = 0; i <= MR_REPLAY_MAX_SIZES; i++)
		sizes[i] = 100 + i;
	o.nmemory = MR_REPLAY_MAX_SIZES + 1;
	CHECK(mr_replay_create(&o, &r, &err) == MR_ERANGE);
	CHECK(r == NULL);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_parse_memory),
	MR_CASE(test_one_pass_memcg),
	MR_CASE(test_one_pass_node),
	MR_CASE(test_one_pass_cgroup_limit),
	MR_CASE(test_deterministic),
	MR_CASE(test_compare_within_size),
	MR_CASE(test_errors),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_sweep", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
