// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - time-ordered iteration over a store's events.
 *
 * Each stream is read chunk by chunk through its own statement whose WHERE clause drops
 * chunks outside [t_from, t_to] using the chunk rows alone, so their blobs are never read
 * or decompressed. Streams are merged by time; ties go to the lower stream id, so the
 * order is a function of the store only (determinism of every replay rests on it).
 *
 * Every decoded chunk is checked against what the format allows before any of its events
 * is handed out (check_events()): times never decrease within a stream and lie in the
 * chunk row's range, page ids are rows of `pages`, MAP/UNMAP name rows of `vmas`, the
 * kinds add up to the row's kind_counts. A chunk that fails is MR_ECORRUPT naming the
 * chunk row, the event and the column; the chunks before it were read intact. The check
 * is one pass over the decoded events with no allocation (the VMA ids are loaded once).
 */
#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_codec.h"
#include "store_int.h"

/* One stream that has chunks in the range, with the chunk being read. */
struct rstream {
	sqlite3_stmt *st;
	uint32_t id;         /* stream id */
	struct mr_event *ev; /* decoded chunk */
	size_t cap, n, pos;  /* events [pos, n) of ev are still to be read */
	int64_t chunk;       /* chunks.id of ev */
	uint64_t last_time;  /* of the stream's last decoded event: times must not decrease */
	int done;
};

struct mr_reader {
	struct mr_store *s;
	uint64_t t_from, t_to;
	struct rstream *streams; /* by stream id, those with chunks in range only */
	uint32_t nstreams;
	uint32_t nactive;
	int64_t *vmas; /* vmas ids, sorted: what MAP/UNMAP events may name */
	size_t nvmas;
	void *scratch;
	size_t scratch_cap;
	int failed;
	struct mr_reader_stats stats;
	struct mr_error err;
};

/* Decode buffers a reader may hold (events of the largest chunk of every stream read at
 * once): far above any recording, and a crafted file cannot make one reserve terabytes. */
#define READER_MAX_BUFFER (2ull << 30)

#define FIX "the file is damaged or was not written by memreplay: record or generate the trace again"

void mr_reader_close(struct mr_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nstreams; i++) {
		sqlite3_finalize(r->streams[i].st);
		free(r->streams[i].ev);
	}
	free(r->streams);
	free(r->vmas);
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

