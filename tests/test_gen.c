// SPDX-License-Identifier: GPL-2.0
/*
 * test_gen.c - the workload generators (traces/).
 *
 * Every generator, run small, writes a store that is consistent: events in
 * nondecreasing time; every page id names a page row, and ids are dense in order of
 * first appearance; range events name existing consecutive ids; a file page first
 * appears in a page-cache insert and an anon page in a fault; exec accesses hit pages
 * marked exec; every task, VMA, marker and file an event or row refers to exists.
 * Same seed -> identical chunk blobs, another seed -> different, and the generator,
 * parameters and seed in the meta rows regenerate the same blobs. Bad parameters fail
 * with MR_EINVAL/MR_ERANGE and a message naming the parameter. The Zipf sampler gives
 * each rank its theoretical share (fixed seed, tolerances far beyond sampling noise).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_priv.h"
#include "mr_gen.h"
#include "mr_store.h"
#include "mr_test.h"

/* Small parameters per generator: a run takes milliseconds. */
struct small {
	const char *gen;
	const char *kv[24]; /* name, value, ..., NULL */
};

static const struct small smalls[] = {
	{ "zipf", { "pages", "4096", "events", "30000", "files", "3", NULL } },
	{ "seq", { "size", "2M", "passes", "2", "read_size", "16K", NULL } },
	{ "loop", { "size", "1M", "passes", "3", NULL } },
	{ "agetest", { "size", "2M", "idle", "50ms", "markers", "10", NULL } },
	{ "numa",
	  { "workers", "3", "size_per_worker", "256K", "rounds", "3", "round", "5ms",
	    "age_interval", "1ms", NULL } },
	{ "filerefault", { "jobs", "4", "size", "1M", "events", "5000", NULL } },
	{ "kbuild",
	  { "jobs", "3", "tasks", "8", "headers", "60", "headers_per_task", "25", "text_size",
	    "1M", "heap", "256K", "memory_max", "16M", NULL } },
	{ "execbuild",
	  { "jobs", "3", "tasks", "6", "text_size", "2M", "libs", "2", "data_size", "4M",
	    "scratch", "256K", "cold_touches", "20", NULL } },
	{ "memwalk", { "size", "1M", "passes", "3", "pattern", "3", NULL } },
};
#define NSMALL (sizeof(smalls) / sizeof(smalls[0]))

static char path_buf[4096];

static const char *db_path(const char *name, const char *tag)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s-%s.db", mr_test_tmpdir(), name, tag);
	return path_buf;
}

static const struct small *find_small(const char *name)
{
	for (size_t i = 0; i < NSMALL; i++)
		if (!strcmp(smalls[i].gen, name))
			return &smalls[i];
	return NULL;
}

/* Write generator `name` with its small parameters plus extra (name, value, ..., NULL). */
static int write_small(const char *name, uint64_t seed, const char *path, const char **extra)
{
	const struct mr_gen *g = mr_gen_find(name);
	const struct small *sm = find_small(name);
	struct mr_gen_values v;
	struct mr_error err = { 0 };
	int rc;

	if (!g || !sm)
		return MR_ENOENT;
	rc = mr_gen_defaults(g, &v, &err);
	for (size_t i = 0; !rc && sm->kv[i]; i += 2)
		rc = mr_gen_set(g, &v, sm->kv[i], sm->kv[i + 1], &err);
	for (size_t i = 0; !rc && extra && extra[i]; i += 2)
		rc = mr_gen_set(g, &v, extra[i], extra[i + 1], &err);
	v.seed = seed;
	if (!rc)
		rc = mr_gen_write(g, &v, path, NULL, &err);
	if (rc)
		fprintf(stderr, "gen %s: %s (%d)\n", name, err.msg, rc);
	return rc;
}

static int64_t sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "SQL error: %s in %s\n", sqlite3_errmsg(db), sql);
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

struct page_info {
	uint8_t type, exec, seen;
};

struct pages_ctx {
	struct page_info *p;
	uint64_t n, cap;
	int dense;
};

