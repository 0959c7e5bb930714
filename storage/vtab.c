// SPDX-License-Identifier: GPL-2.0
/*
 * vtab.c - the `events` virtual table: a store's events as an SQL table.
 *
 *   SELECT kind, count(*) FROM events GROUP BY kind;
 *   SELECT page, count(*) FROM events WHERE kind_id = 0 AND time BETWEEN 1e9 AND 2e9
 *       GROUP BY page ORDER BY 2 DESC LIMIT 10;
 *
 * Rows come from mr_reader in time order, so a time range in WHERE is handed to the
 * reader (xBestIndex/xFilter below) and chunks outside it are skipped without being
 * decompressed. The table is registered on every connection mr_store_open() makes;
 * the chunk decoding itself stays in codec.c (this file only adapts the reader).
 */
#ifdef MR_SQLITE_EXTENSION
/* Built a second time into the loadable extension (ext.c): every call on the host's
 * connection goes through the routines the host hands over, so a host with SQLite
 * linked in statically is served by its own copy. */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "mr_store.h"
#include "store_int.h"

enum { COL_TIME, COL_KIND, COL_KIND_ID, COL_PAGE, COL_TASK, COL_CPU, COL_FLAGS, COL_SIZE, COL_ARG };

/* Table: the store it reads. Base struct first, as SQLite requires. */
struct ev_vtab {
	sqlite3_vtab base;
	struct mr_store *store;
};

/* Cursor: a reader over the constrained time range and the current event. */
struct ev_cursor {
	sqlite3_vtab_cursor base;
	struct mr_reader *r;
	struct mr_event ev;
	sqlite3_int64 rowid; /* (chunk id << 16) | index in the chunk: the same in every scan */
	int eof;
};

/* xConnect: declare the schema; the store is the module's client data. */
static int ev_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **errmsg)
{
	struct ev_vtab *t;
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(time INTEGER, kind TEXT, kind_id INTEGER,"
					  " page INTEGER, task INTEGER, cpu INTEGER, flags INTEGER,"
					  " size INTEGER, arg INTEGER)");

	if (rc != SQLITE_OK)
		return rc;
	/* Only from top-level SQL, never from a view or trigger a file brings with it. */
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->store = aux;
	*out = &t->base;
	return SQLITE_OK;
}

static int ev_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/*
 * xBestIndex: idxNum bit 1 = a lower time bound is argv[0], bit 2 = an upper bound is the
 * next argv. Bounds are inclusive for the reader; strict ones are re-checked by SQLite
 * (omit stays 0), so the reader may return a superset and the answer stays exact.
 */
static int ev_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int lo = -1, hi = -1, argn = 0;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable || c->iColumn != COL_TIME)
			continue;
		if ((c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT ||
		     c->op == SQLITE_INDEX_CONSTRAINT_EQ) && lo < 0)
			lo = i;
		if ((c->op == SQLITE_INDEX_CONSTRAINT_LE || c->op == SQLITE_INDEX_CONSTRAINT_LT ||
		     c->op == SQLITE_INDEX_CONSTRAINT_EQ) && hi < 0)
			hi = i;
	}
	info->idxNum = 0;
	if (lo >= 0) {
		info->aConstraintUsage[lo].argvIndex = ++argn;
		info->idxNum |= 1;
	}
	if (hi >= 0 && hi != lo) {
		info->aConstraintUsage[hi].argvIndex = ++argn;
		info->idxNum |= 2;
	} else if (hi >= 0) {
		info->idxNum |= 4; /* equality: one argument serves both bounds */
	}
	info->estimatedCost = (lo >= 0 || hi >= 0) ? 1e5 : 1e7;
	/* Rows come in time order: an ORDER BY time needs no sort. */
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_TIME && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int ev_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct ev_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int ev_close(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	mr_reader_close(c->r);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Fetch the next event; a reader error becomes an SQL error with the reader's message. */
static int ev_next(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	int64_t rowid;
	int rc = mr_reader_next_rowid(c->r, &c->ev, &rowid);

	if (rc == MR_EOF) {
		c->eof = 1;
		return SQLITE_OK;
	}
	if (rc) {
		sqlite3_free(cur->pVtab->zErrMsg);
		cur->pVtab->zErrMsg = sqlite3_mprintf("%s", mr_reader_error(c->r)->msg);
		return rc == MR_ECORRUPT ? SQLITE_CORRUPT : SQLITE_ERROR;
	}
	c->rowid = rowid;
	return SQLITE_OK;
}

/*
 * A time bound for the reader from a constraint's value, widened rather than narrowed:
 * SQLite re-checks every row, so a bound may let extra events through but must never drop
 * one. Only numbers bound: `time < 'abc'` is true for every event (an integer sorts before
 * text), so text, blobs and NULL leave the range open. Integers are used as they are (a
 * double rounds values above 2^53 either way); reals are rounded outwards.
 */
static uint64_t bound_arg(sqlite3_value *v, int upper)
{
	double d;
	int64_t i;

	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		i = sqlite3_value_int64(v);
		if (i < 0)
			return upper ? 1 : 0; /* upper below 0: no event; t_to=0 would mean none */
		if (upper)
			return i == INT64_MAX ? 0 : (uint64_t)i + 1;
		return (uint64_t)i;
	case SQLITE_FLOAT:
		d = sqlite3_value_double(v);
		if (!(d == d))
			return 0; /* NaN compares as NULL: no bound */
		if (d <= 0)
			return upper ? 1 : 0;
		if (d >= 9.2e18)
			return upper ? 0 : (uint64_t)9.2e18;
		return upper ? (uint64_t)d + 1 : (uint64_t)d; /* truncation is floor for d > 0 */
	}
	return 0; /* no bound */
}

