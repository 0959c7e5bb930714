// SPDX-License-Identifier: GPL-2.0
/*
 * test_reclaim.c - node reclaim (`--reclaim node`, mr_replay.h): the zone watermarks
 * against hand-computed values, kswapd doing the reclaim when allocations are spread in
 * time and direct reclaim only when a burst outruns it, per-memcg limits under node
 * reclaim, mglru's min_ttl OOM on the kswapd path only, determinism of the results; and
 * the "trace too coarse" note (docs/replay.md) on a young-bit-only trace and its
 * fine-grained twin.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_gen.h"
#include "mr_policy.h"
#include "mr_replay.h"
#include "mr_test.h"

#include "test_replay_trace.h"

#define ANON_BASE 0x10000000ull

struct run {
	const char *trace;
	const char *pol[4];
	size_t npol;
	uint64_t memory;
	int reclaim;
	const struct mr_replay_limit *limits;
	size_t nlimits;
	int threads;
	const char *out;
	uint64_t wb; /* writeback_delay_ns */
};

static struct mr_replay *replay(const struct run *ro)
{
	struct mr_error err = { 0 };
	struct mr_replay_opts o = {
		.trace = ro->trace, .policies = ro->pol, .npolicies = ro->npol,
		.memory_pages = ro->memory, .reclaim = ro->reclaim, .limits = ro->limits,
		.nlimits = ro->nlimits, .threads = ro->threads, .tmpdir = mr_test_tmpdir(),
		.check = 1, .writeback_delay_ns = ro->wb,
	};
	struct mr_replay *r = NULL;
	int rc = mr_replay_create(&o, &r, &err);

	if (!rc)
		rc = mr_replay_run(r, &err);
	if (!rc && ro->out)
		rc = mr_replay_write_results(r, ro->out, &err);
	if (rc) {
		fprintf(stderr, "replay %s: %s\n", ro->trace, err.msg);
		mr_replay_destroy(r);
		return NULL;
	}
	return r;
}

/* ---- watermarks ---- */

static void check_wmarks(uint64_t node, uint64_t total, uint64_t kb, uint64_t min, uint64_t low,
			 uint64_t high)
{
	struct mr_watermarks w;

	mr_replay_watermarks(node, total, &w);
	CHECK_EQ_U64(w.min_free_kbytes, kb);
	CHECK_EQ_U64(w.min, min);
	CHECK_EQ_U64(w.low, low);
	CHECK_EQ_U64(w.high, high);
}

/*
 * By hand, from calculate_min_free_kbytes() and __setup_per_zone_wmarks():
 *   1 GiB = 262144 pages: sqrt(1048576 * 16) = 4096 kB -> 1024 pages min;
 *     max(1024 / 4, 262144 * 10 / 10000 = 262) = 262 -> low 1286, high 1548.
 *   64 MiB = 16384 pages: sqrt(65536 * 16) = 1024 kB -> 256; max(64, 16) = 64 -> 320, 384.
 *   a 512 MiB node of a 1 GiB machine: min = 1024 * 131072 / 262144 = 512;
 *     max(128, 131) = 131 -> 643, 774.
 *   1 MiB = 256 pages: sqrt(1024 * 16) = 128 kB (the floor) -> 32; max(8, 0) -> 40, 48.
 *   512 KiB: sqrt(8192) = 90 -> clamped to 128 kB -> 32; 32 * 128 / 128 -> 40, 48.
 *   64 GiB = 16777216 pages: sqrt(67108864 * 16) = 32768 kB -> 8192;
 *     max(2048, 16777) = 16777 -> 24969, 41746.
 *   6 MiB = 1536 pages: sqrt(6144 * 16) = 313 kB -> 78; max(19, 1) = 19 -> 97, 116.
 */