static int collect_page(const struct mr_page *pg, void *arg)
{
	struct pages_ctx *pc = arg;

	if (pg->id != pc->n)
		pc->dense = 0;
	if (pc->n == pc->cap) {
		uint64_t cap = pc->cap ? 2 * pc->cap : 4096;
		struct page_info *p = realloc(pc->p, cap * sizeof(*p));

		if (!p)
			return 1;
		pc->p = p;
		pc->cap = cap;
	}
	pc->p[pc->n++] = (struct page_info){ .type = pg->type, .exec = pg->exec };
	return 0;
}

/* Note the ids [first, first+n) appearing in event order; check density. */
struct order {
	int64_t hi; /* highest id seen so far */
	uint64_t bad;
};

static void appear(struct order *o, struct pages_ctx *pc, uint32_t first, uint64_t n,
		   uint8_t kind)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id = (uint64_t)first + i;
		struct page_info *pi;

		if (id >= pc->n) {
			o->bad++;
			continue;
		}
		pi = &pc->p[id];
		if ((int64_t)id > o->hi) {
			if ((int64_t)id != o->hi + 1)
				o->bad++; /* skipped an id */
			o->hi = (int64_t)id;
		}
		if (!pi->seen) {
			pi->seen = 1;
			/* file pages enter through the page cache, anon pages through a fault */
			if (pi->type == MR_PAGE_FILE && kind != MR_EV_PC_INSERT &&
			    kind != MR_EV_READAHEAD)
				o->bad++;
			if (pi->type == MR_PAGE_ANON && kind != MR_EV_FAULT)
				o->bad++;
		}
	}
}

struct store_facts {
	uint64_t events, pages;
	uint64_t by_kind[MR_EV_NR_KINDS];
};

