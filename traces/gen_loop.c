// SPDX-License-Identifier: GPL-2.0
/*
 * gen_loop.c - one task sweeps an anonymous region in address order, `passes` times.
 *
 * Replayed with less memory than `size`, this is the classic LRU worst case: every
 * page is evicted just before its next use. The first pass write-faults every page,
 * later passes read.
 */
#include "gen_priv.h"

enum { P_SIZE, P_PASSES, P_NR };

static const struct mr_gen_param loop_params[P_NR] = {
	[P_SIZE] = { "size", MR_GP_PAGES, 16, 16777216, "256M", "anonymous region size" },
	[P_PASSES] = { "passes", MR_GP_COUNT, 1, 10000, "4", "sweeps over the region" },
};

static int loop_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t size = v->v[P_SIZE].u;
	struct gen_vma a = { 0 };
	uint32_t task;
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "loop", v, w, err, 1);
	if (rc)
		return rc;
	rc = gen_single_anon(&c, "/loop", 0, 1200, "loop", 0x7f0000000000ull, size, &a,
			     &task);
	if (rc)
		goto out;
	for (uint64_t pass = 0; pass < v->v[P_PASSES].u; pass++) {
		for (uint64_t pg = 0; pg < size; pg++) {
			gen_tick(&c, pass ? 128 : 1024);
			rc = gen_vma_touch(&c, &a, pg, pass ? MR_ACC_READ : MR_ACC_WRITE, task, 0);
			if (rc)
				goto out;
		}
	}
out:
	gen_vma_release(&a);
	return rc;
}

const struct mr_gen mr_gen_loop = {
	.name = "loop",
	.help = "an anonymous region swept in a loop (LRU worst case when it does not fit)",
	.models = "cyclic access larger than memory",
	.params = loop_params,
	.nparams = P_NR,
	.run = loop_run,
};