static void test_watermarks(void)
{
	check_wmarks(262144, 262144, 4096, 1024, 1286, 1548);
	check_wmarks(16384, 16384, 1024, 256, 320, 384);
	check_wmarks(131072, 262144, 4096, 512, 643, 774);
	check_wmarks(256, 256, 128, 32, 40, 48);
	check_wmarks(128, 128, 128, 32, 40, 48);
	check_wmarks(16777216, 16777216, 32768, 8192, 24969, 41746);
	check_wmarks(1536, 1536, 313, 78, 97, 116);
}

/* ---- kswapd and direct reclaim on a hand-made trace ---- */

/*
 * One task touching 2048 anon pages twice over a node of 1024 pages (4 MiB: min 64,
 * low 80, high 96). spread: every access at its own time, so kswapd (run before the next
 * instant's allocation) keeps free above min. burst: all accesses of a pass at one
 * instant, so kswapd cannot run and allocations fall to min: direct reclaim.
 */
static void write_anon_trace(const char *path, int burst, unsigned src, uint64_t scan_every)
{
	struct tb *b = tb_anon_process(path, ANON_BASE, 2048, 1000);
	uint64_t t = 1;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < 2048; i++) {
			if (!burst)
				t++;
			if (scan_every && i % scan_every == 0) {
				tb_ev(b, 1000 * t, MR_EV_SCAN_BEGIN, MR_PAGE_NONE, 0, 0, 0, 0);
				tb_ev(b, 1000 * t, MR_EV_SCAN_END, MR_PAGE_NONE, 0, 0, 0, 0);
			}
			tb_ev(b, 1000 * t, MR_EV_ACCESS, i, 1,
			      MR_ACC_FLAGS(pass ? MR_ACC_READ : MR_ACC_WRITE, i < 4 ? MR_SRC_FAULT : src),
			      0, 0);
		}
		t += 1000;
	}
	CHECK(tb_finish(b) == 0);
}

static void test_kswapd_direct(void)
{
	const char *spread = path_in("spread.db"), *burst = path_in("burst.db");
	struct run ro = { .pol = { "lru", "mglru", "opt" }, .npol = 3, .memory = 1024,
			  .reclaim = MR_RECLAIM_NODE };
	struct mr_replay *r;

	if (!mr_replay_policy_exists("lru") || !mr_replay_policy_exists("mglru") ||
	    !mr_replay_policy_exists("opt"))
		return;
	write_anon_trace(spread, 0, MR_SRC_SYNTH, 0);
	write_anon_trace(burst, 1, MR_SRC_SYNTH, 0);

	ro.trace = spread;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 3; i++) {
		CHECK(ctr(r, i, "pgscan_kswapd") > 0);
		CHECK(ctr(r, i, "pgsteal_kswapd") > 0);
		CHECK(ctr(r, i, "mr_kswapd_runs") > 0);
		CHECK_EQ_U64(ctr(r, i, "pgscan_direct"), 0);
		CHECK_EQ_U64(ctr(r, i, "mr_direct_reclaims"), 0);
		CHECK_EQ_U64(ctr(r, i, "mr_reclaims"), 0); /* no memcg limit */
		CHECK_EQ_U64(ctr(r, i, "mr_oom"), 0);
		CHECK_EQ_U64(ctr(r, i, "mr_node_pages"), 1024);
		CHECK_EQ_U64(ctr(r, i, "mr_wmark_min"), 64);
		CHECK_EQ_U64(ctr(r, i, "mr_wmark_low"), 80);
		CHECK_EQ_U64(ctr(r, i, "mr_wmark_high"), 96);
		/* allocations stop at the low watermark while kswapd keeps up: the one that
		 * finds free == low wakes kswapd and still succeeds above min */
		CHECK(ctr(r, i, "mr_usage_max") <= 1024 - 80 + 1);
		CHECK(ctr(r, i, "mr_usage_max") >= 1024 - 96 - 2 * MR_SWAP_CLUSTER_MAX);
		CHECK_EQ_U64(ctr(r, i, "mr_misses"),
			     ctr(r, i, "mr_resident") + ctr(r, i, "mr_evictions") + ctr(r, i, "mr_freed"));
		CHECK_EQ_U64(ctr(r, i, "mr_check_problems"), 0);
	}
	mr_replay_destroy(r);

	ro.trace = burst;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 3; i++) {
		CHECK(ctr(r, i, "pgscan_direct") > 0);
		CHECK(ctr(r, i, "mr_direct_reclaims") > 0);
		CHECK(ctr(r, i, "mr_kswapd_wakeups") > 0);
		CHECK_EQ_U64(ctr(r, i, "mr_oom"), 0);
		/* direct reclaim keeps free at min, not below */
		CHECK(ctr(r, i, "mr_usage_max") <= 1024 - 64);
		CHECK(ctr(r, i, "mr_usage_max") > 1024 - 80);
		CHECK_EQ_U64(ctr(r, i, "mr_check_problems"), 0);
	}
	mr_replay_destroy(r);

	/* no swap: nothing can be reclaimed; kswapd fails, direct reclaim OOMs */
	{
		struct mr_error err = { 0 };
		const char *pol[1] = { "lru" };
		struct mr_replay_opts o = { .trace = spread, .policies = pol, .npolicies = 1,
					    .memory_pages = 1024, .reclaim = MR_RECLAIM_NODE,
					    .swap_pages = 1, .tmpdir = mr_test_tmpdir() };

		r = NULL;
		CHECK(mr_replay_create(&o, &r, &err) == 0 && mr_replay_run(r, &err) == 0);
		if (r) {
			CHECK(ctr(r, 0, "mr_kswapd_failed") > 0);
			CHECK(ctr(r, 0, "mr_direct_reclaims") > 0);
			CHECK(ctr(r, 0, "mr_oom") > 0);
			CHECK(ctr(r, 0, "mr_usage_max") > 1024 - 64);
		}
		mr_replay_destroy(r);
	}
}

