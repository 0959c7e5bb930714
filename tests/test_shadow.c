// SPDX-License-Identifier: GPL-2.0
/*
 * test_shadow.c - the replay's shadow-entry assumption (`--shadow`, replayer/shadow.c,
 * docs/replay.md "Shadow entries"): one case per mode on a file read twice through
 * read() with memory for a part of it, so that every second-pass read is a refault
 * (mr_refaults) and what differs is whether workingset_refault() finds the shadow.
 */
#include <stdio.h>

#include "mr_event.h"
#include "mr_replay.h"
#include "mr_test.h"
#include "test_replay_trace.h"

#define T(i) ((uint64_t)(i) * 1000)
#define FILE_PAGES 2048u
#define MEMORY 128u

static const char *write_trace(uint32_t pages)
{
	const char *trace = path_in("twice.db");
	struct tb *b = tb_create(trace, 1);
	uint64_t t = 1;

	tb_cgroup(b, 1, "/twice");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, pages);
	for (uint32_t i = 0; i < pages; i++)
		tb_page_file(b, i, 1, i, 1, 0);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < pages; i++)
			tb_ev(b, T(t++), MR_EV_FD_ACCESS, i, 1, MR_ACC_READ, 1, 0);
	CHECK(tb_finish(b) == 0);
	return trace;
}

/* Replay with lru under mode; the counters asked for; the runs table's shadow column. */
static void run(int mode, const char *name, uint32_t pages, uint64_t *refaults,
		uint64_t *ws_file, uint64_t *nodereclaim)
{
	const char *trace = write_trace(pages), *out = path_in("r.db");
	const char *pol[] = { "lru" };
	struct mr_error err = { 0 };
	struct mr_replay_opts o = { .trace = trace, .policies = pol, .npolicies = 1,
				    .memory_pages = MEMORY, .shadow = mode,
				    .tmpdir = mr_test_tmpdir() };
	struct mr_replay *r = NULL;
	char sql[128];
	int rc = mr_replay_create(&o, &r, &err);

	if (!rc)
		rc = mr_replay_run(r, &err);
	if (!rc)
		rc = mr_replay_write_results(r, out, &err);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "replay: %s\n", err.msg);
		mr_replay_destroy(r);
		*refaults = *ws_file = *nodereclaim = 0;
		return;
	}
	*refaults = ctr(r, 0, "mr_refaults");
	*ws_file = ctr(r, 0, "workingset_refault_file");
	*nodereclaim = ctr(r, 0, "workingset_nodereclaim");
	printf("--shadow %s: mr_refaults %llu, workingset_refault_file %llu, "
	       "workingset_nodereclaim %llu\n", name, (unsigned long long)*refaults,
	       (unsigned long long)*ws_file, (unsigned long long)*nodereclaim);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs WHERE shadow = '%s'", name);
	CHECK_EQ_U64(sql_int(out, sql), 1);
	mr_replay_destroy(r);
}

/* keep: every refault finds its shadow; no node is ever reclaimed. */
static void test_keep(void)
{
	uint64_t rf, ws, nr;

	run(MR_SHADOW_KEEP, "keep", FILE_PAGES, &rf, &ws, &nr);
	CHECK(rf >= FILE_PAGES - MEMORY);
	CHECK_EQ_U64(ws, rf);
	CHECK_EQ_U64(nr, 0);
}

/* none: the same refaults, none of them recognised. */
static void test_none(void)
{
	uint64_t rf, ws, nr;

	run(MR_SHADOW_NONE, "none", FILE_PAGES, &rf, &ws, &nr);
	CHECK(rf >= FILE_PAGES - MEMORY);
	CHECK_EQ_U64(ws, 0);
	CHECK_EQ_U64(nr, 0);
}

/*
 * kernel: count_shadow_nodes() allows an lruvec's LRU pages >> 3 shadow-only nodes of
 * 64 slots, counted when the shrinker runs, right after a reclaim (lru leaves 80-odd of
 * the 128 pages then: 10 nodes). A file of 4 nodes leaves 2 behind its first pass: all
 * kept, every refault found. A file of 32 nodes leaves 30: the oldest go, whole nodes
 * (workingset_nodereclaim), and the second pass finds fewer shadows than it refaults.
 */
static void test_kernel(void)
{
	uint64_t rf, ws, nr;

	run(MR_SHADOW_KERNEL, "kernel", 4 * 64, &rf, &ws, &nr);
	CHECK(rf >= 4 * 64 - MEMORY);
	CHECK_EQ_U64(ws, rf);
	CHECK_EQ_U64(nr, 0);
	run(MR_SHADOW_KERNEL, "kernel", FILE_PAGES, &rf, &ws, &nr);
	CHECK(rf >= FILE_PAGES - MEMORY);
	CHECK(ws < rf - 64 * 16); /* at least 16 nodes' shadows were gone */
	CHECK(nr >= 30 - 10);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_keep),
	MR_CASE(test_none),
	MR_CASE(test_kernel),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_shadow", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
