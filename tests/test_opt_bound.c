// SPDX-License-Identifier: GPL-2.0
/*
 * test_opt_bound.c - opt is a lower bound (docs/replay.md, "What opt minimises"): on
 * every generator's trace, the shipped traces/default.db and hand-made readahead traces,
 * at several memory sizes, opt's misses (mr_misses: pages brought into memory, by a
 * fault, an fd access or a recorded page-cache insertion) are at most those of every
 * other built-in policy: lru at three swappiness values, mglru in each kernel mode and
 * with each seed toggle.
 *
 * A run that went over its limit (mr_oom > 0: nothing was left to reclaim, e.g. lru
 * with swappiness 0 on anonymous memory) had more memory than opt and is not compared;
 * opt itself must stay within every limit here. The generators run with smaller
 * parameters than their defaults so that the whole file takes well under a minute.
 *
 * One case per trace (`test_opt_bound gen_seq`, `ctest -R opt_bound.readahead_stride`).
 */
#include <stdio.h>
#include <string.h>

#include "mr_event.h"
#include "mr_gen.h"
#include "mr_replay.h"
#include "mr_test.h"
#include "mr_vm.h"
#include "test_replay_trace.h"

#ifndef MR_TEST_DEFAULT_DB
#error "MR_TEST_DEFAULT_DB: the path of traces/default.db (tests/opt_bound.cmake)"
#endif

/* opt first, then what it must not lose to */
static const char *const policies[] = {
	"opt",
	"lru",
	"lru:swappiness=0",
	"lru:swappiness=200",
	"mglru",
	"mglru:kernel=6.12",
	"mglru:kernel=6.12.95",
	"mglru:swappiness=0",
	"mglru:inc_min_seq=v3",
	"mglru:pud_filter=1",
	"mglru:ra_placement=B",
	"mglru:ra_placement=C",
	"mglru:exec_promote=1",
	"mglru:exec_promote=alt",
};
#define NPOL (sizeof(policies) / sizeof(policies[0]))

/*
 * The policy a case leaves out, or NULL. mglru:ra_placement=B goes over the limit at
 * every size of kbuild and default.db (tens of thousands of mr_oom), so it would not
 * be compared there anyway, and its reclaim retries take minutes on them.
 */
static const char *skip_spec;

/* Replay trace at memory pages (memcg or node reclaim) and check the bound. */
static void check_bound(const char *trace, uint64_t memory, int reclaim)
{
	struct mr_error err = { 0 };
	const char *pol[NPOL];
	size_t npol = 0;
	struct mr_replay_opts o = {
		.trace = trace, .policies = pol, .memory_pages = memory, .reclaim = reclaim,
		.threads = MR_REPLAY_THREADS_AUTO, .tmpdir = mr_test_tmpdir(),
	};
	struct mr_replay *r = NULL;
	struct mr_replay_summary opt, s;
	unsigned compared = 0;
	int rc;

	for (size_t i = 0; i < NPOL; i++)
		if (!skip_spec || strcmp(policies[i], skip_spec))
			pol[npol++] = policies[i];
	o.npolicies = npol;
	rc = mr_replay_create(&o, &r, &err);

	if (!rc)
		rc = mr_replay_run(r, &err);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "replay %s at %llu pages: %s\n", trace, (unsigned long long)memory,
			err.msg);
		mr_replay_destroy(r);
		return;
	}
	CHECK(mr_replay_summary(r, 0, &opt) == 0);
	CHECK_EQ_U64(opt.oom, 0);
	for (size_t i = 1; i < npol; i++) {
		CHECK(mr_replay_summary(r, i, &s) == 0);
		if (s.oom)
			continue; /* went over the limit: more memory than opt had */
		compared++;
		mr_test_checks++;
		if (opt.misses > s.misses) {
			mr_test_failures++;
			fprintf(stderr, "%s, %llu pages, %s reclaim: opt %llu misses > %s %llu\n",
				trace, (unsigned long long)memory, reclaim ? "node" : "memcg",
				(unsigned long long)opt.misses, s.spec, (unsigned long long)s.misses);
		}
	}
	printf("%s @%llu pages (%s): opt %llu misses, %u runs compared\n", trace,
	       (unsigned long long)memory, reclaim ? "node" : "memcg",
	       (unsigned long long)opt.misses, compared);
	CHECK(compared > 0);
	mr_replay_destroy(r);
}

