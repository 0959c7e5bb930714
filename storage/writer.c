// SPDX-License-Identifier: GPL-2.0
/*
 * writer.c - the store writer.
 *
 * Memory is bounded: one event buffer of chunk_events per stream, one encode scratch,
 * one output buffer and one page-row batch, whatever the trace length. Table rows go to
 * SQLite inside an open transaction; each full chunk is inserted and the transaction
 * committed, so a chunk is durable together with every row that came before it and a
 * SIGKILL at any point leaves the store as of the last commit.
 *
 * Page rows, one per distinct page (the recorder adds one per first fault), are the
 * bulk of the rows: they wait in a batch of PAGE_BATCH rows and go in with one
 * INSERT ... SELECT over the `mr_page_batch` virtual table below (one statement run per
 * batch instead of one per row), when the batch fills and before every COMMIT, so they
 * are still committed in the same transaction as the first chunk after them. A row whose
 * id is one past the largest so far (every new page of the recorder) gives a NULL id, so
 * SQLite appends it as the next rowid, the same id, without a search down the B-tree;
 * flush_pages() checks the last rowid and rolls back on a mismatch.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_codec.h"
#include "store_int.h"

struct wstream {
	struct mr_event *buf;
	uint32_t n;
	uint64_t last_time;
};

enum {
	ST_META, ST_STREAM, ST_LOST, ST_CGROUP, ST_MM, ST_TASK, ST_FILE, ST_VMA, ST_PAGES,
	ST_MARKER, ST_CHUNK, ST_NR
};

#define PAGE_BATCH 4096 /* page rows buffered between inserts */
#define PAGE_BATCH_TABLE "mr_page_batch"

static const char *const stmt_sql[ST_NR] = {
	[ST_META] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)",
	[ST_STREAM] = "INSERT INTO streams(id, name, source, cpu) VALUES(?1, ?2, ?3, ?4)",
	[ST_LOST] = "UPDATE streams SET lost=?2 WHERE id=?1",
	[ST_CGROUP] = "INSERT OR REPLACE INTO cgroups VALUES(?1, ?2, ?3)",
	[ST_MM] = "INSERT OR REPLACE INTO mms VALUES(?1, ?2, ?3)",
	[ST_TASK] = "INSERT OR REPLACE INTO tasks VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_FILE] = "INSERT OR REPLACE INTO files VALUES(?1, ?2, ?3, ?4, ?5)",
	[ST_VMA] = "INSERT OR REPLACE INTO vmas VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_PAGES] = "INSERT OR REPLACE INTO pages SELECT id, type, mm, vpage, file, idx, exec,"
		     " node, cgroup FROM " PAGE_BATCH_TABLE,
	[ST_MARKER] = "INSERT OR REPLACE INTO markers VALUES(?1, ?2, ?3)",
	/* parenthesised: clang takes two literals that end an initializer list for a
	 * missing comma (-Wstring-concatenation) */
	[ST_CHUNK] = ("INSERT INTO chunks(stream, t_first, t_last, n_events, kind_counts,"
		      " payload_bytes, crc, data) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
};

struct mr_writer {
	struct mr_store *s;
	sqlite3_stmt *st[ST_NR];
	uint32_t chunk_events;
	struct wstream *streams;
	uint32_t nstreams;
	void *scratch;
	size_t scratch_cap;
	uint8_t *out;
	size_t out_cap;
	struct mr_page *pb; /* [PAGE_BATCH] page rows not inserted yet, in call order */
	uint32_t npb;
	uint8_t pb_append[PAGE_BATCH]; /* row i is the next id after every row before it */
	int64_t next_page; /* one past the largest page id in the table and the batch */
	int in_tx;
	int failed; /* sticky: after a write error nothing more is written */
	struct mr_writer_stats stats;
	struct mr_error err;
};

static int fail(struct mr_writer *w, int rc)
{
	/* Drop the open transaction: the store stays as of the last committed chunk. */
	if (w->in_tx)
		sqlite3_exec(w->s->db, "ROLLBACK", NULL, NULL, NULL);
	w->in_tx = 0;
	w->failed = rc;
	return rc;
}

