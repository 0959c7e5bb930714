// SPDX-License-Identifier: GPL-2.0
/*
 * bench_store.c - `memreplay bench store`: generator traces written through the real
 * writer, then read back twice: the pure chunk codec over blobs held in memory (the
 * decode rate the format allows), and the reader over the SQLite file (the rate a replay
 * sees).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_int.h"
#include "mr_codec.h"
#include "mr_store.h"

/* Decode every chunk blob of the store from memory, best of 3 rounds. */
static int bench_decode(struct mr_store *s, struct mr_bench_store_case *c, struct mr_error *err)
{
	sqlite3_stmt *st;
	uint8_t **blobs = NULL;
	size_t *lens = NULL, nb = 0, capb = 0;
	size_t scap = mr_chunk_scratch_size(MR_CHUNK_MAX_EVENTS);
	void *scratch = malloc(scap);
	struct mr_event *ev = malloc(MR_CHUNK_MAX_EVENTS * sizeof(*ev));
	double best = 0;
	uint64_t total = 0;
	int rc = 0;

	if (!scratch || !ev) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(mr_store_db(s), "SELECT data FROM chunks ORDER BY id", -1, &st, NULL)) {
		rc = mr_error_set(err, MR_EIO, "%s", sqlite3_errmsg(mr_store_db(s)));
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);

		if (nb == capb) {
			capb = capb ? capb * 2 : 1024;
			blobs = realloc(blobs, capb * sizeof(*blobs));
			lens = realloc(lens, capb * sizeof(*lens));
			if (!blobs || !lens) {
				sqlite3_finalize(st);
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				goto out;
			}
		}
		blobs[nb] = malloc(len);
		if (!blobs[nb]) {
			sqlite3_finalize(st);
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(blobs[nb], sqlite3_column_blob(st, 0), len);
		lens[nb++] = len;
	}
	sqlite3_finalize(st);
	for (int round = 0; round < 3; round++) {
		double t0 = mr_clock_s(), dt;

		total = 0;
		for (size_t i = 0; i < nb; i++) {
			size_t n;

			rc = mr_chunk_decode(blobs[i], lens[i], scratch, scap, ev, MR_CHUNK_MAX_EVENTS,
					     &n, NULL, err);
			if (rc)
				goto out;
			total += n;
		}
		dt = mr_clock_s() - t0;
		if (bench_rate((double)total, dt) > best)
			best = bench_rate((double)total, dt);
	}
	c->decode_mevps = best / 1e6;
out:
	for (size_t i = 0; i < nb; i++)
		free(blobs[i]);
	free(blobs);
	free(lens);
	free(scratch);
	free(ev);
	return rc;
}

static int bench_read(struct mr_store *s, struct mr_bench_store_case *c, struct mr_error *err)
{
	struct mr_reader *r;
	struct mr_event buf[4096];
	uint64_t total = 0;
	size_t n;
	double t0 = mr_clock_s();
	int rc = mr_reader_open(s, NULL, &r, err);

	if (rc)
		return rc;
	while ((rc = mr_reader_read(r, buf, 4096, &n)) == 0)
		total += n;
	if (rc == MR_EOF)
		rc = 0;
	else
		*err = *mr_reader_error(r);
	mr_reader_close(r);
	c->read_mevps = bench_rate((double)total, mr_clock_s() - t0) / 1e6;
	return rc;
}

/* What a child generates and writes. */
struct gen_case {
	const char *gen;
	const char *const *params;
	const char *path;
};

static int write_trace(void *arg, void *result, struct mr_error *err)
{
	const struct gen_case *g = arg;

	return bench_gen(g->gen, g->params, g->path, err);
}

/* Generate + write in a child, so that its peak RSS is the writer's (and generator's)
 * alone, then read the store back. */
