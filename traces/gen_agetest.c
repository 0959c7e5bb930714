// SPDX-License-Identifier: GPL-2.0
/*
 * gen_agetest.c - seed 000's aging microbenchmark ("agetest").
 *
 * The seed mmaps 512 MiB anonymous memory in a MemoryMax=1024M scope, memsets it (one
 * write fault per page), then ages the memcg's lruvec 100 times through
 * /sys/kernel/debug/lru_gen ("+ memcg 0 gen") while the memory sits idle. Here: one
 * FAULT + ACCESS per page, then `markers` MARKER events ("age <n>") spread evenly over
 * `idle`, where a replay script runs its aging passes and times inc_min_seq(), and
 * a final "end" marker at the end of the idle time.
 */
#include "gen_priv.h"

enum { P_SIZE, P_IDLE, P_MARKERS, P_MAX, P_NR };

static const struct mr_gen_param agetest_params[P_NR] = {
	[P_SIZE] = { "size", MR_GP_PAGES, 16, 16777216, "512M", "anonymous region touched once" },
	[P_IDLE] = { "idle", MR_GP_DURATION, 0, 3600e9, "1s", "idle time after the touch" },
	[P_MARKERS] = { "markers", MR_GP_COUNT, 0, 100000, "100",
			"aging markers spread over the idle time" },
	[P_MAX] = { "memory_max", MR_GP_PAGES, 0, 268435456, "1G",
		    "the scope's MemoryMax (cgroup row; 0 = none)" },
};

static int agetest_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t size = v->v[P_SIZE].u, idle = v->v[P_IDLE].u;
	uint64_t nmk = v->v[P_MARKERS].u, every, t0;
	struct gen_vma a = { 0 };
	uint32_t task;
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "agetest", v, w, err, 1);
	if (rc)
		return rc;
	rc = gen_single_anon(&c, "/system.slice/agetest.scope", v->v[P_MAX].u, 1300, "agetest",
			     0x72c1b5a00000ull, size, &a, &task);
	if (rc)
		goto out;
	for (uint64_t pg = 0; pg < size; pg++) {
		gen_tick(&c, 1024); /* memset: a write fault and 4 KiB of stores */
		rc = gen_vma_touch(&c, &a, pg, MR_ACC_WRITE, task, 0);
		if (rc)
			goto out;
	}
	t0 = c.now;
	every = idle / (nmk + 1);
	gen_markers_every(&c, t0 + every, every, nmk, "age");
	rc = gen_markers_until(&c, t0 + idle);
	if (!rc)
		rc = gen_marker(&c, "end"); /* the idle time is part of the trace */
out:
	gen_vma_release(&a);
	return rc;
}

const struct mr_gen mr_gen_agetest = {
	.name = "agetest",
	.help = "touch a large anon region once, then idle with aging markers",
	.models = "seed 000: inc_min_seq() speedup, agetest microbenchmark",
	.params = agetest_params,
	.nparams = P_NR,
	.run = agetest_run,
};