/* The VMA ids MAP/UNMAP events may name, sorted (ids are the table's integer key). */
static int load_vmas(struct mr_reader *r, struct mr_error *err)
{
	sqlite3_stmt *st;
	int64_t n = 0;
	size_t k = 0;
	int rc = sqlite3_prepare_v2(r->s->db, "SELECT count(*) FROM vmas", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return mr_store_sqlerr(r->s, rc, "reading vmas", err);
	r->vmas = malloc((size_t)(n ? n : 1) * sizeof(*r->vmas));
	if (!r->vmas)
		return mr_error_set(err, MR_ENOMEM, "out of memory for %lld VMA ids", (long long)n);
	rc = sqlite3_prepare_v2(r->s->db, "SELECT id FROM vmas ORDER BY id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return mr_store_sqlerr(r->s, rc, "reading vmas", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < (size_t)n)
		r->vmas[k++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return mr_store_sqlerr(r->s, rc, "reading vmas", err);
	r->nvmas = k;
	return 0;
}

static int vma_known(const struct mr_reader *r, uint64_t id)
{
	size_t lo = 0, hi = r->nvmas;

	if (id > INT64_MAX)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->vmas[mid] < (int64_t)id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nvmas && r->vmas[lo] == (int64_t)id;
}

int mr_reader_open(struct mr_store *s, const struct mr_reader_opts *opts,
		   struct mr_reader **out, struct mr_error *err)
{
	struct mr_reader *r;
	sqlite3_stmt *st = NULL;
	size_t maxn = 1;
	uint64_t buffered = 0;
	int64_t total = 0, matched = 0;
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
	if (r->t_from > (uint64_t)INT64_MAX)
		r->t_from = INT64_MAX; /* no event is later (mr_store_open checked the rows) */
	rc = load_vmas(r, err);
	if (rc)
		goto out_free;

	/* How many chunks the range skips. */
	rc = sqlite3_prepare_v2(s->db, "SELECT count(*), coalesce(sum(t_last>=?1 AND t_first<=?2),0)"
				" FROM chunks", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sqlerr;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)r->t_from);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)r->t_to);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		goto sqlerr;
	total = sqlite3_column_int64(st, 0);
	matched = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	r->stats.chunks_skipped = (uint64_t)(total - matched);

	/* The streams with chunks in range and their largest chunk (rows checked on open:
	 * stream ids < s->n_streams, sizes 1..MR_CHUNK_MAX_EVENTS). */
	r->streams = calloc(s->n_streams ? s->n_streams : 1, sizeof(*r->streams));
	if (!r->streams) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out_free;
	}
	rc = sqlite3_prepare_v2(s->db, "SELECT stream, max(n_events) FROM chunks WHERE t_last>=?1"
				" AND t_first<=?2 GROUP BY stream ORDER BY stream", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sqlerr;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)r->t_from);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)r->t_to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rstream *rs = &r->streams[r->nstreams];
		int64_t id = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 1);

		/* this query may read the rows through the index chunks_stream_time, where
		 * the open's checks read the table itself */
		if (r->nstreams >= s->n_streams || id < 0 || id >= s->n_streams || n < 1 ||
		    n > MR_CHUNK_MAX_EVENTS) {
			rc = mr_error_set(err, MR_ECORRUPT, "%s: the chunk rows of stream %lld disagree with those checked on open (a damaged index, or rows changed while the trace was open): " FIX,
					  s->path, (long long)id);
			goto out_free;
		}
		buffered += (uint64_t)n * sizeof(struct mr_event);
		if (buffered > READER_MAX_BUFFER) {
			rc = mr_error_set(err, MR_ENOMEM, "%s: reading %u streams at once needs more than %llu MiB of chunk buffers: " FIX,
					  s->path, r->nstreams + 1, READER_MAX_BUFFER >> 20);
			goto out_free;
		}
		r->nstreams++;
		rs->id = (uint32_t)id;
		rs->cap = (size_t)n;
		if ((size_t)n > maxn)
			maxn = (size_t)n;
		rs->ev = malloc(rs->cap * sizeof(struct mr_event));
		if (!rs->ev) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out_free;
		}
	}
	if (rc != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(st);
	st = NULL;
	r->scratch_cap = mr_chunk_scratch_size(maxn);
	r->scratch = malloc(r->scratch_cap);
	if (!r->scratch) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out_free;
	}
	for (uint32_t i = 0; i < r->nstreams; i++) {
		struct rstream *rs = &r->streams[i];

		rc = sqlite3_prepare_v2(s->db,
					"SELECT id, t_first, t_last, kind_counts, data FROM chunks"
					" WHERE stream=?1 AND t_last>=?2 AND t_first<=?3 ORDER BY t_first, id",
					-1, &rs->st, NULL);
		if (rc != SQLITE_OK)
			goto sqlerr;
		sqlite3_bind_int64(rs->st, 1, rs->id);
		sqlite3_bind_int64(rs->st, 2, (sqlite3_int64)r->t_from);
		sqlite3_bind_int64(rs->st, 3, (sqlite3_int64)r->t_to);
	}
	r->nactive = r->nstreams;
	*out = r;
	return 0;
sqlerr:
	rc = mr_store_sqlerr(s, rc, "reading chunks", err);
out_free:
	/* a statement left open would keep the connection from closing (sqlite3_close_v2()
	 * makes it a zombie until then): the whole store leaked */
	sqlite3_finalize(st);
	mr_reader_close(r);
	return rc;
}