static int ev_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	struct ev_vtab *t = (struct ev_vtab *)cur->pVtab;
	struct mr_reader_opts o = { 0 };
	struct mr_error err = { 0 };
	int a = 0;

	if (idx & 1)
		o.t_from = bound_arg(argv[a++], 0);
	if (idx & 2)
		o.t_to = bound_arg(argv[a++], 1);
	if (idx & 4)
		o.t_to = bound_arg(argv[0], 1);
	mr_reader_close(c->r);
	c->r = NULL;
	c->eof = 0;
	if (mr_reader_open(t->store, &o, &c->r, &err)) {
		sqlite3_free(t->base.zErrMsg);
		t->base.zErrMsg = sqlite3_mprintf("%s", err.msg);
		return SQLITE_ERROR;
	}
	return ev_next(cur);
}

static int ev_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ev_cursor *)cur)->eof;
}

static int ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct mr_event *e = &((struct ev_cursor *)cur)->ev;

	switch (col) {
	case COL_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)e->time); break;
	case COL_KIND: sqlite3_result_text(ctx, mr_event_kind_name(e->kind), -1, SQLITE_STATIC); break;
	case COL_KIND_ID: sqlite3_result_int(ctx, e->kind); break;
	case COL_PAGE:
		if (e->page == MR_PAGE_NONE)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, e->page);
		break;
	case COL_TASK: sqlite3_result_int64(ctx, e->task); break;
	case COL_CPU: sqlite3_result_int(ctx, e->cpu); break;
	case COL_FLAGS: sqlite3_result_int(ctx, e->flags); break;
	case COL_SIZE: sqlite3_result_int64(ctx, e->size); break;
	case COL_ARG: sqlite3_result_int64(ctx, (sqlite3_int64)e->arg); break;
	}
	return SQLITE_OK;
}

static int ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct ev_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module events_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous-only: exists without CREATE VIRTUAL TABLE */
	.xConnect = ev_connect,
	.xBestIndex = ev_best_index,
	.xDisconnect = ev_disconnect,
	.xDestroy = ev_disconnect,
	.xOpen = ev_open,
	.xClose = ev_close,
	.xFilter = ev_filter,
	.xNext = ev_next,
	.xEof = ev_eof,
	.xColumn = ev_column,
	.xRowid = ev_rowid,
};

#ifdef MR_SQLITE_EXTENSION
/* On the host's connection db, reading the store s (closed with the connection). */
int mr_ext_register_vtab(sqlite3 *db, struct mr_store *s);

static void store_close(void *s)
{
	mr_store_close(s);
}

int mr_ext_register_vtab(sqlite3 *db, struct mr_store *s)
{
	return sqlite3_create_module_v2(db, "events", &events_module, s, store_close);
}
#else
int mr_store_register_vtab(struct mr_store *s)
{
	return sqlite3_create_module(s->db, "events", &events_module, s) == SQLITE_OK ? 0 : MR_EIO;
}
#endif