static void check_store(const char *name, const char *path, struct store_facts *f)
{
	struct mr_error err = { 0 };
	struct pages_ctx pc = { .dense = 1 };
	struct order ord = { .hi = -1 };
	struct mr_store *s = NULL;
	struct mr_reader *r = NULL;
	struct mr_event ev;
	uint64_t last = 0, bad_time = 0, bad_page = 0, bad_ref = 0, bad_exec = 0;
	int64_t ntasks, nvmas, nmarkers;
	char buf[256];
	sqlite3 *db;
	int rc;

	memset(f, 0, sizeof(*f));
	rc = mr_store_open(path, MR_STORE_RDONLY, &s, &err);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "%s: open: %s\n", name, err.msg);
		return;
	}
	db = mr_store_db(s);
	rc = mr_store_meta_get(s, "generator", buf, sizeof(buf), &err);
	CHECK(rc == 0 && !strcmp(buf, name));
	CHECK(mr_store_meta_get(s, "nodes", buf, sizeof(buf), &err) == 0);
	CHECK(mr_store_meta_get(s, "seed", buf, sizeof(buf), &err) == 0);
	CHECK(mr_store_meta_get(s, "generator_params", buf, sizeof(buf), &err) == 0);
	CHECK(mr_store_meta_get(s, "page_size", buf, sizeof(buf), &err) == 0 &&
	      !strcmp(buf, "4096"));

	CHECK(mr_store_pages_foreach(s, collect_page, &pc, &err) == 0);
	CHECK(pc.dense);
	f->pages = pc.n;

	/* rows refer to rows that exist; ids dense from 1 */
	ntasks = sql_int(db, "SELECT count(*) FROM tasks");
	nvmas = sql_int(db, "SELECT count(*) FROM vmas");
	nmarkers = sql_int(db, "SELECT count(*) FROM markers");
	CHECK(ntasks > 0);
	CHECK(sql_int(db, "SELECT coalesce(max(id), 0) FROM tasks") == ntasks);
	CHECK(sql_int(db, "SELECT coalesce(max(id), 0) FROM vmas") == nvmas);
	CHECK(sql_int(db, "SELECT coalesce(max(id), 0) FROM markers") == nmarkers);
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM pages p WHERE p.type = 1 AND NOT EXISTS"
				 " (SELECT 1 FROM files f WHERE f.id = p.file"
				 "  AND p.idx < f.size_pages)"),
		     0);
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM pages p WHERE p.type = 0 AND NOT EXISTS"
				 " (SELECT 1 FROM mms m WHERE m.id = p.mm)"),
		     0);
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM pages p WHERE NOT EXISTS"
				 " (SELECT 1 FROM cgroups c WHERE c.id = p.cgroup)"),
		     0);
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM tasks t WHERE NOT EXISTS"
				 " (SELECT 1 FROM mms m WHERE m.id = t.mm) OR NOT EXISTS"
				 " (SELECT 1 FROM cgroups c WHERE c.id = t.cgroup)"),
		     0);
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM vmas v WHERE NOT EXISTS"
				 " (SELECT 1 FROM mms m WHERE m.id = v.mm) OR (v.file != 0 AND"
				 " NOT EXISTS (SELECT 1 FROM files f WHERE f.id = v.file))"
				 " OR v.\"end\" <= v.start"
				 " OR (v.unmap_ns != 0 AND v.unmap_ns < v.map_ns)"),
		     0);
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM tasks"
				 " WHERE end_ns != 0 AND end_ns < start_ns"),
		     0);
	/* a page mapped through VM_EXEC is marked exec */
	CHECK_EQ_U64(sql_int(db, "SELECT count(*) FROM pages p JOIN vmas v ON v.file = p.file"
				 " WHERE p.type = 1 AND (v.flags & 4) != 0 AND p.exec = 0"),
		     0);

	rc = mr_reader_open(s, NULL, &r, &err);
	CHECK(rc == 0);
	while (!rc && (rc = mr_reader_next(r, &ev)) == 0) {
		uint64_t n = 0;

		f->events++;
		if (ev.kind < MR_EV_NR_KINDS)
			f->by_kind[ev.kind]++;
		if (ev.time < last)
			bad_time++;
		last = ev.time;
		if (ev.task > (uint64_t)ntasks)
			bad_ref++;
		switch (ev.kind) {
		case MR_EV_ACCESS:
		case MR_EV_FAULT:
			n = 1;
			if ((ev.flags & MR_ACC_EXEC) && ev.page < pc.n && !pc.p[ev.page].exec)
				bad_exec++;
			break;
		case MR_EV_PC_INSERT:
			n = 1ull << (ev.flags & MR_PC_ORDER_MASK);
			break;
		case MR_EV_FD_ACCESS:
		case MR_EV_READAHEAD:
		case MR_EV_FREE:
			n = ev.size;
			if (!n)
				bad_page++;
			break;
		case MR_EV_MAP:
		case MR_EV_UNMAP:
			if (ev.arg < 1 || ev.arg > (uint64_t)nvmas)
				bad_ref++;
			break;
		case MR_EV_MARKER:
			if (ev.arg < 1 || ev.arg > (uint64_t)nmarkers)
				bad_ref++;
			break;
		case MR_EV_EXIT:
			break;
		default:
			bad_ref++; /* generators emit nothing else */
		}
		if (n) {
			if (ev.page == MR_PAGE_NONE || (uint64_t)ev.page + n > pc.n)
				bad_page++;
			else
				appear(&ord, &pc, ev.page, n, ev.kind);
		} else if (ev.page != MR_PAGE_NONE) {
			bad_page++;
		}
	}
	CHECK(rc == MR_EOF);
	CHECK_EQ_U64(bad_time, 0);
	CHECK_EQ_U64(bad_page, 0);
	CHECK_EQ_U64(bad_ref, 0);
	CHECK_EQ_U64(bad_exec, 0);
	CHECK_EQ_U64(ord.bad, 0);
	CHECK(f->events > 0);
	/* every page row is used by some event */
	CHECK_EQ_U64((uint64_t)(ord.hi + 1), pc.n);
	if (bad_time || bad_page || bad_ref || bad_exec || ord.bad)
		fprintf(stderr, "%s: time %llu page %llu ref %llu exec %llu order %llu\n", name,
			(unsigned long long)bad_time, (unsigned long long)bad_page,
			(unsigned long long)bad_ref, (unsigned long long)bad_exec,
			(unsigned long long)ord.bad);
	mr_reader_close(r);
	mr_store_close(s);
	free(pc.p);
}

