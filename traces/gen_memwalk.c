// SPDX-License-Identifier: GPL-2.0
/*
 * gen_memwalk.c - the access sequence of kernel-lab's `memwalk anon` workload (the walker
 * the validation harness runs in its guest, docs/validation.md), page for page, so that
 * a replay can be set
 * beside the same workload run on a real MGLRU kernel in a memory cgroup
 * (scripts/validate-kernel.sh, docs/validation.md).
 *
 * memwalk anon SIZE_MIB PASSES PATTERN SEED maps SIZE_MIB of anonymous memory (THP off)
 * and, every pass, writes one word to each page in the pattern's order: seq, rev,
 * rand (one permutation from SEED, the same every pass) or randpass (a new permutation
 * from SEED + pass every pass), optionally after touching the first hot_pct % of the
 * pages hot_k times. Every touch is a write, so every page is dirty and goes to swap.
 * The permutation is memwalk's own: a Fisher-Yates shuffle driven by xorshift64*
 * (seed 0 stands for the golden-ratio constant), so the order matches exactly.
 *
 * What the trace cannot hold: the workload's own small mappings (stack, its index
 * array of 8 bytes per page, the binary) and kernel memory that memory.max also
 * charges (page tables); the time of a touch is 1 us apart, not the guest's.
 */
#include <stdlib.h>

#include "gen_priv.h"

enum { P_SIZE, P_PASSES, P_PATTERN, P_HOT_PCT, P_HOT_K, P_NR };

enum { PAT_SEQ, PAT_REV, PAT_RAND, PAT_RANDPASS, PAT_NR };

static const struct mr_gen_param memwalk_params[P_NR] = {
	[P_SIZE] = { "size", MR_GP_PAGES, 256, 16777216, "192M", "anonymous region (SIZE_MIB)" },
	[P_PASSES] = { "passes", MR_GP_COUNT, 1, 1000, "3", "passes over the region" },
	[P_PATTERN] = { "pattern", MR_GP_COUNT, 0, PAT_NR - 1, "2",
			"order: 0 seq, 1 rev, 2 rand (fixed permutation from the seed), "
			"3 randpass (new permutation from seed + pass every pass)" },
	[P_HOT_PCT] = { "hot_pct", MR_GP_COUNT, 0, 100, "0",
			"hot:P:K patterns: first P % of the pages touched K times before each pass" },
	[P_HOT_K] = { "hot_k", MR_GP_COUNT, 0, 1000, "0", "hot:P:K patterns: K" },
};

/* memwalk.c: xorshift64* */
static uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* memwalk.c: perm() - the identity shuffled from the top down. */
static void perm(uint32_t *idx, uint64_t n, uint64_t seed)
{
	uint64_t s = seed ? seed : 0x9E3779B97F4A7C15ULL;

	for (uint64_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = xs(&s) % (i + 1);
		uint32_t t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
	}
}

static int memwalk_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t n = v->v[P_SIZE].u, passes = v->v[P_PASSES].u, pat = v->v[P_PATTERN].u;
	uint64_t hot_n = n * v->v[P_HOT_PCT].u / 100, hot_k = v->v[P_HOT_PCT].u ? v->v[P_HOT_K].u : 0;
	struct gen_vma a = { 0 };
	uint32_t task, *idx;
	struct gen_ctx c;
	int rc;

	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return mr_error_set(err, MR_ENOMEM, "gen memwalk: out of memory for %llu pages",
				    (unsigned long long)n);
	rc = gen_begin(&c, "memwalk", v, w, err, 1);
	if (rc) {
		free(idx);
		return rc;
	}
	rc = gen_single_anon(&c, "/memwalk", 0, 1300, "memwalk", 0x7f0000000000ull, n, &a,
			     &task);
	if (rc)
		goto out;
	if (pat == PAT_RAND)
		perm(idx, n, v->seed);
	else
		for (uint64_t i = 0; i < n; i++)
			idx[i] = (uint32_t)(pat == PAT_REV ? n - 1 - i : i);
	for (uint64_t p = 0; p < passes && !rc; p++) {
		if (pat == PAT_RANDPASS)
			perm(idx, n, v->seed + p);
		for (uint64_t k = 0; k < hot_k && !rc; k++)
			for (uint64_t i = 0; i < hot_n && !rc; i++) {
				gen_tick(&c, 1000);
				rc = gen_vma_touch(&c, &a, i, MR_ACC_WRITE, task, 0);
			}
		for (uint64_t i = 0; i < n && !rc; i++) {
			gen_tick(&c, 1000);
			rc = gen_vma_touch(&c, &a, idx[i], MR_ACC_WRITE, task, 0);
		}
	}
out:
	gen_vma_release(&a);
	free(idx);
	return rc;
}

const struct mr_gen mr_gen_memwalk = {
	.name = "memwalk",
	.help = "kernel-lab's memwalk anon workload, touch for touch (for comparison with a "
		"real MGLRU kernel)",
	.models = "scripts/validate-kernel.sh",
	.params = memwalk_params,
	.nparams = P_NR,
	.run = memwalk_run,
};