static int sqlfail(struct mr_writer *w, int rc, const char *what)
{
	return fail(w, mr_store_sqlerr(w->s, rc, what, &w->err));
}

static int begin(struct mr_writer *w)
{
	int rc;

	if (w->failed)
		return w->failed;
	if (w->in_tx)
		return 0;
	rc = sqlite3_exec(w->s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sqlfail(w, rc, "starting a transaction");
	w->in_tx = 1;
	return 0;
}

static int flush_pages(struct mr_writer *w);

/* Commit the open transaction, with the page rows still batched. */
static int commit(struct mr_writer *w)
{
	int rc;

	if (w->npb && (rc = flush_pages(w)))
		return rc;
	if (!w->in_tx)
		return w->failed;
	rc = sqlite3_exec(w->s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sqlfail(w, rc, "committing");
	w->in_tx = 0;
	return 0;
}

/*
 * mr_page_batch: an eponymous virtual table over the writer's page batch, read by the
 * ST_PAGES statement only. Columns as in `pages`; a NULL where a one-row insert left its
 * parameter unbound (mm/vpage of file pages, file/idx of anon and shmem pages, node -1),
 * and a NULL id for an appended row (pb_append): INSERT makes it max(id) + 1, its id.
 */
enum { PB_ID, PB_TYPE, PB_MM, PB_VPAGE, PB_FILE, PB_IDX, PB_EXEC, PB_NODE, PB_CGROUP };

/* Table: the writer whose batch it shows (the module's client data). */
struct pb_vtab {
	sqlite3_vtab base;
	const struct mr_writer *w;
};

/* Cursor: the row index into the batch. */
struct pb_cursor {
	sqlite3_vtab_cursor base;
	uint32_t row;
};

/* xConnect: declare the columns; eponymous only (no xCreate), so no CREATE VIRTUAL TABLE. */
static int pb_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **errmsg)
{
	struct pb_vtab *t;
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(id, type, mm, vpage, file, idx, exec,"
					  " node, cgroup)");

	(void)argc;
	(void)argv;
	(void)errmsg;
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY); /* the writer's statement only */
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->w = aux;
	*out = &t->base;
	return SQLITE_OK;
}

static int pb_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* xBestIndex: one plan, a full scan of the batch; no constraint is used. */
static int pb_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	info->estimatedCost = PAGE_BATCH;
	info->estimatedRows = PAGE_BATCH;
	return SQLITE_OK;
}

static int pb_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct pb_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int pb_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* xFilter: rewind to the first row of the batch. */
static int pb_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
		     sqlite3_value **argv)
{
	(void)idx_num;
	(void)idx_str;
	(void)argc;
	(void)argv;
	((struct pb_cursor *)cur)->row = 0;
	return SQLITE_OK;
}

static int pb_next(sqlite3_vtab_cursor *cur)
{
	((struct pb_cursor *)cur)->row++;
	return SQLITE_OK;
}

static int pb_eof(sqlite3_vtab_cursor *cur)
{
	const struct pb_vtab *t = (const struct pb_vtab *)cur->pVtab;

	return ((struct pb_cursor *)cur)->row >= t->w->npb;
}

static int pb_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct pb_vtab *t = (const struct pb_vtab *)cur->pVtab;
	const struct mr_page *p = &t->w->pb[((struct pb_cursor *)cur)->row];
	int anon = p->type != MR_PAGE_FILE;

	switch (col) {
	case PB_ID:
		if (!t->w->pb_append[((struct pb_cursor *)cur)->row])
			sqlite3_result_int64(ctx, p->id);
		break;
	case PB_TYPE:
		sqlite3_result_int(ctx, p->type);
		break;
	case PB_MM:
	case PB_VPAGE:
		if (anon)
			sqlite3_result_int64(ctx, col == PB_MM ? (sqlite3_int64)p->mm :
					     (sqlite3_int64)p->vpage);
		break;
	case PB_FILE:
	case PB_IDX:
		if (!anon)
			sqlite3_result_int64(ctx, col == PB_FILE ? (sqlite3_int64)p->file :
					     (sqlite3_int64)p->index);
		break;
	case PB_EXEC:
		sqlite3_result_int(ctx, p->exec);
		break;
	case PB_NODE:
		if (p->node >= 0)
			sqlite3_result_int(ctx, p->node);
		break;
	case PB_CGROUP:
		sqlite3_result_int64(ctx, p->cgroup);
		break;
	}
	return SQLITE_OK; /* a column left unset is NULL */
}