/* A per-memcg limit under node reclaim: the memcg reclaims itself before the node runs
 * short, so kswapd never wakes. */
/* The traces test_kswapd_direct() writes, for a case run alone. */
static const char *spread_trace(void)
{
	const char *spread = path_in("spread.db");

	if (access(spread, F_OK))
		write_anon_trace(spread, 0, MR_SRC_SYNTH, 0);
	return path_in("spread.db");
}

static void test_memcg_limit(void)
{
	const char *spread = spread_trace();
	struct mr_replay_limit lim = { .cgroup = 1, .pages = 256 };
	struct run ro = { .trace = spread, .pol = { "lru", "mglru" }, .npol = 2, .memory = 4096,
			  .reclaim = MR_RECLAIM_NODE, .limits = &lim, .nlimits = 1 };
	struct mr_replay *r;
	uint64_t v = 0;

	if (!mr_replay_policy_exists("mglru"))
		return;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(ctr(r, i, "mr_reclaims") > 0);
		CHECK(mr_replay_counter(r, i, "pgscan_direct", 1, &v) == 0 && v > 0);
		CHECK_EQ_U64(ctr(r, i, "pgscan_kswapd"), 0);
		CHECK_EQ_U64(ctr(r, i, "mr_kswapd_wakeups"), 0);
		CHECK(mr_replay_counter(r, i, "mr_usage_max", 1, &v) == 0 && v <= 256);
	}
	mr_replay_destroy(r);

	/* the node smaller than the limit: kswapd does the work */
	ro.memory = 200;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(ctr(r, i, "pgscan_kswapd") > 0);
		CHECK(ctr(r, i, "mr_usage_max") <= 200);
	}
	mr_replay_destroy(r);
}

/* ---- min_ttl, determinism: on a generated thrashing trace ---- */

