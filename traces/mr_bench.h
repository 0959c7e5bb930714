/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_bench.h - `memreplay bench store`: encode and decode generator traces and measure
 * bytes/event, write and decode rates and writer memory. Figures, not assertions.
 */
#ifndef MR_BENCH_H
#define MR_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"

struct mr_bench_store_opts {
	const char *dir;  /* where the temporary stores go */
	uint64_t events;  /* accesses for the zipf case (default 50M) */
	uint64_t pages;   /* distinct pages for the zipf case (default 1M) */
	int keep;         /* keep the stores */
};

struct mr_bench_store_case {
	char name[48];
	uint64_t events, chunks;
	double write_s;         /* generate + encode + commit */
	double bytes_per_event; /* chunk blob bytes */
	double payload_per_event; /* column-encoded bytes before LZ4 */
	double decode_mevps;    /* pure mr_chunk_decode, one core, M events/s */
	double read_mevps;      /* mr_reader from the SQLite file, M events/s */
	uint64_t writer_buffer_bytes; /* writer's own buffers */
	uint64_t write_peak_rss; /* peak RSS of the process that generated + wrote */
	uint64_t file_bytes;
};

/* Run the cases; fills up to cap entries of out and sets *n. */
int mr_bench_store(const struct mr_bench_store_opts *o, struct mr_bench_store_case *out,
		   size_t cap, size_t *n, struct mr_error *err);

#endif