static int pb_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct pb_cursor *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module page_batch_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only */
	.xConnect = pb_connect,
	.xBestIndex = pb_best_index,
	.xDisconnect = pb_disconnect,
	.xDestroy = pb_disconnect,
	.xOpen = pb_open,
	.xClose = pb_close,
	.xFilter = pb_filter,
	.xNext = pb_next,
	.xEof = pb_eof,
	.xColumn = pb_column,
	.xRowid = pb_rowid,
};

/* Insert the batched page rows into the open transaction (started here if need be). */
static int flush_pages(struct mr_writer *w)
{
	int rc;

	if (!w->npb)
		return w->failed;
	rc = begin(w);
	if (rc)
		return rc;
	rc = sqlite3_step(w->st[ST_PAGES]);
	sqlite3_reset(w->st[ST_PAGES]);
	if (rc != SQLITE_DONE)
		return sqlfail(w, rc, "adding pages");
	/* an appended row took max(id) + 1: that is its id unless someone else wrote pages */
	if (w->pb_append[w->npb - 1] &&
	    sqlite3_last_insert_rowid(w->s->db) != w->pb[w->npb - 1].id)
		return fail(w, mr_error_set(&w->err, MR_EIO, "page ids out of step: rows were "
					    "added to pages outside the writer"));
	w->npb = 0;
	return 0;
}

/* Run a prepared row statement whose parameters are bound; resets it either way. */
static int run_stmt(struct mr_writer *w, int which, const char *what)
{
	sqlite3_stmt *st = w->st[which];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sqlfail(w, rc, what);
	return 0;
}

/* One past the largest page id in the store (0 when it has none). */
static int next_page_id(struct mr_store *s, int64_t *next, struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT coalesce(max(id) + 1, 0) FROM pages", -1, &st,
				    NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading the pages", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*next = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : mr_store_sqlerr(s, rc, "reading the pages", err);
}

int mr_writer_create(struct mr_store *s, const struct mr_writer_opts *opts,
		     struct mr_writer **out, struct mr_error *err)
{
	struct mr_writer *w;
	uint32_t ce = opts && opts->chunk_events ? opts->chunk_events : MR_CHUNK_DEFAULT_EVENTS;
	int rc;

	*out = NULL;
	if (s->mode != MR_STORE_RDWR)
		return mr_error_set(err, MR_EINVAL, "%s is open read-only: cannot write to it", s->path);
	if (ce > MR_CHUNK_MAX_EVENTS)
		return mr_error_set(err, MR_ERANGE, "chunk size %u events exceeds the maximum %u", ce, MR_CHUNK_MAX_EVENTS);
	w = calloc(1, sizeof(*w));
	if (!w)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	w->s = s;
	w->chunk_events = ce;
	w->scratch_cap = mr_chunk_scratch_size(ce);
	w->out_cap = mr_chunk_bound(ce);
	w->scratch = malloc(w->scratch_cap);
	w->out = malloc(w->out_cap);
	w->pb = malloc(PAGE_BATCH * sizeof(*w->pb));
	if (!w->scratch || !w->out || !w->pb) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for chunk buffers");
		goto out_free;
	}
	rc = next_page_id(s, &w->next_page, err);
	if (rc)
		goto out_free;
	rc = sqlite3_create_module_v2(s->db, PAGE_BATCH_TABLE, &page_batch_module, w, NULL);
	if (rc != SQLITE_OK) {
		rc = mr_store_sqlerr(s, rc, "registering the page batch table", err);
		goto out_free;
	}
	for (int i = 0; i < ST_NR; i++) {
		rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL);
		if (rc != SQLITE_OK) {
			rc = mr_store_sqlerr(s, rc, "preparing the writer", err);
			goto out_free;
		}
	}
	w->stats.buffer_bytes = w->scratch_cap + w->out_cap + PAGE_BATCH * sizeof(*w->pb);
	*out = w;
	return 0;