static int gen_zipf(const char *path)
{
	const struct mr_gen *g = mr_gen_find("zipf");
	struct mr_gen_values v;
	struct mr_error err = { 0 };

	if (!g || mr_gen_defaults(g, &v, &err) || mr_gen_set(g, &v, "pages", "4096", &err) ||
	    mr_gen_set(g, &v, "events", "100000", &err))
		return -1;
	v.seed = 11;
	return mr_gen_write(g, &v, path, NULL, &err);
}

static void test_min_ttl_determinism(void)
{
	const char *trace = path_in("zipf.db");
	const char *o1 = path_in("ttl1.db"), *o2 = path_in("ttl2.db"), *o3 = path_in("ttl3.db");
	struct run ro = { .trace = trace, .pol = { "mglru:min_ttl_ms=0", "mglru:min_ttl_ms=1000" },
			  .npol = 2, .memory = 1536, .reclaim = MR_RECLAIM_NODE, .out = o1 };
	struct mr_replay *r;

	if (!mr_replay_policy_exists("mglru"))
		return;
	CHECK(gen_zipf(trace) == 0);
	r = replay(&ro);
	CHECK(r != NULL);
	mr_replay_destroy(r);
	/* the trace spans a few ms: every generation is younger than 1 s when kswapd runs */
	CHECK_EQ_U64(sql_int(o1, "SELECT value FROM model_counters WHERE run=1 AND name='mglru_min_ttl_oom'"), 0);
	CHECK(sql_int(o1, "SELECT value FROM model_counters WHERE run=2 AND name='mglru_min_ttl_oom'") > 0);
	CHECK(sql_int(o1, "SELECT value FROM vmstat WHERE run=2 AND name='pgscan_kswapd'") > 0);
	CHECK_EQ_U64(sql_int(o1, "SELECT count(*) FROM runs WHERE reclaim='node'"), 2);

	/* determinism: another thread count, byte-identical results */
	ro.threads = 2;
	ro.out = o2;
	r = replay(&ro);
	CHECK(r != NULL);
	mr_replay_destroy(r);
	CHECK(same_file(o1, o2));

	/* min_ttl acts on the kswapd path only: memcg reclaim never calls lru_gen_age_node */
	ro.reclaim = MR_RECLAIM_MEMCG;
	ro.out = o3;
	r = replay(&ro);
	CHECK(r != NULL);
	mr_replay_destroy(r);
	CHECK_EQ_U64(sql_int(o3, "SELECT value FROM model_counters WHERE run=2 AND name='mglru_min_ttl_oom'"), 0);
	CHECK_EQ_U64(sql_int(o3, "SELECT value FROM vmstat WHERE run=2 AND name='pgscan_kswapd'"), 0);
	CHECK_EQ_U64(sql_int(o3, "SELECT count(*) FROM runs WHERE reclaim='memcg'"), 2);
}

/* ---- errors ---- */

static void test_errors(void)
{
	struct mr_error err = { 0 };
	const char *pol[1] = { "lru" };
	struct mr_replay_limit lim = { .cgroup = 1, .pages = 256 };
	struct mr_replay_opts o = { .trace = spread_trace(), .policies = pol, .npolicies = 1,
				    .limits = &lim, .nlimits = 1, .reclaim = MR_RECLAIM_NODE };
	struct mr_replay *r = NULL;

	CHECK(mr_replay_create(&o, &r, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "--memory SIZE") != NULL);
	o.reclaim = 7;
	o.memory_pages = 1024;
	CHECK(mr_replay_create(&o, &r, &err) == MR_EINVAL);
}

/* ---- coverage ---- */

/*
 * 2048 anon pages faulted in three passes over 1024 pages of memory, as a recording
 * gives them: every touch a fault (MR_SRC_FAULT). write = 0: read faults only, so each
 * refault is of a page whose resident reads (had there been any) the trace could not
 * show; write = 1: write faults; hw = 1: reads, plus one hardware sample at the end (a
 * read source exists).
 */