/* FNV-1a over every chunk blob in id order, and the chunk count. */
static uint64_t chunks_hash(const char *path, uint64_t *nchunks)
{
	struct mr_error err = { 0 };
	struct mr_store *s;
	sqlite3_stmt *st;
	uint64_t h = 1469598103934665603ull;

	*nchunks = 0;
	if (mr_store_open(path, MR_STORE_RDONLY, &s, &err))
		return 0;
	if (sqlite3_prepare_v2(mr_store_db(s), "SELECT data FROM chunks ORDER BY id", -1, &st,
			       NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const uint8_t *b = sqlite3_column_blob(st, 0);
			int n = sqlite3_column_bytes(st, 0);

			for (int i = 0; i < n; i++)
				h = (h ^ b[i]) * 1099511628211ull;
			h = (h ^ 0xff) * 1099511628211ull; /* blob boundary */
			(*nchunks)++;
		}
		sqlite3_finalize(st);
	}
	mr_store_close(s);
	return h;
}

/* Regenerate from the meta rows alone (generator, generator_params, seed) into out. */
static int regenerate(const char *path, const char *out)
{
	struct mr_error err = { 0 };
	char gname[64], params[1024], seed[32];
	const struct mr_gen *g;
	struct mr_gen_values v;
	struct mr_store *s;
	int rc;

	rc = mr_store_open(path, MR_STORE_RDONLY, &s, &err);
	if (rc)
		return rc;
	rc = mr_store_meta_get(s, "generator", gname, sizeof(gname), &err);
	if (!rc)
		rc = mr_store_meta_get(s, "generator_params", params, sizeof(params), &err);
	if (!rc)
		rc = mr_store_meta_get(s, "seed", seed, sizeof(seed), &err);
	mr_store_close(s);
	if (rc)
		return rc;
	g = mr_gen_find(gname);
	if (!g)
		return MR_ENOENT;
	rc = mr_gen_defaults(g, &v, &err);
	if (!rc)
		rc = mr_gen_set(g, &v, "seed", seed, &err);
	for (char *save = NULL, *kv = strtok_r(params, " ", &save); !rc && kv;
	     kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq)
			return MR_EINVAL;
		*eq = 0;
		rc = mr_gen_set(g, &v, kv, eq + 1, &err);
	}
	if (!rc)
		rc = mr_gen_write(g, &v, out, NULL, &err);
	if (rc)
		fprintf(stderr, "regenerate %s: %s\n", gname, err.msg);
	return rc;
}

static void test_generators(void)
{
	const struct mr_gen *const *list = mr_gen_list();
	size_t n = 0;

	for (; list[n]; n++) {
		const char *name = list[n]->name;
		struct store_facts f;
		uint64_t h1, h2, h3, c1, c2, c3;
		char again[sizeof(path_buf)];

		CHECK(list[n]->help && list[n]->models && list[n]->run);
		CHECK(find_small(name) != NULL);
		if (!find_small(name))
			continue;
		CHECK(write_small(name, 7, db_path(name, "a"), NULL) == 0);
		check_store(name, db_path(name, "a"), &f);
		printf("%-12s %8llu events %7llu pages\n", name, (unsigned long long)f.events,
		       (unsigned long long)f.pages);

		/* determinism */
		CHECK(write_small(name, 7, db_path(name, "b"), NULL) == 0);
		CHECK(write_small(name, 8, db_path(name, "c"), NULL) == 0);
		h1 = chunks_hash(db_path(name, "a"), &c1);
		h2 = chunks_hash(db_path(name, "b"), &c2);
		h3 = chunks_hash(db_path(name, "c"), &c3);
		CHECK(c1 > 0);
		CHECK_EQ_U64(c1, c2);
		CHECK_EQ_U64(h1, h2);
		CHECK(h1 != h3);

		/* the meta rows say how to make the same trace again */
		strcpy(again, db_path(name, "again"));
		CHECK(regenerate(db_path(name, "a"), again) == 0);
		CHECK_EQ_U64(chunks_hash(again, &c2), h1);
	}
	CHECK_EQ_U64(n, NSMALL);
}