out_free:
	for (int i = 0; i < ST_NR; i++)
		sqlite3_finalize(w->st[i]);
	/* the module's client data is w: drop it with w */
	sqlite3_create_module_v2(s->db, PAGE_BATCH_TABLE, NULL, NULL, NULL);
	free(w->pb);
	free(w->scratch);
	free(w->out);
	free(w);
	return rc;
}

const struct mr_error *mr_writer_error(const struct mr_writer *w)
{
	return &w->err;
}

void mr_writer_get_stats(const struct mr_writer *w, struct mr_writer_stats *st)
{
	*st = w->stats;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int mr_writer_set_meta(struct mr_writer *w, const char *key, const char *value)
{
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_text(w->st[ST_META], 1, key, -1, SQLITE_TRANSIENT);
	bind_text_or_null(w->st[ST_META], 2, value);
	return run_stmt(w, ST_META, "writing metadata");
}

int mr_writer_set_meta_u64(struct mr_writer *w, const char *key, uint64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
	return mr_writer_set_meta(w, key, buf);
}

int mr_writer_add_stream(struct mr_writer *w, const char *name, const char *source, int cpu,
			 uint32_t *id_out)
{
	struct wstream *ns;
	int rc = begin(w);

	if (rc)
		return rc;
	ns = realloc(w->streams, (w->nstreams + 1) * sizeof(*ns));
	if (!ns)
		return fail(w, mr_error_set(&w->err, MR_ENOMEM, "out of memory adding a stream"));
	w->streams = ns;
	ns = &w->streams[w->nstreams];
	memset(ns, 0, sizeof(*ns));
	ns->buf = malloc(w->chunk_events * sizeof(struct mr_event));
	if (!ns->buf)
		return fail(w, mr_error_set(&w->err, MR_ENOMEM, "out of memory adding a stream"));
	sqlite3_bind_int64(w->st[ST_STREAM], 1, w->nstreams);
	sqlite3_bind_text(w->st[ST_STREAM], 2, name, -1, SQLITE_TRANSIENT);
	bind_text_or_null(w->st[ST_STREAM], 3, source);
	sqlite3_bind_int(w->st[ST_STREAM], 4, cpu);
	rc = run_stmt(w, ST_STREAM, "adding a stream");
	if (rc) {
		free(ns->buf);
		return rc;
	}
	w->stats.buffer_bytes += w->chunk_events * sizeof(struct mr_event);
	*id_out = w->nstreams++;
	return 0;
}

int mr_writer_set_lost(struct mr_writer *w, uint32_t stream, uint64_t lost)
{
	int rc = begin(w);

	if (rc)
		return rc;
	if (stream >= w->nstreams)
		return mr_error_set(&w->err, MR_EINVAL, "no stream %u", stream);
	sqlite3_bind_int64(w->st[ST_LOST], 1, stream);
	sqlite3_bind_int64(w->st[ST_LOST], 2, (sqlite3_int64)lost);
	return run_stmt(w, ST_LOST, "recording lost events");
}

int mr_writer_add_cgroup(struct mr_writer *w, const struct mr_cgroup *c)
{
	sqlite3_stmt *st = w->st[ST_CGROUP];
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->id);
	bind_text_or_null(st, 2, c->path);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)c->memory_max);
	return run_stmt(w, ST_CGROUP, "adding a cgroup");
}

int mr_writer_add_mm(struct mr_writer *w, uint32_t id, int32_t tgid, const char *comm)
{
	sqlite3_stmt *st = w->st[ST_MM];
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, tgid);
	bind_text_or_null(st, 3, comm);
	return run_stmt(w, ST_MM, "adding an address space");
}

int mr_writer_add_task(struct mr_writer *w, const struct mr_task *t)
{
	sqlite3_stmt *st = w->st[ST_TASK];
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, t->id);
	sqlite3_bind_int(st, 2, t->pid);
	sqlite3_bind_int(st, 3, t->tgid);
	sqlite3_bind_int64(st, 4, t->mm);
	sqlite3_bind_int64(st, 5, t->cgroup);
	bind_text_or_null(st, 6, t->comm);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)t->start_ns);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)t->end_ns);
	return run_stmt(w, ST_TASK, "adding a task");
}