static void write_fault_trace(const char *path, int write, int hw)
{
	struct tb *b = tb_anon_process(path, ANON_BASE, 2048, 1000);
	uint64_t t = 1;

	for (int pass = 0; pass < 3; pass++)
		for (uint32_t i = 0; i < 2048; i++)
			tb_ev(b, 1000 * ++t, MR_EV_ACCESS, i, 1,
			      MR_ACC_FLAGS(write ? MR_ACC_WRITE : MR_ACC_READ, MR_SRC_FAULT), 0, 0);
	if (hw)
		tb_ev(b, 1000 * ++t, MR_EV_ACCESS, 0, 1, MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_HWSAMPLE),
		      0, 0);
	CHECK(tb_finish(b) == 0);
}

/*
 * The coverage warning fires where the unseen part moves the results and only there:
 * read faults alone (every refault "unseen"), not write faults (written pages are never
 * unseen), not with a read source; the coverage line is there for every run.
 */
static void test_coverage(void)
{
	const char *rd = path_in("cov_read.db"), *wr = path_in("cov_write.db");
	const char *hw = path_in("cov_hw.db"), *out = path_in("cov.r.db");
	struct run ro = { .pol = { "lru", "mglru" }, .npol = 2, .memory = 1024 };
	struct mr_replay *r;
	const char *n;

	if (!mr_replay_policy_exists("mglru"))
		return;
	write_fault_trace(rd, 0, 0);
	write_fault_trace(wr, 1, 0);
	write_fault_trace(hw, 0, 1);

	ro.trace = rd;
	ro.out = out;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		n = mr_replay_coarse_note(r, i);
		CHECK(n != NULL && strstr(n, "coverage too low") && strstr(n, "--young-scan"));
		CHECK(ctr(r, i, "mr_unseen_refaults") >= 1000);
		CHECK_EQ_U64(ctr(r, i, "mr_unseen_refaults"), ctr(r, i, "mr_refaults"));
		n = mr_replay_coverage(r, i);
		CHECK(n != NULL && strstr(n, "reads of resident mapped pages not recorded"));
	}
	mr_replay_destroy(r);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM notes WHERE kind='coverage_low'"), 2);
	CHECK_EQ_U64(sql_int(out, "SELECT count(*) FROM notes WHERE kind='coverage'"), 2);

	ro.out = NULL;
	ro.trace = wr;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(ctr(r, i, "mr_refaults") >= 1000);
		CHECK_EQ_U64(ctr(r, i, "mr_unseen_refaults"), 0);
		CHECK(mr_replay_coarse_note(r, i) == NULL);
	}
	mr_replay_destroy(r);

	ro.trace = hw;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(mr_replay_coarse_note(r, i) == NULL);
		n = mr_replay_coverage(r, i);
		CHECK(n != NULL && strstr(n, "hardware samples"));
	}
	mr_replay_destroy(r);
}

/* ---- context switches ---- */

/*
 * 2048 anon pages written in three passes over 1024 pages of memory by task 1; a SWITCH
 * (switch-in) of the task before access i when i % every == 0 (every 0: none at all;
 * every < 0: one, before the first access).
 */
static void write_switch_trace(const char *path, int every)
{
	struct tb *b = tb_anon_process(path, ANON_BASE, 2048, 1000);
	uint64_t t = 1, i = 0;

	for (int pass = 0; pass < 3; pass++)
		for (uint32_t p = 0; p < 2048; p++, i++) {
			if ((every > 0 && i % (uint64_t)every == 0) || (every < 0 && i == 0))
				tb_ev(b, 1000 * ++t, MR_EV_SWITCH, MR_PAGE_NONE, 1, 0, 0, 0);
			tb_ev(b, 1000 * ++t, MR_EV_ACCESS, p, 1,
			      MR_ACC_FLAGS(MR_ACC_WRITE, MR_SRC_FAULT), 0, 0);
		}
	CHECK(tb_finish(b) == 0);
}