/* Kind-specific shape: what each workload must contain. */
static void test_shapes(void)
{
	static const char *seq_order[] = { "folio_order", "2", NULL };
	struct store_facts f;

	CHECK(write_small("seq", 3, db_path("seq", "order"), seq_order) == 0);
	check_store("seq", db_path("seq", "order"), &f);
	CHECK(f.by_kind[MR_EV_READAHEAD] > 1);
	/* 512 pages in order-2 folios, the file read twice by 16 KiB read()s */
	CHECK_EQ_U64(f.by_kind[MR_EV_PC_INSERT], 128);
	CHECK_EQ_U64(f.by_kind[MR_EV_FD_ACCESS], 2 * 128);

	if (access(db_path("agetest", "a"), F_OK)) /* run alone: the store test_generators makes */
		test_generators();
	check_store("agetest", db_path("agetest", "a"), &f);
	CHECK_EQ_U64(f.by_kind[MR_EV_FAULT], 512);
	CHECK_EQ_U64(f.by_kind[MR_EV_ACCESS], 512);
	CHECK_EQ_U64(f.by_kind[MR_EV_MARKER], 11); /* 10 aging markers and "end" */

	check_store("kbuild", db_path("kbuild", "a"), &f);
	CHECK_EQ_U64(f.by_kind[MR_EV_EXIT], 8);
	CHECK(f.by_kind[MR_EV_READAHEAD] > 0);
	CHECK(f.by_kind[MR_EV_FD_ACCESS] > 0);
	CHECK(f.by_kind[MR_EV_FREE] > 0);
	CHECK_EQ_U64(f.by_kind[MR_EV_MAP], f.by_kind[MR_EV_UNMAP]);

	check_store("numa", db_path("numa", "a"), &f);
	CHECK_EQ_U64(f.by_kind[MR_EV_FAULT], 3 * 64);
	CHECK(f.by_kind[MR_EV_MARKER] >= 15);

	check_store("filerefault", db_path("filerefault", "a"), &f);
	CHECK_EQ_U64(f.by_kind[MR_EV_FD_ACCESS], 5000);
	CHECK_EQ_U64(f.by_kind[MR_EV_PC_INSERT], f.pages);
}

static void expect_fail(const char *gen, const char *name, const char *value)
{
	const struct mr_gen *g = mr_gen_find(gen);
	struct mr_error err = { 0 };
	struct mr_gen_values v;
	int rc;

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(mr_gen_defaults(g, &v, &err) == 0);
	rc = mr_gen_set(g, &v, name, value, &err);
	CHECK(rc == MR_EINVAL || rc == MR_ERANGE);
	CHECK(strstr(err.msg, name) != NULL);
	if (!strstr(err.msg, name) || !(rc == MR_EINVAL || rc == MR_ERANGE))
		fprintf(stderr, "%s --%s %s: rc %d, '%s'\n", gen, name, value, rc, err.msg);
}