static int bad_event(struct mr_reader *r, const struct rstream *rs, size_t i, const char *col,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int bad_event(struct mr_reader *r, const struct rstream *rs, size_t i, const char *col,
		     const char *fmt, ...)
{
	char what[160];
	const char *kind = mr_event_kind_name(rs->ev[i].kind);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return mr_error_set(&r->err, MR_ECORRUPT, "%s: chunks row %lld (stream %u), event %zu (%s), column %s: %s; " FIX,
			    r->s->path, (long long)rs->chunk, rs->id, i, kind ? kind : "?", col, what);
}

/* The decoded chunk against its row and the tables (see the file comment). */
static int check_events(struct mr_reader *r, struct rstream *rs, size_t n, uint64_t t_first,
			uint64_t t_last, const uint8_t *kc, int kn)
{
	uint32_t count[MR_EV_NR_KINDS] = { 0 };
	uint64_t last = rs->last_time;
	uint32_t n_pages = r->s->n_pages;

	for (size_t i = 0; i < n; i++) {
		const struct mr_event *e = &rs->ev[i];

		if (e->time < last)
			return bad_event(r, rs, i, "time", "%llu ns is before the stream's previous event at %llu ns (a stream's events are in time order)",
					 (unsigned long long)e->time, (unsigned long long)last);
		last = e->time;
		if (e->page != MR_PAGE_NONE && e->page >= n_pages)
			return bad_event(r, rs, i, "page", "page %u is not a row of pages (which has %u rows)",
					 e->page, n_pages);
		if ((e->kind == MR_EV_MAP || e->kind == MR_EV_UNMAP) && !vma_known(r, e->arg))
			return bad_event(r, rs, i, "arg", "VMA %llu is not a row of vmas (which has %zu rows)",
					 (unsigned long long)e->arg, r->nvmas);
		count[e->kind]++;
	}
	if (rs->ev[0].time < t_first || rs->ev[n - 1].time > t_last)
		return bad_event(r, rs, rs->ev[0].time < t_first ? 0 : n - 1, "time",
				 "%llu ns is outside the chunk row's t_first .. t_last (%llu ..)",
				 (unsigned long long)(rs->ev[0].time < t_first ? rs->ev[0].time : rs->ev[n - 1].time),
				 (unsigned long long)t_first);
	for (int k = 0; kc && k < MR_EV_NR_KINDS; k++) {
		uint32_t c = 0;

		if (4 * k + 4 <= kn) {
			memcpy(&c, kc + 4 * k, 4);
			c = le32toh(c);
		}
		if (c != count[k])
			return mr_error_set(&r->err, MR_ECORRUPT, "%s: chunks row %lld, column kind_counts: %u %s events where the chunk has %u; " FIX,
					    r->s->path, (long long)rs->chunk, c, mr_event_kind_name((unsigned)k), count[k]);
	}
	rs->last_time = last;
	return 0;
}

/* Load the stream's next chunk that has events in range; sets done at the end. */
static int refill(struct mr_reader *r, struct rstream *rs)
{
	for (;;) {
		const void *blob;
		size_t n, lo, hi;
		int len, rc = sqlite3_step(rs->st);

		if (rc == SQLITE_DONE) {
			rs->done = 1;
			r->nactive--;
			return 0;
		}
		if (rc != SQLITE_ROW)
			return mr_store_sqlerr(r->s, rc, "reading chunks", &r->err);
		rs->chunk = sqlite3_column_int64(rs->st, 0);
		blob = sqlite3_column_blob(rs->st, 4);
		len = sqlite3_column_bytes(rs->st, 4);
		rc = mr_chunk_decode(blob, (size_t)len, r->scratch, r->scratch_cap, rs->ev, rs->cap, &n,
				     NULL, &r->err);
		if (rc) {
			char why[MR_ERRMSG_MAX];

			memcpy(why, r->err.msg, sizeof(why));
			return mr_error_set(&r->err, rc == MR_ENOSPC ? MR_ECORRUPT : rc,
					    "%s: event chunk %lld is corrupt (%.300s); chunks before it were read intact",
					    r->s->path, (long long)rs->chunk, why);
		}
		rc = check_events(r, rs, n, (uint64_t)sqlite3_column_int64(rs->st, 1),
				  (uint64_t)sqlite3_column_int64(rs->st, 2), sqlite3_column_blob(rs->st, 3),
				  sqlite3_column_bytes(rs->st, 3));
		if (rc)
			return rc;
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

/* The stream whose current event is the earliest (refilling streams as they run out), or
 * NULL at the end; ties go to the lower stream id. */
static int earliest(struct mr_reader *r, struct rstream **best)
{
	*best = NULL;
	for (uint32_t i = 0; i < r->nstreams; i++) {
		struct rstream *rs = &r->streams[i];
		int rc;

		if (rs->done)
			continue;
		if (rs->pos == rs->n) {
			rc = refill(r, rs);
			if (rc)
				return r->failed = rc;
			if (rs->done)
				continue;
		}
		if (!*best || rs->ev[rs->pos].time < (*best)->ev[(*best)->pos].time)
			*best = rs;
	}
	return 0;
}

int mr_reader_read(struct mr_reader *r, struct mr_event *evs, size_t cap, size_t *n)
{
	size_t k = 0;
	int rc;

	*n = 0;
	if (r->failed)
		return r->failed;
	while (k < cap) {
		struct rstream *best;

		rc = earliest(r, &best);
		if (rc)
			return rc;
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

int mr_reader_next_rowid(struct mr_reader *r, struct mr_event *ev, int64_t *rowid)
{
	struct rstream *best;
	int rc;

	if (r->failed)
		return r->failed;
	rc = earliest(r, &best);
	if (rc)
		return rc;
	if (!best)
		return MR_EOF;
	/* chunk ids < 2^47 and indices < 2^16 (both checked): never negative, never equal */
	*rowid = (int64_t)((uint64_t)best->chunk << 16 | best->pos);
	*ev = best->ev[best->pos++];
	r->stats.events++;
	return 0;
}

int mr_store_check_events(struct mr_store *s, struct mr_error *err)
{
	struct mr_reader *r;
	int rc = mr_reader_open(s, NULL, &r, err);

	if (rc)
		return rc;
	/* each stream's chunks in the reader's order (t_first, id), checked by refill() as
	 * they are decoded: the time order a check needs is per stream */
	for (uint32_t i = 0; !rc && i < r->nstreams; i++) {
		struct rstream *rs = &r->streams[i];

		while (!(rc = refill(r, rs)) && !rs->done)
			rs->pos = rs->n;
	}
	if (rc)
		*err = r->err;
	mr_reader_close(r);
	return rc;
}