/*
 * MGLRU walks an mm's page tables only if one of its tasks ran since the last walk
 * (lru_gen_use_mm() at context switch; get_next_mm() clears the bit). With SWITCH events
 * in the trace the replay sets the bit at them only: one switch-in at the start gives
 * one walk, switch-ins all along give many; a trace without any keeps the old rule (every
 * event of a task counts as a run of it).
 */
static void test_switch_walks(void)
{
	const char *none = path_in("sw_none.db"), *once = path_in("sw_once.db");
	const char *often = path_in("sw_often.db"), *out = path_in("sw.r.db");
	struct run ro = { .pol = { "mglru" }, .npol = 1, .memory = 1024, .out = out };
	int64_t walks[3];
	const char *tr[3] = { none, once, often };
	struct mr_replay *r;

	if (!mr_replay_policy_exists("mglru"))
		return;
	write_switch_trace(none, 0);
	write_switch_trace(once, -1);
	write_switch_trace(often, 64);
	for (int k = 0; k < 3; k++) {
		ro.trace = tr[k];
		r = replay(&ro);
		CHECK(r != NULL);
		mr_replay_destroy(r);
		walks[k] = sql_int(out, "SELECT CAST(value AS INTEGER) FROM model_counters "
				   "WHERE run = 1 AND name = 'mglru_walk_mms'");
	}
	printf("switch: mm walks %lld without SWITCH events, %lld with one switch-in, %lld "
	       "with one every 64 accesses\n", (long long)walks[0], (long long)walks[1],
	       (long long)walks[2]);
	CHECK(walks[0] >= 2);
	CHECK(walks[1] <= 1);
	CHECK(walks[2] >= 2);
}

/* ---- "trace too coarse" ---- */

/*
 * The same 2048-page cycle over 1024 pages of memory, spread in time. coarse: every
 * access comes from a young-bit scan (a fault for the first pages), with a scan every
 * 1024 accesses; reclaim runs far more often than that. fine: the generator's accesses.
 */
static void test_coarse(void)
{
	const char *coarse = path_in("coarse.db"), *fine = path_in("fine.db");
	const char *oc = path_in("coarse.r.db"), *of = path_in("fine.r.db");
	struct run ro = { .pol = { "lru", "mglru" }, .npol = 2, .memory = 1024 };
	struct mr_replay *r;
	const char *n;

	if (!mr_replay_policy_exists("mglru"))
		return;
	write_anon_trace(coarse, 0, MR_SRC_YOUNG, 1024);
	write_anon_trace(fine, 0, MR_SRC_SYNTH, 1024);

	ro.trace = coarse;
	ro.out = oc;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		n = mr_replay_coarse_note(r, i);
		CHECK(n != NULL && strstr(n, "trace too coarse") && strstr(n, "young-bit scans"));
	}
	mr_replay_destroy(r);
	CHECK_EQ_U64(sql_int(oc, "SELECT count(*) FROM notes WHERE kind='trace_too_coarse'"), 2);

	/* node reclaim: kswapd runs count as reclaim passes too */
	ro.reclaim = MR_RECLAIM_NODE;
	ro.out = NULL;
	r = replay(&ro);
	CHECK(r != NULL);
	CHECK(r && mr_replay_coarse_note(r, 0) != NULL);
	mr_replay_destroy(r);

	ro.reclaim = MR_RECLAIM_MEMCG;
	ro.trace = fine;
	ro.out = of;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++)
		CHECK(mr_replay_coarse_note(r, i) == NULL);
	mr_replay_destroy(r);
	CHECK_EQ_U64(sql_int(of, "SELECT count(*) FROM notes WHERE kind != 'coverage'"), 0);
	CHECK_EQ_U64(sql_int(of, "SELECT count(*) FROM notes WHERE kind = 'coverage'"), 2);

	/* young-only but with memory for everything: no reclaim, nothing to warn about */
	ro.trace = coarse;
	ro.memory = 4096;
	ro.out = NULL;
	r = replay(&ro);
	CHECK(r != NULL);
	CHECK(r && mr_replay_coarse_note(r, 1) == NULL);
	mr_replay_destroy(r);
}