/* Each memory size in pages, with memcg reclaim; with node, the middle one with node
 * reclaim too (its watermarks and kswapd batches are another way of reclaiming). */
static void check_sizes(const char *trace, const uint64_t *sizes, size_t n, int node)
{
#ifdef MR_DEBUG_CHECKS
	/* Debug and sanitizer builds run every policy's invariant check, O(pages), after
	 * every reclaim (machine.c): there the largest size alone, the fewest reclaims,
	 * keeps a case to seconds instead of minutes. The release build checks them all. */
	sizes += n - 1;
	n = 1;
	node = 0;
#endif
	for (size_t i = 0; i < n; i++)
		check_bound(trace, sizes[i], MR_RECLAIM_MEMCG);
	if (node)
		check_bound(trace, sizes[n / 2], MR_RECLAIM_NODE);
}

/* ---- generators ---- */

struct gen_case {
	const char *gen;
	const char *params[16]; /* name, value pairs, NULL-terminated */
	uint64_t sizes[3];      /* pages */
	int node;               /* also node reclaim */
	const char *skip;       /* skip_spec */
};

static const struct gen_case gens[] = {
	{ "zipf", { "pages", "8192", "events", "150K", NULL }, { 512, 2048, 6144 }, 1, NULL },
	{ "seq", { "size", "8M", "passes", "3", "folio_order", "2", NULL }, { 128, 1024, 1800 }, 1, NULL },
	{ "loop", { "size", "8M", "passes", "4", NULL }, { 256, 1024, 1800 }, 1, NULL },
	{ "agetest", { "size", "8M", "markers", "20", "memory_max", "0", NULL },
	  { 256, 1024, 1800 }, 1, NULL },
	{ "numa", { "workers", "4", "size_per_worker", "2M", "rounds", "4", "round", "20ms", NULL },
	  { 256, 1024, 1800 }, 1, NULL },
	{ "filerefault", { "jobs", "4", "size", "32M", "events", "100K", "memory_max", "0", NULL },
	  { 512, 2048, 6144 }, 1, NULL },
	{ "kbuild", { "jobs", "4", "tasks", "16", "headers", "200", "headers_per_task", "40",
		      "text_size", "4M", "memory_max", "0", NULL }, { 1024, 2048, 4096 }, 1,
	  "mglru:ra_placement=B" },
	{ "execbuild", { "jobs", "4", "tasks", "12", "text_size", "8M", "data_size", "16M",
			 "cold_touches", "40", "memory_max", "0", NULL }, { 1100, 1200, 1536 }, 1, NULL },
	{ "memwalk", { "size", "8M", "passes", "3", NULL }, { 256, 1024, 1800 }, 1, NULL },
};

static void run_gen(int i)
{
	const struct gen_case *c = &gens[i];
	const struct mr_gen *g = mr_gen_find(c->gen);
	struct mr_gen_values v;
	struct mr_error err = { 0 };
	char name[64];
	const char *trace;
	int rc;

	CHECK(g != NULL);
	if (!g)
		return;
	skip_spec = c->skip;
	snprintf(name, sizeof(name), "%s.db", c->gen);
	trace = path_in(name);
	rc = mr_gen_defaults(g, &v, &err);
	for (size_t k = 0; !rc && c->params[k]; k += 2)
		rc = mr_gen_set(g, &v, c->params[k], c->params[k + 1], &err);
	if (!rc)
		rc = mr_gen_write(g, &v, trace, NULL, &err);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "gen %s: %s\n", c->gen, err.msg);
		return;
	}
	check_sizes(trace, c->sizes, 3, c->node);
}

/* The shipped sample recording. */
static void test_default_db(void)
{
	static const uint64_t sizes[] = { 512, 2048, 8192 };

	skip_spec = "mglru:ra_placement=B";
	check_sizes(MR_TEST_DEFAULT_DB, sizes, 3, 1);
}

