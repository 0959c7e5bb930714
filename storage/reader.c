// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - time-ordered iteration over a store's events.
 *
 * Each stream is read chunk by chunk through its own statement whose WHERE clause drops
 * chunks outside [t_from, t_to] using the chunk rows alone, so their blobs are never read
 * or decompressed. Streams are merged by time; ties go to the lower stream id, so the
 * order is a function of the store only (determinism of every replay rests on it).
 */
#include <stdlib.h>
#include <string.h>

#include "mr_codec.h"
#include "store_int.h"

struct rstream {
	sqlite3_stmt *st;
	struct mr_event *ev; /* decoded chunk */
	size_t cap, n, pos;
	int done;
};

struct mr_reader {
	struct mr_store *s;
	uint64_t t_from, t_to;
	struct rstream *streams;
	uint32_t nstreams;
	uint32_t nactive;
	void *scratch;
	size_t scratch_cap;
	int failed;
	struct mr_reader_stats stats;
	struct mr_error err;
};

void mr_reader_close(struct mr_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nstreams; i++) {
		sqlite3_finalize(r->streams[i].st);
		free(r->streams[i].ev);
	}
	free(r->streams);
	free(r->scratch);
	free(r);
}

const struct mr_error *mr_reader_error(const struct mr_reader *r)
{
	return &r->err;
}

void mr_reader_get_stats(const struct mr_reader *r, struct mr_reader_stats *st)
{
	*st = r->stats;
}

int mr_reader_open(struct mr_store *s, const struct mr_reader_opts *opts,
		   struct mr_reader **out, struct mr_error *err)
{
	struct mr_reader *r;
	sqlite3_stmt *st = NULL;
	size_t maxn = 1;
	int64_t nstreams = 0, total = 0, matched = 0;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	r->s = s;
	r->t_from = opts ? opts->t_from : 0;
	r->t_to = opts && opts->t_to ? opts->t_to : UINT64_MAX;
	if (r->t_to > (uint64_t)INT64_MAX)
		r->t_to = INT64_MAX;

	/* Streams that own chunks, the largest chunk, and how many chunks the range skips. */
	rc = sqlite3_prepare_v2(s->db,
				"SELECT coalesce(max(stream)+1,0), coalesce(max(n_events),1), count(*),"
				" coalesce(sum(t_last>=?1 AND t_first<=?2),0) FROM chunks",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sqlerr;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)r->t_from);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)r->t_to);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		goto sqlerr;
	nstreams = sqlite3_column_int64(st, 0);
	maxn = (size_t)sqlite3_column_int64(st, 1);
	total = sqlite3_column_int64(st, 2);
	matched = sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	st = NULL;
	if (nstreams < 0 || nstreams > 1 << 20 || maxn < 1 || maxn > MR_CHUNK_MAX_EVENTS) {
		rc = mr_error_set(err, MR_ECORRUPT, "%s: chunk table is damaged (stream ids or chunk sizes out of range)", s->path);
		goto out_free;
	}
	r->stats.chunks_skipped = (uint64_t)(total - matched);
	r->nstreams = (uint32_t)nstreams;
	r->streams = calloc(r->nstreams ? r->nstreams : 1, sizeof(*r->streams));
	r->scratch_cap = mr_chunk_scratch_size(maxn);
	r->scratch = malloc(r->scratch_cap);
	if (!r->streams || !r->scratch) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out_free;
	}
	for (uint32_t i = 0; i < r->nstreams; i++) {
		struct rstream *rs = &r->streams[i];

		rc = sqlite3_prepare_v2(s->db,
					"SELECT id, data FROM chunks WHERE stream=?1 AND t_last>=?2"
					" AND t_first<=?3 ORDER BY t_first, id",
					-1, &rs->st, NULL);
		if (rc != SQLITE_OK)
			goto sqlerr;
		sqlite3_bind_int64(rs->st, 1, i);
		sqlite3_bind_int64(rs->st, 2, (sqlite3_int64)r->t_from);
		sqlite3_bind_int64(rs->st, 3, (sqlite3_int64)r->t_to);
		rs->cap = maxn;
		rs->ev = malloc(maxn * sizeof(struct mr_event));
		if (!rs->ev) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out_free;
		}
	}
	r->nactive = r->nstreams;
	*out = r;
	return 0;
sqlerr:
	rc = mr_store_sqlerr(s, rc, "reading chunks", err);
	sqlite3_finalize(st);
out_free:
	mr_reader_close(r);
	return rc;
}

/* Load the stream's next chunk that has events in range; sets done at the end. */
static int refill(struct mr_reader *r, struct rstream *rs)
{
	for (;;) {
		const void *blob;
		size_t n, lo, hi;
		int64_t id;
		int len, rc = sqlite3_step(rs->st);

		if (rc == SQLITE_DONE) {
			rs->done = 1;
			r->nactive--;
			return 0;
		}
		if (rc != SQLITE_ROW)
			return mr_store_sqlerr(r->s, rc, "reading chunks", &r->err);
		id = sqlite3_column_int64(rs->st, 0);
		blob = sqlite3_column_blob(rs->st, 1);
		len = sqlite3_column_bytes(rs->st, 1);
		rc = mr_chunk_decode(blob, (size_t)len, r->scratch, r->scratch_cap, rs->ev, rs->cap, &n,
				     NULL, &r->err);
		if (rc) {
			char why[MR_ERRMSG_MAX];

			memcpy(why, r->err.msg, sizeof(why));
			return mr_error_set(&r->err, rc == MR_ENOSPC ? MR_ECORRUPT : rc,
					    "%s: event chunk %lld is corrupt (%.300s); chunks before it were read intact",
					    r->s->path, (long long)id, why);
		}
		r->stats.chunks_decoded++;
		/* Trim to the time range; events are in time order within a stream. */
		lo = 0;
		hi = n;
		while (lo < hi && rs->ev[lo].time < r->t_from)
			lo++;
		while (hi > lo && rs->ev[hi - 1].time > r->t_to)
			hi--;
		if (lo < hi) {
			rs->pos = lo;
			rs->n = hi;
			return 0;
		}
	}
}

int mr_reader_read(struct mr_reader *r, struct mr_event *evs, size_t cap, size_t *n)
{
	size_t k = 0;
	int rc;

	*n = 0;
	if (r->failed)
		return r->failed;
	while (k < cap) {
		struct rstream *best = NULL;

		/* Make sure every live stream has a current event, then take the earliest. */
		for (uint32_t i = 0; i < r->nstreams; i++) {
			struct rstream *rs = &r->streams[i];

			if (rs->done)
				continue;
			if (rs->pos == rs->n) {
				rc = refill(r, rs);
				if (rc)
					return r->failed = rc;
				if (rs->done)
					continue;
			}
			if (!best || rs->ev[rs->pos].time < best->ev[best->pos].time)
				best = rs;
		}
		if (!best)
			break;
		if (r->nactive == 1) {
			/* One stream left: copy a run without comparisons. */
			size_t run = best->n - best->pos;

			if (run > cap - k)
				run = cap - k;
			memcpy(evs + k, best->ev + best->pos, run * sizeof(*evs));
			best->pos += run;
			k += run;
		} else {
			evs[k++] = best->ev[best->pos++];
		}
	}
	*n = k;
	r->stats.events += k;
	return k ? 0 : MR_EOF;
}

int mr_reader_next(struct mr_reader *r, struct mr_event *ev)
{
	size_t n;

	return mr_reader_read(r, ev, 1, &n);
}