/* ---- synchronous writeback (zram, pmem) ---- */

/*
 * memwalk seq over 8 MiB, twice, every touch a write, in 4 MiB: every eviction writes
 * the folio to swap. With --writeback-delay sync the write ends inside pageout() and
 * shrink_folio_list() frees the folio at once: one pswpout per eviction, nothing left
 * under writeback to rotate (pgrotated 0). With writeback ending after the reclaim
 * call, written folios go back to the LRU, some are written again after a later touch
 * dirties them, and folio_end_writeback() rotates them.
 */
static void test_writeback_sync(void)
{
	const struct mr_gen *g = mr_gen_find("memwalk");
	const char *trace = path_in("memwalk.db");
	struct run ro = { .trace = trace, .pol = { "lru", "mglru" }, .npol = 2, .memory = 1024 };
	struct mr_gen_values v;
	struct mr_error err = { 0 };
	struct mr_replay *r;

	if (!g || !mr_replay_policy_exists("lru") || !mr_replay_policy_exists("mglru"))
		return;
	CHECK(mr_gen_defaults(g, &v, &err) == 0);
	CHECK(mr_gen_set(g, &v, "size", "8M", &err) == 0);
	CHECK(mr_gen_set(g, &v, "passes", "2", &err) == 0);
	CHECK(mr_gen_set(g, &v, "pattern", "0", &err) == 0);
	v.seed = 1;
	CHECK(mr_gen_write(g, &v, trace, NULL, &err) == 0);

	ro.wb = MR_WRITEBACK_SYNC;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(ctr(r, i, "mr_evictions") > 2048);
		CHECK_EQ_U64(ctr(r, i, "pswpout"), ctr(r, i, "mr_evictions"));
		CHECK_EQ_U64(ctr(r, i, "pgrotated"), 0);
		/* a loop larger than memory: every touch of the second pass refaults */
		CHECK_EQ_U64(ctr(r, i, "workingset_refault_anon"), 2048);
	}
	mr_replay_destroy(r);

	ro.wb = 0;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++)
		CHECK(ctr(r, i, "pswpout") > ctr(r, i, "mr_evictions"));
	mr_replay_destroy(r);
}

/*
 * Swap-in from a SWP_SYNCHRONOUS_IO device (the sync writeback mode: zram): do_swap_page()
 * reads into a new folio outside the swap cache and frees the entry (mm/memory.c), so a
 * page that is only read after its swap-in is written again at its next eviction. One
 * write pass over 2048 pages in 1024, then two read passes (each page refaults every
 * pass): every eviction is a pswpout in sync mode; with the swap cache kept (writeback
 * after the reclaim call, a disk) the clean re-evictions write nothing, so each page is
 * written once, at its first eviction after the write pass.
 */