int mr_writer_add_file(struct mr_writer *w, const struct mr_file *f)
{
	sqlite3_stmt *st = w->st[ST_FILE];
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)f->dev);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)f->ino);
	bind_text_or_null(st, 4, f->path);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)f->size_pages);
	return run_stmt(w, ST_FILE, "adding a file");
}

int mr_writer_add_vma(struct mr_writer *w, const struct mr_vma_row *v)
{
	sqlite3_stmt *st = w->st[ST_VMA];
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, v->id);
	sqlite3_bind_int64(st, 2, v->mm);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)v->start);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)v->end);
	sqlite3_bind_int64(st, 5, v->flags);
	sqlite3_bind_int64(st, 6, v->file);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)v->pgoff);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)v->map_ns);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)v->unmap_ns);
	return run_stmt(w, ST_VMA, "adding a vma");
}

int mr_writer_add_page(struct mr_writer *w, const struct mr_page *p)
{
	if (w->failed)
		return w->failed;
	if (p->id == MR_PAGE_NONE || p->type >= MR_PAGE_NR_TYPES)
		return mr_error_set(&w->err, MR_EINVAL, "page id %u or type %u out of range", p->id, p->type);
	/* Readers refuse a store whose page ids have holes (replay sizes arrays by them). */
	if (p->id > w->next_page)
		return mr_error_set(&w->err, MR_EINVAL, "page id %u skips ids: page ids are dense from 0, and the next new one is %lld",
				    p->id, (long long)w->next_page);
	if (w->npb == PAGE_BATCH) {
		int rc = flush_pages(w);

		if (rc)
			return rc;
	}
	/* id 0 would become rowid 1 in an empty table: always explicit */
	w->pb_append[w->npb] = p->id > 0 && p->id == w->next_page;
	if (p->id >= w->next_page)
		w->next_page = (int64_t)p->id + 1;
	w->pb[w->npb++] = *p;
	return 0;
}

int mr_writer_add_marker(struct mr_writer *w, uint32_t id, uint64_t time_ns, const char *text)
{
	sqlite3_stmt *st = w->st[ST_MARKER];
	int rc = begin(w);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time_ns);
	bind_text_or_null(st, 3, text);
	return run_stmt(w, ST_MARKER, "adding a marker");
}

/* Encode the stream's buffer as one chunk, insert it and commit. */
static int flush_stream(struct mr_writer *w, uint32_t id)
{
	struct wstream *ws = &w->streams[id];
	struct mr_chunk_info info;
	uint32_t kc[MR_EV_NR_KINDS] = { 0 };
	sqlite3_stmt *st = w->st[ST_CHUNK];
	size_t len;
	int rc;

	if (!ws->n)
		return 0;
	rc = mr_chunk_encode(ws->buf, ws->n, w->scratch, w->scratch_cap, w->out, w->out_cap, &len, &w->err);
	if (rc)
		return fail(w, rc);
	rc = mr_chunk_peek(w->out, len, &info, &w->err);
	if (rc)
		return fail(w, rc);
	for (uint32_t i = 0; i < ws->n; i++)
		kc[ws->buf[i].kind]++;
	for (int k = 0; k < MR_EV_NR_KINDS; k++)
		kc[k] = htole32(kc[k]);
	rc = begin(w);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)ws->buf[0].time);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)ws->buf[ws->n - 1].time);
	sqlite3_bind_int64(st, 4, ws->n);
	sqlite3_bind_blob(st, 5, kc, sizeof(kc), SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, info.payload_len);
	sqlite3_bind_int64(st, 7, info.crc);
	sqlite3_bind_blob(st, 8, w->out, (int)len, SQLITE_STATIC);
	rc = run_stmt(w, ST_CHUNK, "writing a chunk");
	if (rc)
		return rc;
	rc = commit(w);
	if (rc)
		return rc;
	w->stats.chunks++;
	w->stats.events += ws->n;
	w->stats.payload_bytes += info.payload_len;
	w->stats.stored_bytes += len;
	ws->n = 0;
	return 0;
}

