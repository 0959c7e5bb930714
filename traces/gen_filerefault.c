// SPDX-License-Identifier: GPL-2.0
/*
 * gen_filerefault.c - seed 002's refault-heavy random read workload.
 *
 * fio randread, psync, bs=4k, fadvise_hint=random, buffered: `jobs` processes, one per
 * CPU, in one memory cgroup, reading 4 KiB pages of one shared file of `size` at
 * random (uniform, or Zipf(skew) over scattered pages). FADV_RANDOM disables
 * readahead, so the first read of a page inserts just that page (PC_INSERT) before its
 * FD_ACCESS. Replayed under memory_max smaller than the file, nearly every read
 * refaults - the lrugen refault counters the seed moves to their own cache lines.
 */
#include <stdlib.h>

#include "gen_priv.h"

enum { P_JOBS, P_SIZE, P_EVENTS, P_MAX, P_SKEW, P_NR };

static const struct mr_gen_param filerefault_params[P_NR] = {
	[P_JOBS] = { "jobs", MR_GP_COUNT, 1, 1024, "24", "fio jobs (processes), one per CPU" },
	[P_SIZE] = { "size", MR_GP_PAGES, 16, 16777216, "1G", "shared file size" },
	[P_EVENTS] = { "events", MR_GP_COUNT, 1, 1e10, "2M", "4 KiB reads in total" },
	[P_MAX] = { "memory_max", MR_GP_PAGES, 0, 268435456, "512M",
		    "cgroup memory.max (0 = none)" },
	[P_SKEW] = { "skew", MR_GP_DOUBLE, 0, 3, "0", "Zipf exponent of the offsets (0 = uniform)" },
};

static int filerefault_run(const struct mr_gen_values *v, struct mr_writer *w,
			   struct mr_error *err)
{
	uint64_t jobs = v->v[P_JOBS].u, size = v->v[P_SIZE].u;
	struct gen_file f = { 0 };
	uint32_t *task = NULL, *perm = NULL, cg;
	struct gen_zipf z;
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "filerefault", v, w, err, 1);
	if (rc)
		return rc;
	task = calloc(jobs, sizeof(*task));
	perm = malloc(size * sizeof(*perm));
	if (!task || !perm) {
		rc = gen_nomem(&c, "jobs");
		goto out;
	}
	rc = gen_zipf_init(&z, size, v->v[P_SKEW].d);
	if (rc) {
		rc = mr_error_set(err, rc, "filerefault: bad skew %g", v->v[P_SKEW].d);
		goto out;
	}
	gen_shuffle_u32(perm, (uint32_t)size, &c.rng);
	rc = gen_add_cgroup(&c, "/fio", v->v[P_MAX].u, &cg);
	if (!rc)
		rc = gen_file_open(&c, &f, "/mnt/brd/randread.0.0", size, 0, cg);
	for (uint64_t j = 0; !rc && j < jobs; j++) {
		uint32_t mm;

		rc = gen_add_mm(&c, (int32_t)(3000 + j), "fio", &mm);
		if (!rc)
			rc = gen_add_task(&c, (int32_t)(3000 + j), (int32_t)(3000 + j), mm, cg,
					  "fio", 0, 0, &task[j]);
	}
	if (rc)
		goto out;
	for (uint64_t e = 0, nev = v->v[P_EVENTS].u, j = 0; e < nev; e++) {
		uint64_t pg = perm[gen_zipf_next(&z, &c.rng)];

		gen_tick(&c, 360); /* ~2.7M IOPS over all jobs */
		rc = gen_file_read(&c, &f, pg, 1, task[j], (uint16_t)j);
		if (rc)
			goto out;
		if (++j == jobs)
			j = 0;
	}
out:
	gen_file_release(&f);
	free(task);
	free(perm);
	return rc;
}

const struct mr_gen mr_gen_filerefault = {
	.name = "filerefault",
	.help = "fio-style random 4 KiB reads by many jobs over one shared file",
	.models = "seed 002: lrugen refault counters off the read-mostly cache lines",
	.params = filerefault_params,
	.nparams = P_NR,
	.run = filerefault_run,
};