static void test_swapin_sync(void)
{
	const char *trace = path_in("swapin_sync.db");
	struct tb *b = tb_anon_process(trace, ANON_BASE, 2048, 1000);
	struct run ro = { .trace = trace, .pol = { "lru", "mglru" }, .npol = 2, .memory = 1024 };
	struct mr_replay *r;
	uint64_t t = 1;

	if (!mr_replay_policy_exists("lru") || !mr_replay_policy_exists("mglru"))
		return;
	for (int pass = 0; pass < 3; pass++)
		for (uint32_t i = 0; i < 2048; i++)
			tb_ev(b, 1000 * ++t, MR_EV_ACCESS, i, 1,
			      MR_ACC_FLAGS(pass ? MR_ACC_READ : MR_ACC_WRITE, MR_SRC_FAULT), 0, 0);
	CHECK(tb_finish(b) == 0);
	ro.wb = MR_WRITEBACK_SYNC;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(ctr(r, i, "pswpin") >= 2 * 2048 - 64);
		CHECK_EQ_U64(ctr(r, i, "pswpout"), ctr(r, i, "mr_evict_anon"));
		/* a synchronous write leaves the slot holding the folio, as its end does */
		CHECK_EQ_U64(ctr(r, i, "mr_swap_unwritten"), 0);
	}
	mr_replay_destroy(r);
	ro.wb = 0;
	r = replay(&ro);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		CHECK(ctr(r, i, "pswpin") >= 2 * 2048 - 64);
		CHECK_EQ_U64(ctr(r, i, "pswpout"), 2048); /* each page written once */
		CHECK(ctr(r, i, "mr_evict_anon") > 4096);
	}
	mr_replay_destroy(r);
}

/*
 * The flusher without reclaim (docs/replay.md, "Dirty file folios"): in a memcg far from
 * its limit, writes of 8 of a file's pages leave them dirty until 30 s later, when the
 * periodic writeback takes them (and not before); 64 written at once in a memcg of 256
 * pages go over the background threshold (10 % of the file pages plus the headroom), and
 * background writeback brings them under it at once.
 */
static struct mr_replay *flusher_trace(const char *name, uint32_t nwrite, uint64_t t_end,
				       uint64_t memory)
{
	const char *trace = path_in(name);
	struct tb *b = tb_create(trace, 1);
	struct run ro = { .trace = trace, .pol = { "lru", "mglru" }, .npol = 2, .memory = memory };

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_file(b, 1, 128);
	for (uint32_t i = 0; i < 128; i++)
		tb_page_file(b, i, 1, i, 1, 0);
	tb_ev(b, 1000, MR_EV_FD_ACCESS, 0, 1, MR_ACC_WRITE, nwrite, 0);
	tb_ev(b, t_end, MR_EV_FD_ACCESS, 100, 1, MR_ACC_READ, 1, 0);
	if (tb_finish(b))
		return NULL;
	return replay(&ro);
}

static void test_flusher(void)
{
	struct mr_replay *r;

	if (!mr_replay_policy_exists("lru") || !mr_replay_policy_exists("mglru"))
		return;
	r = flusher_trace("flush-29s.db", 8, 29000000000ull, 4096);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) /* dirtied at 1 us: not expired at 29 s */
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_writebacks"), 0);
	mr_replay_destroy(r);
	r = flusher_trace("flush-36s.db", 8, 36000000000ull, 4096);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) { /* the 35 s pass writes them */
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_writebacks"), 8);
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_periodic"), 8);
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_background"), 0);
		CHECK_EQ_U64(ctr(r, i, "mr_reclaims"), 0);
	}
	mr_replay_destroy(r);
	r = flusher_trace("flush-bg.db", 64, 2000, 256);
	CHECK(r != NULL);
	for (size_t i = 0; r && i < 2; i++) {
		/* about 256 pages dirtyable (file pages + headroom) all along: from the 26th
		 * dirty page on, each one written takes another out */
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_background"), 64 - 25);
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_writebacks"), 64 - 25);
		CHECK_EQ_U64(ctr(r, i, "mr_flusher_wakeups"), 0);
		CHECK_EQ_U64(ctr(r, i, "mr_reclaims"), 0);
	}
	mr_replay_destroy(r);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_watermarks),
	MR_CASE(test_kswapd_direct),
	MR_CASE(test_memcg_limit),
	MR_CASE(test_min_ttl_determinism),
	MR_CASE(test_errors),
	MR_CASE(test_coarse),
	MR_CASE(test_coverage),
	MR_CASE(test_switch_walks),
	MR_CASE(test_writeback_sync),
	MR_CASE(test_swapin_sync),
	MR_CASE(test_flusher),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_reclaim", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