static void test_params(void)
{
	const struct mr_gen *g = mr_gen_find("zipf");
	struct mr_error err = { 0 };
	struct mr_gen_values v;

	CHECK(mr_gen_find("nope") == NULL);
	CHECK(mr_gen_find(NULL) == NULL);
	for (const struct mr_gen *const *l = mr_gen_list(); *l; l++) {
		CHECK(mr_gen_defaults(*l, &v, &err) == 0);
		CHECK((*l)->nparams <= MR_GEN_MAX_PARAMS);
	}

	expect_fail("zipf", "bogus", "1");
	expect_fail("zipf", "pages", "abc");
	expect_fail("zipf", "pages", "-5");
	expect_fail("zipf", "pages", "0");
	expect_fail("zipf", "pages", "8");   /* below 16 pages */
	expect_fail("zipf", "pages", "1T");  /* above 64 GiB */
	expect_fail("zipf", "pages", "12Q"); /* unknown suffix */
	expect_fail("zipf", "events", "0");
	expect_fail("zipf", "events", "-1");
	expect_fail("zipf", "events", "5X");
	expect_fail("zipf", "skew", "3.5");
	expect_fail("zipf", "skew", "abc");
	expect_fail("zipf", "skew", "nan");
	expect_fail("zipf", "anon_ratio", "-0.1");
	expect_fail("zipf", "files", "99999");
	expect_fail("zipf", "seed", "abc");
	expect_fail("zipf", "seed", "-5");
	expect_fail("kbuild", "tasks", "0");
	expect_fail("kbuild", "jobs", "100000");
	expect_fail("numa", "workers", "0");
	expect_fail("seq", "folio_order", "10");
	expect_fail("agetest", "size", "");

	/* values within bounds, zero where allowed */
	CHECK(mr_gen_defaults(g, &v, &err) == 0);
	CHECK(mr_gen_set(g, &v, "pages", "1G", &err) == 0 && v.v[0].u == 262144);
	CHECK(mr_gen_set(g, &v, "pages", "65536", &err) == 0 && v.v[0].u == 65536);
	CHECK(mr_gen_set(g, &v, "events", "50M", &err) == 0 && v.v[1].u == 50000000);
	CHECK(mr_gen_set(g, &v, "skew", "0", &err) == 0);
	CHECK(mr_gen_set(g, &v, "skew", "3", &err) == 0);
	CHECK(mr_gen_set(g, &v, "seed", "42", &err) == 0 && v.seed == 42);
	CHECK(mr_gen_set(mr_gen_find("agetest"), &v, "idle", "0", &err) == 0);

	/* values set behind mr_gen_set()'s back are checked by mr_gen_write() */
	CHECK(mr_gen_defaults(g, &v, &err) == 0);
	v.v[0].u = 0;
	memset(&err, 0, sizeof(err));
	CHECK(mr_gen_write(g, &v, db_path("zipf", "bad"), NULL, &err) == MR_ERANGE);
	CHECK(strstr(err.msg, "pages") != NULL);
}

static double harmonic(unsigned n, double s)
{
	double h = 0;

	for (unsigned k = n; k >= 1; k--)
		h += pow(k, -s);
	return h;
}

static void zipf_share(unsigned n, double s, uint64_t seed)
{
	enum { SAMPLES = 1000000 };
	struct gen_zipf z;
	struct gen_rng r;
	uint64_t c0 = 0, c1 = 0, c9 = 0, out = 0;
	double h = harmonic(n, s), p0 = 1 / h;
	double p1 = n > 1 ? pow(2, -s) / h : 0, p9 = n > 9 ? pow(10, -s) / h : 0;

	CHECK(gen_zipf_init(&z, n, s) == 0);
	gen_rng_seed(&r, seed);
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t k = gen_zipf_next(&z, &r);

		c0 += k == 0;
		c1 += k == 1;
		c9 += k == 9;
		out += k >= n;
	}
	CHECK_EQ_U64(out, 0);
	/* tolerance: 0.01 absolute is >= 20 standard deviations at 1M samples */
	CHECK(fabs((double)c0 / SAMPLES - p0) < 0.01);
	CHECK(fabs((double)c1 / SAMPLES - p1) < 0.01);
	CHECK(fabs((double)c9 / SAMPLES - p9) < 0.01);
	if (fabs((double)c0 / SAMPLES - p0) >= 0.01)
		printf("zipf n=%u s=%g: rank 1 share %.4f, expected %.4f\n", n, s,
		       (double)c0 / SAMPLES, p0);
}

