// SPDX-License-Identifier: GPL-2.0
/*
 * test_sample_ranges.c - the sampled replay's filter (replayer/sample.c) on events over
 * a range of pages: a range over a sampled and an unsampled 2 MiB region keeps exactly
 * its sampled pages (FD_ACCESS, READAHEAD, PC_INSERT cut to their sampled runs, FREE
 * too), with the next-use values of those pages (opt), and one wholly unsampled keeps
 * nothing.
 */
#include <stdio.h>
#include <string.h>

#include "mr_event.h"
#include "mr_replay.h"
#include "mr_test.h"
#include "test_replay_trace.h"

#define T(i) ((uint64_t)(i) * 1000)

/* A seed with which, at 1/2, region 0 of file 1 is sampled and region 1 is not. */
static uint64_t split_seed(void)
{
	const uint64_t half = UINT64_MAX / 2;

	for (uint64_t s = 0; s < 1000; s++)
		if (mr_replay_sample_hash(s, 0, 1, 0) <= half && mr_replay_sample_hash(s, 0, 1, 1) > half)
			return s;
	CHECK(0);
	return 0;
}

/* file 1 of 1536 pages, page id = index: regions 0, 1 and 2 */
static const char *range_trace(void)
{
	const char *trace = path_in("ranges.db");
	struct tb *b = tb_create(trace, 1);
	uint64_t t = 1;

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, 1536);
	for (uint32_t i = 0; i < 1536; i++)
		tb_page_file(b, i, 1, i, 1, 0);
	for (int round = 0; round < 3; round++) {
		/* 500..529: 500..511 in region 0 */
		tb_ev(b, T(t++), MR_EV_FD_ACCESS, 500, 1, MR_ACC_READ, 30, 0);
		/* 505..524: 505..511 */
		tb_ev(b, T(t++), MR_EV_READAHEAD, 505, 1, 0, 20, 4);
		/* an order-5 folio at 496: 496..527, 496..511 */
		tb_ev(b, T(t++), MR_EV_PC_INSERT, 496, 1, 5, 0, 0);
		/* 600..639, all in region 1 */
		tb_ev(b, T(t++), MR_EV_FD_ACCESS, 600, 1, MR_ACC_READ, 40, 0);
		/* 0..99 in region 0 */
		tb_ev(b, T(t++), MR_EV_FD_ACCESS, 0, 1, MR_ACC_READ, 100, 0);
		/* 490..529 freed: 490..511 */
		tb_ev(b, T(t++), MR_EV_FREE, 490, 1, 0, 40, 0);
	}
	CHECK(tb_finish(b) == 0);
	return trace;
}

static struct mr_replay *run(const char *trace, uint32_t den, uint64_t seed, struct mr_error *err)
{
	static const char *const pol[] = { "lru", "opt" };
	struct mr_replay_opts o = {
		.trace = trace, .policies = pol, .npolicies = 2, .memory_pages = 4096,
		.threads = 0, .tmpdir = path_in(""), .sample_den = den, .sample_seed = seed,
		.sample_unit = 512, /* whole 2 MiB regions: a range crosses two */
		.check = 1,
	};
	struct mr_replay *r = NULL;

	if (mr_replay_create(&o, &r, err) || mr_replay_run(r, err)) {
		fprintf(stderr, "replay: %s\n", err->msg);
		CHECK(0);
		mr_replay_destroy(r);
		return NULL;
	}
	return r;
}

static void test_ranges(void)
{
	const char *trace = range_trace();
	uint64_t seed = split_seed(), of = 0;
	struct mr_error err = { 0 };
	struct mr_replay *full = run(trace, 0, 0, &err), *s = run(trace, 2, seed, &err);

	if (!full || !s)
		goto out;
	/* region 0 is sampled, 1 is not; region 2 has no event */
	CHECK(mr_replay_sampled_pages(s, &of) >= 512);
	CHECK_EQ_U64(of, 1536);
	for (size_t run_i = 0; run_i < 2; run_i++) {
		/* per round: 30 + 20 + 32 + 40 + 100 references in full, 12 + 7 + 16 + 0 +
		 * 100 sampled */
		CHECK_EQ_U64(ctr(full, run_i, "mr_references"), 3 * (30 + 20 + 32 + 40 + 100));
		CHECK_EQ_U64(ctr(s, run_i, "mr_references"), 3 * (12 + 7 + 16 + 100));
		CHECK_EQ_U64(ctr(s, run_i, "mr_fd_access_pages"), 3 * (12 + 100));
		/* inserted by READAHEAD/PC_INSERT while absent: the folio's 496..499, each
		 * round (the FD_ACCESS before brought 500..511 in; FREE took 490..511) */
		CHECK_EQ_U64(ctr(s, run_i, "mr_readahead_pages"), 3 * 4);
		CHECK_EQ_U64(ctr(s, run_i, "mr_check_problems"), 0);
		CHECK_EQ_U64(ctr(s, run_i, "mr_bad_events"), 0);
	}
	/* opt's next-use values stayed with their pages: it misses no more than lru */
	CHECK(ctr(s, 1, "mr_misses") <= ctr(s, 0, "mr_misses"));
out:
	mr_replay_destroy(full);
	mr_replay_destroy(s);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_ranges),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_sample_ranges", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