/* ---- hand-made readahead traces ---- */

#define T(i) ((uint64_t)(i) * 1000)
#define FILE_BASE 0x40000000ull
#define RA_FILE_PAGES 2048u

/*
 * A strided mmap read of a file with read-around windows, as recorded on a host whose
 * page cache thrashed: every window is recorded as inserted in full (the host had
 * evicted it again), alternately as one READAHEAD range and as order-2 PC_INSERT
 * folios, and only the first page of each stride is ever accessed. Windows overlap, so
 * the pages nobody asked for are inserted again by the next windows: a policy that
 * keeps them avoids those misses; a MIN that ranks them by their next *use* (never)
 * evicts them first and pays for each re-insertion.
 */
static void write_stride_trace(const char *path, uint32_t stride, uint32_t window,
			       unsigned passes)
{
	struct tb *b = tb_create(path, 1);
	uint64_t t = 1;
	unsigned k = 0;

	tb_cgroup(b, 1, "/stride");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, RA_FILE_PAGES);
	tb_vma(b, 1, 1, FILE_BASE, RA_FILE_PAGES, MR_VMA_READ | MR_VMA_SHARED | MR_VMA_FILE, 1, 0);
	for (uint32_t i = 0; i < RA_FILE_PAGES; i++)
		tb_page_file(b, i, 1, i, 1, 0);
	for (unsigned pass = 0; pass < passes; pass++) {
		for (uint32_t p = 0; p + window <= RA_FILE_PAGES; p += stride, k++) {
			if (k & 1) {
				for (uint32_t f = 0; f < window; f += 4)
					tb_ev(b, T(t++), MR_EV_PC_INSERT, p + f, 1, MR_PC_IN_FAULT | 2, 0, 0);
			} else {
				tb_ev(b, T(t++), MR_EV_READAHEAD, p, 1, MR_RA_IN_FAULT, window, window / 2);
			}
			tb_ev(b, T(t++), MR_EV_ACCESS, p, 1, MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_FAULT), 0, 0);
		}
	}
	CHECK(tb_finish(b) == 0);
}

static void test_readahead_stride(void)
{
	const char *trace = path_in("stride.db");
	static const uint64_t sizes[] = { 24, 48, 96, 512 };

	write_stride_trace(trace, 4, 32, 2);
	check_sizes(trace, sizes, 4, 1);
}

/* Windows far apart (no overlap): each is inserted once per pass, and the next pass
 * comes back to the same pages: opt must keep what the next pass inserts first. */
static void test_readahead_passes(void)
{
	const char *trace = path_in("passes.db");
	static const uint64_t sizes[] = { 64, 256, 1024 };

	write_stride_trace(trace, 64, 32, 3);
	check_sizes(trace, sizes, 3, 1);
}

static const struct mr_test_case cases[] = {
	MR_CASE_ARG("gen_zipf", run_gen, 0),
	MR_CASE_ARG("gen_seq", run_gen, 1),
	MR_CASE_ARG("gen_loop", run_gen, 2),
	MR_CASE_ARG("gen_agetest", run_gen, 3),
	MR_CASE_ARG("gen_numa", run_gen, 4),
	MR_CASE_ARG("gen_filerefault", run_gen, 5),
	MR_CASE_ARG("gen_kbuild", run_gen, 6),
	MR_CASE_ARG("gen_execbuild", run_gen, 7),
	MR_CASE_ARG("gen_memwalk", run_gen, 8),
	MR_CASE(test_default_db),
	MR_CASE(test_readahead_stride),
	MR_CASE(test_readahead_passes),
};

int main(int argc, char **argv)
{
	/* every generator has a case */
	size_t n = 0;

	for (const struct mr_gen *const *g = mr_gen_list(); *g; g++)
		n++;
	if (n != sizeof(gens) / sizeof(gens[0])) {
		fprintf(stderr, "test_opt_bound: %zu generators, %zu cases: add the new one\n", n,
			sizeof(gens) / sizeof(gens[0]));
		return 1;
	}
	return mr_test_main("test_opt_bound", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