static void test_zipf(void)
{
	struct gen_zipf z;
	struct gen_rng a, b;
	int same = 1;

	zipf_share(1000, 1.0, 12345);
	zipf_share(1000, 0.0, 12345);
	zipf_share(1000, 0.5, 12345);
	zipf_share(1000, 0.99, 12345);
	zipf_share(1000, 1.01, 12345);
	zipf_share(1000, 2.0, 12345);
	zipf_share(1000, 3.0, 12345);
	zipf_share(1, 1.0, 12345);
	zipf_share(2, 1.0, 12345);
	CHECK(gen_zipf_init(&z, 0, 1.0) == MR_EINVAL);
	CHECK(gen_zipf_init(&z, 10, 3.5) == MR_EINVAL);
	CHECK(gen_zipf_init(&z, 10, -0.1) == MR_EINVAL);
	CHECK(gen_zipf_init(&z, 10, NAN) == MR_EINVAL);

	/* the PRNG is a pure function of its seed */
	gen_rng_seed(&a, 99);
	gen_rng_seed(&b, 99);
	for (int i = 0; i < 1000; i++)
		same &= gen_rng_next(&a) == gen_rng_next(&b);
	CHECK(same);
	gen_rng_seed(&b, 100);
	CHECK(gen_rng_next(&a) != gen_rng_next(&b));
	for (int i = 0; i < 1000; i++)
		CHECK(gen_rng_below(&a, 7) < 7);
}

/*
 * memwalk: the access order of kernel-lab's memwalk.c. Its `rand` permutation of the
 * 49152 pages of 192 MiB from seed 7 starts 28344 41116 23389 44236 36706 (computed
 * with memwalk.c's xorshift64* Fisher-Yates); every pass repeats it; randpass differs
 * per pass; rev is descending.
 */
static void test_memwalk(void)
{
	static const int64_t want[5] = { 28344, 41116, 23389, 44236, 36706 };
	const char *rand2[] = { "size", "192M", "passes", "2", "pattern", "2", NULL };
	const char *rev[] = { "pattern", "1", "passes", "1", NULL };
	char paths[2][4096];

	/* db_path() returns one static buffer */
	snprintf(paths[0], sizeof(paths[0]), "%s", db_path("memwalk", "rand"));
	snprintf(paths[1], sizeof(paths[1]), "%s", db_path("memwalk", "rev"));

	CHECK(write_small("memwalk", 7, paths[0], rand2) == 0);
	CHECK(write_small("memwalk", 7, paths[1], rev) == 0);
	for (int t = 0; t < 2; t++) {
		struct mr_error err = { 0 };
		struct mr_store *st = NULL;
		struct mr_reader *rd = NULL;
		struct mr_event ev;
		int64_t got[10];
		uint64_t nacc = 0;
		sqlite3 *db;
		char sql[160];

		CHECK(mr_store_open(paths[t], MR_STORE_RDONLY, &st, &err) == 0);
		CHECK(st && mr_reader_open(st, NULL, &rd, &err) == 0);
		CHECK(sqlite3_open_v2(paths[t], &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
		while (rd && mr_reader_next(rd, &ev) == 0) {
			if (ev.kind != MR_EV_ACCESS)
				continue;
			/* offsets from the mapping's first page (0x7f0000000000) */
			if (nacc < 5 || (nacc >= 49152 && nacc < 49157)) {
				snprintf(sql, sizeof(sql), "SELECT vpage - %lld FROM pages WHERE id = %u",
					 0x7f0000000000ll >> 12, ev.page);
				got[nacc < 5 ? nacc : nacc - 49152 + 5] = sql_int(db, sql);
			}
			nacc++;
		}
		if (t == 0) {
			CHECK_EQ_U64(nacc, 2 * 49152);
			for (int i = 0; i < 5; i++) {
				CHECK_EQ_U64((uint64_t)got[i], (uint64_t)want[i]);
				CHECK_EQ_U64((uint64_t)got[5 + i], (uint64_t)want[i]); /* pass 2 repeats */
			}
		} else {
			CHECK_EQ_U64((uint64_t)got[0], 255); /* 1 MiB: the last page first */
			CHECK_EQ_U64((uint64_t)got[1], 254);
		}
		sqlite3_close(db);
		mr_reader_close(rd);
		mr_store_close(st);
	}
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_zipf),
	MR_CASE(test_params),
	MR_CASE(test_generators),
	MR_CASE(test_shapes),
	MR_CASE(test_memwalk),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_gen", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