int mr_writer_append(struct mr_writer *w, uint32_t stream, const struct mr_event *ev)
{
	struct wstream *ws;

	if (w->failed)
		return w->failed;
	if (stream >= w->nstreams)
		return mr_error_set(&w->err, MR_EINVAL, "append to unknown stream %u (add it first)", stream);
	ws = &w->streams[stream];
	if (ev->kind >= MR_EV_NR_KINDS)
		return mr_error_set(&w->err, MR_EINVAL, "event kind %u is not defined", ev->kind);
	/* SQLite integers are signed: a later time would be stored negative. */
	if (ev->time > (uint64_t)INT64_MAX)
		return mr_error_set(&w->err, MR_ERANGE, "stream %u: event time %llu ns is past the largest a trace holds (2^63-1 ns)",
				    stream, (unsigned long long)ev->time);
	if (ev->time < ws->last_time)
		return mr_error_set(&w->err, MR_EINVAL, "stream %u: event time %llu before previous %llu (events of a stream must be in time order)",
				    stream, (unsigned long long)ev->time, (unsigned long long)ws->last_time);
	ws->last_time = ev->time;
	ws->buf[ws->n++] = *ev;
	if (ws->n == w->chunk_events)
		return flush_stream(w, stream);
	return 0;
}

int mr_writer_flush(struct mr_writer *w)
{
	int rc;

	if (w->failed)
		return w->failed;
	for (uint32_t i = 0; i < w->nstreams; i++) {
		rc = flush_stream(w, i);
		if (rc)
			return rc;
	}
	return commit(w);
}

int mr_writer_finish(struct mr_writer *w)
{
	int rc = mr_writer_flush(w);

	if (rc)
		return rc;
	rc = mr_writer_set_meta(w, "complete", "1");
	if (!rc)
		rc = commit(w);
	if (rc)
		return rc;
	/*
	 * Fold the WAL into the main file and leave WAL mode: a finished trace is one file
	 * that any reader can open read-only, also where it cannot create the -shm file WAL
	 * mode needs (read-only media, another user's directory), and readers leave no -wal
	 * or -shm beside it. A WAL beside a finished trace is then never its own, and
	 * mr_store_open() refuses it.
	 */
	rc = sqlite3_wal_checkpoint_v2(w->s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = mr_store_leave_wal(w->s->db);
	if (rc == SQLITE_OK)
		return 0;
	/*
	 * Nothing is lost either way: a checkpoint that fails leaves the WAL as it was, and
	 * readers read the committed chunks from it. Folding the WAL in writes every page
	 * of it into the main file while the WAL is still there, so it can need about as
	 * much space again as the commits did: a disk that held every commit can be full
	 * here, which is no other process's doing.
	 */
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return mr_error_set(&w->err, MR_EBUSY,
				    "%s: every event is committed, but the trace stays in WAL mode (readable only where its directory is writable) because another process has it open (%s): when it is closed, run sqlite3 %s 'PRAGMA journal_mode=DELETE'",
				    w->s->path, sqlite3_errmsg(w->s->db), w->s->path);
	case SQLITE_FULL:
		return mr_error_set(&w->err, MR_ENOSPC,
				    "%s: the disk is full folding the write-ahead log in: what was committed is kept, %llu chunks (%llu events), readable from the trace and its -wal file; free space and run sqlite3 %s 'PRAGMA journal_mode=DELETE' to make it one file",
				    w->s->path, (unsigned long long)w->stats.chunks,
				    (unsigned long long)w->stats.events, w->s->path);
	}
	return mr_store_sqlerr(w->s, rc, "folding the write-ahead log into the trace", &w->err);
}

void mr_writer_destroy(struct mr_writer *w)
{
	if (!w)
		return;
	if (!w->failed)
		mr_writer_flush(w);
	if (w->in_tx)
		sqlite3_exec(w->s->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < ST_NR; i++)
		sqlite3_finalize(w->st[i]);
	sqlite3_create_module_v2(w->s->db, PAGE_BATCH_TABLE, NULL, NULL, NULL);
	free(w->pb);
	for (uint32_t i = 0; i < w->nstreams; i++)
		free(w->streams[i].buf);
	free(w->streams);
	free(w->scratch);
	free(w->out);
	free(w);
}
