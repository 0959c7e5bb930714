// SPDX-License-Identifier: GPL-2.0
/*
 * gen_seq.c - one task reads a large file sequentially with read(), `passes` times.
 *
 * The first pass misses: a sync readahead window at the start, then async windows
 * started at each PG_readahead mark, growing to `ra` (mm/readahead.c sizes), with a
 * PC_INSERT per folio (folios up to `folio_order`) and an FD_ACCESS per read() call.
 * The host had room for the file, so later passes hit the cache (FD_ACCESS only); a
 * replay with less memory re-derives what its policy would have had to read again.
 */
#include "gen_priv.h"

enum { P_SIZE, P_PASSES, P_READ, P_RA, P_ORDER, P_NR };

static const struct mr_gen_param seq_params[P_NR] = {
	[P_SIZE] = { "size", MR_GP_PAGES, 1, 16777216, "256M", "file size" },
	[P_PASSES] = { "passes", MR_GP_COUNT, 1, 1000, "2", "times the file is read" },
	[P_READ] = { "read_size", MR_GP_PAGES, 1, 4096, "128K", "bytes per read() call" },
	[P_RA] = { "ra", MR_GP_PAGES, 0, 16384, "128K",
		   "readahead limit (read_ahead_kb); 0 = no readahead" },
	[P_ORDER] = { "folio_order", MR_GP_COUNT, 0, 9, "0",
		      "largest page-cache folio order (0 = 4 KiB folios only)" },
};

static int seq_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t size = v->v[P_SIZE].u, rd = v->v[P_READ].u;
	struct gen_file f = { 0 };
	uint32_t cg, mm, task;
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "seq", v, w, err, 1);
	if (rc)
		return rc;
	rc = gen_add_cgroup(&c, "/seq", 0, &cg);
	if (!rc)
		rc = gen_add_mm(&c, 1100, "cat", &mm);
	if (!rc)
		rc = gen_add_task(&c, 1100, 1100, mm, cg, "cat", 0, 0, &task);
	if (!rc)
		rc = gen_file_open(&c, &f, "/data/seq/big.dat", size, (uint32_t)v->v[P_RA].u, cg);
	if (rc)
		goto out;
	f.max_order = (uint8_t)v->v[P_ORDER].u;

	for (uint64_t pass = 0; pass < v->v[P_PASSES].u; pass++) {
		/* reopen: a fresh file_ra_state */
		f.ra_size = 0;
		f.ra_next = 0;
		for (uint64_t off = 0; off < size; off += rd) {
			uint64_t before = c.events;

			rc = gen_file_read(&c, &f, off, rd, task, 0);
			if (rc)
				goto out;
			/* a copy per page; a miss costs the I/O of what it inserted */
			gen_tick(&c, 256 * rd + 2048 * (c.events - before - 1));
		}
		gen_tick(&c, 1000000); /* close, reopen */
	}
out:
	gen_file_release(&f);
	return rc;
}

const struct mr_gen mr_gen_seq = {
	.name = "seq",
	.help = "sequential read() of one file with readahead, several passes",
	.models = "streaming file I/O (use-once page cache)",
	.params = seq_params,
	.nparams = P_NR,
	.run = seq_run,
};