static int run_case(const struct mr_bench_store_opts *o, const char *label, const char *gen,
		    const char *const *params, struct mr_bench_store_case *c, struct mr_error *err)
{
	struct mr_store_summary sum;
	struct mr_store *s;
	char path[4096];
	struct gen_case g = { .gen = gen, .params = params, .path = path };
	double t0;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", label);
	snprintf(path, sizeof(path), "%s/bench-%s.db", o->dir, gen);
	t0 = mr_clock_s();
	rc = bench_in_child("generator", write_trace, &g, NULL, 0, &c->write_peak_rss, err);
	if (rc)
		return rc;
	c->write_s = mr_clock_s() - t0;
	rc = mr_store_open(path, MR_STORE_RDONLY, &s, err);
	if (rc)
		return rc;
	rc = mr_store_summarize(s, &sum, err);
	if (!rc) {
		c->events = sum.n_events;
		c->chunks = sum.n_chunks;
		c->bytes_per_event = sum.n_events ? (double)sum.stored_bytes / (double)sum.n_events : 0;
		c->payload_per_event = sum.n_events ? (double)sum.payload_bytes / (double)sum.n_events : 0;
		c->file_bytes = sum.file_bytes;
		c->writer_buffer_bytes = mr_chunk_scratch_size(MR_CHUNK_DEFAULT_EVENTS) +
					 mr_chunk_bound(MR_CHUNK_DEFAULT_EVENTS) +
					 MR_CHUNK_DEFAULT_EVENTS * sizeof(struct mr_event);
		rc = bench_decode(s, c, err);
	}
	if (!rc)
		rc = bench_read(s, c, err);
	mr_store_close(s);
	if (!o->keep)
		mr_store_remove(path);
	return rc;
}

int mr_bench_store(const struct mr_bench_store_opts *o, struct mr_bench_store_case *out,
		   size_t cap, size_t *n, struct mr_error *err)
{
	char events[32], pages[32], seqpages[32];
	const char *zipf[] = { "events", events, "pages", pages, "skew", "1.0", NULL };
	const char *seq[] = { "size", seqpages, NULL };
	const char *loop[] = { "size", seqpages, NULL };
	int rc;

	*n = 0;
	snprintf(events, sizeof(events), "%llu", (unsigned long long)(o->events ? o->events : 50000000));
	snprintf(pages, sizeof(pages), "%llu", (unsigned long long)(o->pages ? o->pages : 1048576));
	snprintf(seqpages, sizeof(seqpages), "%llu", (unsigned long long)(o->pages ? o->pages : 1048576));
	if (cap < 3)
		return mr_error_set(err, MR_EINVAL, "need room for 3 cases");
	rc = run_case(o, "zipf(1.0)", "zipf", zipf, &out[0], err);
	if (!rc)
		rc = run_case(o, "seq", "seq", seq, &out[1], err);
	if (!rc)
		rc = run_case(o, "loop", "loop", loop, &out[2], err);
	*n = rc ? 0 : 3;
	return rc;
}

int mr_bench_store_format(const struct mr_bench_store_case *c, size_t n, char *buf,
			  size_t cap)
{
	struct mr_strbuf sb = { buf, cap, 0 };

	if ((!c && n) || (!buf && cap))
		return MR_EINVAL;
	if (cap)
		buf[0] = '\0';
	mr_strbuf_printf(&sb, "%-10s %12s %7s %9s %9s %8s %10s %10s %10s %9s\n", "trace", "events",
			 "chunks", "bytes/ev", "col/ev", "write s", "write M/s", "decode M/s",
			 "read M/s", "wr RSS");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_store_case *k = &c[i];

		mr_strbuf_printf(&sb, "%-10s %12llu %7llu %9.3f %9.3f %8.2f %10.2f %10.1f %10.1f "
				 "%6llu MiB\n", k->name, (unsigned long long)k->events,
				 (unsigned long long)k->chunks, k->bytes_per_event,
				 k->payload_per_event, k->write_s,
				 bench_rate((double)k->events, k->write_s) / 1e6, k->decode_mevps,
				 k->read_mevps, (unsigned long long)(k->write_peak_rss >> 20));
	}
	mr_strbuf_printf(&sb, "writer buffers: %llu bytes for one stream (fixed by the chunk size, "
			 "independent of trace length)\n",
			 (unsigned long long)(n ? c[0].writer_buffer_bytes : 0));
	mr_strbuf_printf(&sb, "bytes/ev = LZ4 chunk bytes per event; col/ev = column encoding before LZ4;\n"
			 "write = generate + encode + commit; decode = pure codec from memory, one core;\n"
			 "read = reader over the SQLite file; wr RSS = peak RSS of the generating process\n"
			 "(generator state + writer; compare runs with --events to see it does not grow)\n");
	return bench_report_end(&sb);
}
