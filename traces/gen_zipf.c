// SPDX-License-Identifier: GPL-2.0
/*
 * gen_zipf.c - Zipf-distributed accesses over a mix of anon and file pages.
 *
 * One task maps an anonymous region and a few files. Each access picks a page by
 * Zipf(skew) rank; ranks are scattered over the pages by a seeded permutation so hot
 * pages are spread over anon and file, address and file offset. Anon accesses write
 * with probability write_ratio; file accesses go through read() with probability
 * fd_ratio (FD_ACCESS, as under FADV_RANDOM: no readahead), else through the mapping.
 * First touches fault (anon: write fault; file: major if not cached, with the
 * PC_INSERT in the fault). This is the store and replay benchmark trace: time deltas
 * are a constant step with rare jitter so the encoded stream stays a few bytes/event.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen_priv.h"

enum { P_PAGES, P_EVENTS, P_SKEW, P_ANON, P_FD, P_WRITE, P_FILES, P_NR };

static const struct mr_gen_param zipf_params[P_NR] = {
	[P_PAGES] = { "pages", MR_GP_PAGES, 16, 16777216, "1G",
		      "distinct pages (size or page count)" },
	[P_EVENTS] = { "events", MR_GP_COUNT, 1, 1e10, "5M", "accesses" },
	[P_SKEW] = { "skew", MR_GP_DOUBLE, 0, 3, "1.0", "Zipf exponent (0 = uniform)" },
	[P_ANON] = { "anon_ratio", MR_GP_DOUBLE, 0, 1, "0.5", "share of pages that are anon" },
	[P_FD] = { "fd_ratio", MR_GP_DOUBLE, 0, 1, "0.25",
		   "share of file accesses made by read() instead of the mapping" },
	[P_WRITE] = { "write_ratio", MR_GP_DOUBLE, 0, 1, "0.2",
		      "share of anon accesses that write" },
	[P_FILES] = { "files", MR_GP_COUNT, 1, 1024, "4", "files the file pages belong to" },
};

#define ZIPF_ANON_BASE 0x7f0000000000ull
#define ZIPF_FILE_BASE 0x7e0000000000ull
#define ZIPF_STEP_NS 48 /* zigzag(48 + jitter) < 128: one varint byte */
#define ZIPF_FAULT_NS 640

static int zipf_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t n = v->v[P_PAGES].u, na = (uint64_t)llround((double)n * v->v[P_ANON].d);
	uint64_t nf = n - na, nfiles = nf ? v->v[P_FILES].u : 0, base = 0, rem = 0;
	uint64_t fdthr = gen_prob(v->v[P_FD].d), wthr = gen_prob(v->v[P_WRITE].d);
	struct gen_file *files = NULL;
	struct gen_vma anon = { 0 }, *fvma = NULL;
	uint32_t *perm = NULL, cg, mm, task;
	struct gen_zipf z;
	struct gen_ctx c;
	char path[64];
	int rc;

	rc = gen_begin(&c, "zipf", v, w, err, 1);
	if (rc)
		return rc;
	if (nfiles > nf)
		nfiles = nf;
	if (nfiles) {
		base = nf / nfiles;
		rem = nf % nfiles;
	}
	perm = malloc(n * sizeof(*perm));
	files = calloc(nfiles ? nfiles : 1, sizeof(*files));
	fvma = calloc(nfiles ? nfiles : 1, sizeof(*fvma));
	if (!perm || !files || !fvma) {
		rc = gen_nomem(&c, "the page tables");
		goto out;
	}
	rc = gen_zipf_init(&z, n, v->v[P_SKEW].d);
	if (rc) {
		rc = mr_error_set(err, rc, "zipf: bad skew %g", v->v[P_SKEW].d);
		goto out;
	}
	rc = gen_add_cgroup(&c, "/zipf", 0, &cg);
	if (!rc)
		rc = gen_add_mm(&c, 1000, "zipf", &mm);
	if (!rc)
		rc = gen_add_task(&c, 1000, 1000, mm, cg, "zipf", 0, 0, &task);
	if (rc)
		goto out;

	if (na) {
		rc = gen_vma_init(&c, &anon, mm, ZIPF_ANON_BASE, na, MR_VMA_READ | MR_VMA_WRITE,
				  NULL, 0, cg, 0);
		if (!rc)
			rc = gen_vma_row(&c, &anon);
		if (!rc)
			rc = gen_vma_map(&c, &anon, task, 0);
		if (rc)
			goto out;
	}
	for (uint64_t j = 0, addr = ZIPF_FILE_BASE; j < nfiles; j++) {
		uint64_t fp = base + (j < rem);

		snprintf(path, sizeof(path), "/data/zipf/file%03llu.dat", (unsigned long long)j);
		rc = gen_file_open(&c, &files[j], path, fp, 0, cg);
		if (!rc)
			rc = gen_vma_init(&c, &fvma[j], mm, addr, fp, MR_VMA_READ, &files[j], 0, cg,
					  0);
		if (!rc)
			rc = gen_vma_row(&c, &fvma[j]);
		if (!rc)
			rc = gen_vma_map(&c, &fvma[j], task, 0);
		if (rc)
			goto out;
		addr += (fp << GEN_PAGE_SHIFT) + (1ull << 30);
	}
	gen_shuffle_u32(perm, (uint32_t)n, &c.rng);
	gen_tick(&c, ZIPF_STEP_NS);

	for (uint64_t e = 0, nev = v->v[P_EVENTS].u; e < nev; e++) {
		uint64_t before = c.events, l = perm[gen_zipf_next(&z, &c.rng)];

		if (l < na) {
			uint8_t rwx = gen_rng_chance(&c.rng, wthr) ? MR_ACC_WRITE : MR_ACC_READ;

			rc = gen_vma_touch(&c, &anon, l, rwx, task, 0);
		} else {
			uint64_t off = l - na, j, idx;

			if (off < rem * (base + 1)) {
				j = off / (base + 1);
				idx = off % (base + 1);
			} else {
				j = rem + (off - rem * (base + 1)) / base;
				idx = (off - rem * (base + 1)) % base;
			}
			if (gen_rng_chance(&c.rng, fdthr))
				rc = gen_file_read(&c, &files[j], idx, 1, task, 0);
			else
				rc = gen_vma_touch(&c, &fvma[j], idx, MR_ACC_READ, task, 0);
		}
		if (rc)
			goto out;
		gen_tick(&c, c.events - before > 1 ? ZIPF_FAULT_NS : ZIPF_STEP_NS);
	}
out:
	gen_vma_release(&anon);
	for (uint64_t j = 0; j < nfiles && fvma && files; j++) {
		gen_vma_release(&fvma[j]);
		gen_file_release(&files[j]);
	}
	free(fvma);
	free(files);
	free(perm);
	return rc;
}

const struct mr_gen mr_gen_zipf = {
	.name = "zipf",
	.help = "Zipf(skew) accesses over anon and file pages, some file reads by read()",
	.models = "store and replay benchmarks; skewed working sets",
	.params = zipf_params,
	.nparams = P_NR,
	.run = zipf_run,
};
