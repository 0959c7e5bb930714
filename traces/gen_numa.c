// SPDX-License-Identifier: GPL-2.0
/*
 * gen_numa.c - seed 001's cross-node aging workload.
 *
 * `workers` processes (numactl --membind=0), each with `size_per_worker` of anonymous
 * memory, all on node 0 of a 2-node machine, each on CPU (worker mod cpus). Round 0
 * write-faults every page; later rounds read the first hot_ratio of each region, so
 * the rest goes cold. Rounds start every `round`; workers run in parallel (their
 * touches interleave in batches). A MARKER "age nodes=0,1 <n>" every age_interval
 * tells a replay script to age both nodes: node 1 owns none of these pages, which is
 * the walk the seed's PUD-level Bloom filter skips.
 */
#include <stdlib.h>

#include "gen_priv.h"

enum { P_WORKERS, P_SIZE, P_CPUS, P_ROUNDS, P_HOT, P_ROUND, P_AGE, P_MAX, P_NR };

static const struct mr_gen_param numa_params[P_NR] = {
	[P_WORKERS] = { "workers", MR_GP_COUNT, 1, 1024, "16", "worker processes" },
	[P_SIZE] = { "size_per_worker", MR_GP_PAGES, 16, 4194304, "128M",
		     "anonymous memory per worker" },
	[P_CPUS] = { "cpus", MR_GP_COUNT, 1, 4096, "4", "CPUs the workers are spread over" },
	[P_ROUNDS] = { "rounds", MR_GP_COUNT, 1, 100000, "10", "touch rounds (round 0 faults)" },
	[P_HOT] = { "hot_ratio", MR_GP_DOUBLE, 0, 1, "0.25",
		    "share of each region touched again after round 0" },
	[P_ROUND] = { "round", MR_GP_DURATION, 1e6, 3600e9, "100ms", "time between rounds" },
	[P_AGE] = { "age_interval", MR_GP_DURATION, 0, 3600e9, "10ms",
		       "aging period: one marker each (0 = none)" },
	[P_MAX] = { "memory_max", MR_GP_PAGES, 0, 268435456, "0", "cgroup limit (0 = none)" },
};

#define NUMA_BATCH 64      /* pages a worker touches before the next one runs */
#define NUMA_MAX_PAGES (64ull << 20)
#define NUMA_MAX_MARKERS 10000000ull /* 10 ms over 27 hours */

static int numa_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t nw = v->v[P_WORKERS].u, size = v->v[P_SIZE].u, cpus = v->v[P_CPUS].u;
	uint64_t hot = (uint64_t)(v->v[P_HOT].d * (double)size);
	uint64_t round_ns = v->v[P_ROUND].u;
	uint64_t age_ns = v->v[P_AGE].u, end;
	struct gen_vma *vm = NULL;
	uint32_t *task = NULL, cg;
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "numa", v, w, err, 2);
	if (rc)
		return rc;
	if (nw * size > NUMA_MAX_PAGES)
		return mr_error_set(err, MR_ERANGE,
				    "numa: workers x size_per_worker = %llu pages is more than %llu "
				    "(256 GiB): use fewer or smaller workers",
				    (unsigned long long)(nw * size), NUMA_MAX_PAGES);
	vm = calloc(nw, sizeof(*vm));
	task = calloc(nw, sizeof(*task));
	if (!vm || !task) {
		rc = gen_nomem(&c, "workers");
		goto out;
	}
	rc = gen_add_cgroup(&c, "/numa", v->v[P_MAX].u, &cg);
	if (rc)
		goto out;
	for (uint64_t i = 0; i < nw; i++) {
		uint32_t mm;

		rc = gen_add_mm(&c, (int32_t)(2000 + i), "worker", &mm);
		if (!rc)
			rc = gen_add_task(&c, (int32_t)(2000 + i), (int32_t)(2000 + i), mm, cg,
					  "worker", 0, 0, &task[i]);
		if (!rc)
			rc = gen_vma_init(&c, &vm[i], mm, 0x7f0000000000ull, size,
					  MR_VMA_READ | MR_VMA_WRITE, NULL, 0, cg, 0);
		if (!rc)
			rc = gen_vma_row(&c, &vm[i]);
		if (!rc)
			rc = gen_vma_map(&c, &vm[i], task[i], (uint16_t)(i % cpus));
		if (rc)
			goto out;
	}
	end = v->v[P_ROUNDS].u * round_ns;
	/* each parameter in its range, their quotient not: 1ns over 1000 s is 10^12 markers */
	if (age_ns && end / age_ns > NUMA_MAX_MARKERS) {
		rc = mr_error_set(err, MR_ERANGE,
				  "numa: age_interval %llu ns over rounds x round = %llu ns is %llu aging "
				  "markers, more than %llu: give a longer age_interval",
				  (unsigned long long)age_ns, (unsigned long long)end,
				  (unsigned long long)(end / age_ns), (unsigned long long)NUMA_MAX_MARKERS);
		goto out;
	}
	if (age_ns)
		gen_markers_every(&c, age_ns, age_ns, end / age_ns, "age nodes=0,1");

	for (uint64_t r = 0; r < v->v[P_ROUNDS].u; r++) {
		uint64_t npg = r ? hot : size;

		rc = gen_markers_until(&c, r * round_ns);
		if (rc)
			goto out;
		for (uint64_t b = 0; b < npg; b += NUMA_BATCH) {
			for (uint64_t i = 0; i < nw; i++) {
				for (uint64_t pg = b; pg < b + NUMA_BATCH && pg < npg; pg++) {
					gen_tick(&c, r ? 16 : 128);
					rc = gen_vma_touch(&c, &vm[i], pg,
							   r ? MR_ACC_READ : MR_ACC_WRITE, task[i],
							   (uint16_t)(i % cpus));
					if (rc)
						goto out;
				}
			}
		}
	}
	rc = gen_markers_until(&c, end);
	if (!rc)
		rc = gen_marker(&c, "end");
out:
	for (uint64_t i = 0; vm && i < nw; i++)
		gen_vma_release(&vm[i]);
	free(vm);
	free(task);
	return rc;
}

const struct mr_gen mr_gen_numa = {
	.name = "numa",
	.help = "workers' anon memory all on node 0 of 2, aged on both nodes",
	.models = "seed 001: PUD-level Bloom filter, cross-node empty walks",
	.params = numa_params,
	.nparams = P_NR,
	.run = numa_run,
};
