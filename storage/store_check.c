// SPDX-License-Identifier: GPL-2.0
/*
 * store_check.c - what mr_store_open() checks before anything reads a store.
 *
 * A trace may come from anywhere, so nothing in it is trusted until checked:
 *   - schema: each table the format names is a real table (not a view, a virtual table
 *     or missing) defined exactly as the format defines it, and no object shadows the
 *     `events` virtual table. A view in place of `chunks` made every reader recurse until
 *     the stack overflowed; a redefined table can hold any type in any column.
 *   - rows every reader and the summary take as they are: stream ids, each chunk row
 *     (types and ranges of its columns, and agreement with the header of its blob), and
 *     page ids dense from 0 (replay sizes arrays by the largest id);
 *   - the rows replay builds its machines from: address spaces, tasks and VMAs (types,
 *     ranges, the rows of other tables they name, and a VMA's start below its end).
 * A row that breaks the format is MR_ECORRUPT naming the table, the row and the column.
 * Messages never quote stored text (it may hold terminal escapes); they quote numbers
 * and the format's own names.
 *
 * The checks of each event against these tables (page and VMA ids, time order) are the
 * reader's (reader.c), where the events are decoded anyway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_codec.h"
#include "store_int.h"

#define FIX "the file is damaged or was not written by memreplay: record or generate the trace again"

/* How a stored value that broke a rule is shown: its number, or its type. */
static const char *show_value(sqlite3_stmt *st, int col, char *buf, size_t cap)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		snprintf(buf, cap, "%lld", (long long)sqlite3_column_int64(st, col));
		return buf;
	case SQLITE_FLOAT:
		snprintf(buf, cap, "the real number %g", sqlite3_column_double(st, col));
		return buf;
	case SQLITE_TEXT:
		return "a text value";
	case SQLITE_BLOB:
		return "a blob";
	}
	return "NULL";
}

/* Column col is an integer in [lo, hi]; *v gets it. */
static int int_in(sqlite3_stmt *st, int col, int64_t lo, int64_t hi, int64_t *v)
{
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return 0;
	*v = sqlite3_column_int64(st, col);
	return *v >= lo && *v <= hi;
}

static int bad_row(struct mr_store *s, struct mr_error *err, const char *table, long long row,
		   const char *column, sqlite3_stmt *st, int col, const char *rule)
{
	char v[64];

	return mr_error_set(err, MR_ECORRUPT, "%s: %s row %lld, column %s: %s %s; " FIX, s->path,
			    table, row, column, show_value(st, col, v, sizeof(v)), rule);
}

/* ---- schema ---- */

static const char *object_kind(const unsigned char *type)
{
	static const char *const known[] = { "view", "index", "trigger", "table" };

	for (size_t i = 0; type && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp((const char *)type, known[i]))
			return known[i];
	return "object of another kind";
}

/* The first column where a table's definition differs from the format's, for the message;
 * 0 when the columns agree (then its constraints or WITHOUT ROWID differ). */
static int first_column_diff(sqlite3 *db, sqlite3 *ref, const char *table, char *want,
			     size_t cap)
{
	static const char sql[] = "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)";
	sqlite3_stmt *a = NULL, *b = NULL;
	int col = 0, ra, rb;

	want[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &a, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, sql, -1, &b, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(a, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(b, 1, table, -1, SQLITE_STATIC);
	for (int i = 1;; i++) {
		ra = sqlite3_step(a);
		rb = sqlite3_step(b);
		if (ra != SQLITE_ROW && rb != SQLITE_ROW)
			break;
		if (rb == SQLITE_ROW)
			snprintf(want, cap, "%s %s%s%s", sqlite3_column_text(b, 0), sqlite3_column_text(b, 1),
				 sqlite3_column_int(b, 2) ? " NOT NULL" : "",
				 sqlite3_column_int(b, 3) ? " PRIMARY KEY" : "");
		else
			snprintf(want, cap, "no such column");
		if (ra != SQLITE_ROW || rb != SQLITE_ROW) {
			col = i;
			break;
		}
		for (int k = 0; k < 4; k++) {
			const unsigned char *x = sqlite3_column_text(a, k), *y = sqlite3_column_text(b, k);

			if (!x || !y || sqlite3_stricmp((const char *)x, (const char *)y)) {
				col = i;
				break;
			}
		}
		if (col)
			break;
	}
out:
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	return col;
}

/* One table of the format: its name and its definition as SQLite keeps it in
 * sqlite_schema.sql (the CREATE TABLE statement as written, without its ";"). */
struct table_def {
	char name[32];
	const char *sql;
	size_t len;
};

static int by_table_name(const void *a, const void *b)
{
	return strcmp(((const struct table_def *)a)->name, ((const struct table_def *)b)->name);
}

/* The tables of mr_store_schema_sql in name order, the order they are checked in; their
 * count, or -1 when the schema text is not one statement per ";\n". Read from the text
 * rather than from a database made with it: building one took two thirds of an open. */
static int format_tables(struct table_def *t, int cap)
{
	static const char create[] = "CREATE TABLE ";
	const char *end;
	int n = 0;

	for (const char *p = mr_store_schema_sql; *p; p = end + 2) {
		const char *name = p + sizeof(create) - 1;
		size_t k;

		end = strstr(p, ";\n");
		if (!end)
			return -1;
		if (strncmp(p, create, sizeof(create) - 1))
			continue;
		k = strcspn(name, "( ");
		if (n == cap || k >= sizeof(t[n].name))
			return -1;
		memcpy(t[n].name, name, k);
		t[n].name[k] = '\0';
		t[n].sql = p;
		t[n].len = (size_t)(end - p);
		n++;
	}
	qsort(t, (size_t)n, sizeof(*t), by_table_name);
	return n;
}

/* A table whose definition is not the format's: the message, naming the first column
 * that differs from the format's (read from a database made with the format's schema). */
static int table_differs(struct mr_store *s, const char *name, struct mr_error *err)
{
	sqlite3 *ref = NULL;
	char fmt[128];
	int col = 0;

	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_exec(ref, mr_store_schema_sql, NULL, NULL, NULL) == SQLITE_OK)
		col = first_column_diff(s->db, ref, name, fmt, sizeof(fmt));
	sqlite3_close(ref);
	if (col)
		return mr_error_set(err, MR_ECORRUPT, "%s: table %s, column %d is not the format's (%s): " FIX,
				    s->path, name, col, fmt);
	return mr_error_set(err, MR_ECORRUPT, "%s: table %s is not defined as the format defines it (its constraints differ): " FIX,
			    s->path, name);
}

int mr_store_check_schema(struct mr_store *s, struct mr_error *err)
{
	struct table_def want[16];
	sqlite3_stmt *have = NULL;
	int rc, sqlrc, n = format_tables(want, 16);

	if (n < 0)
		return mr_error_set(err, MR_EINVAL, "%s: the format's schema text is not one statement per line", s->path);
	sqlrc = sqlite3_prepare_v2(s->db, "SELECT type, rootpage, sql FROM sqlite_schema"
				   " WHERE name = ?1 COLLATE NOCASE", -1, &have, NULL);
	if (sqlrc != SQLITE_OK) {
		rc = mr_store_sqlerr(s, sqlrc, "reading the schema", err);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = want[i].name;
		const unsigned char *type, *sql;

		sqlite3_bind_text(have, 1, name, -1, SQLITE_STATIC);
		sqlrc = sqlite3_step(have);
		if (sqlrc == SQLITE_DONE) {
			rc = mr_error_set(err, MR_ECORRUPT, "%s lacks the table %s of the version %d trace schema: " FIX,
					  s->path, name, s->version);
			goto out;
		}
		if (sqlrc != SQLITE_ROW) {
			rc = mr_store_sqlerr(s, sqlrc, "reading the schema", err);
			goto out;
		}
		type = sqlite3_column_text(have, 0);
		sql = sqlite3_column_text(have, 2);
		if (!type || strcmp((const char *)type, "table")) {
			rc = mr_error_set(err, MR_ECORRUPT, "%s: %s is a %s, where a trace has a table: " FIX,
					  s->path, name, object_kind(type));
			goto out;
		}
		if (sqlite3_column_int64(have, 1) <= 0 || (sql && !sqlite3_strnicmp((const char *)sql, "CREATE VIRTUAL", 14))) {
			rc = mr_error_set(err, MR_ECORRUPT, "%s: %s is a virtual table, where a trace has a table: " FIX,
					  s->path, name);
			goto out;
		}
		if (!sql || strncmp((const char *)sql, want[i].sql, want[i].len) || sql[want[i].len]) {
			rc = table_differs(s, name, err);
			goto out;
		}
		sqlite3_reset(have);
	}
	/* A table `events` in the file would be read instead of the events of the chunks. */
	sqlite3_finalize(have);
	have = NULL;
	sqlrc = sqlite3_prepare_v2(s->db, "SELECT type FROM sqlite_schema WHERE name COLLATE NOCASE"
				   " IN ('events', 'mr_page_batch')", -1, &have, NULL);
	if (sqlrc == SQLITE_OK)
		sqlrc = sqlite3_step(have);
	if (sqlrc == SQLITE_ROW) {
		rc = mr_error_set(err, MR_ECORRUPT, "%s: a %s named events would hide the events of the trace: " FIX,
				  s->path, object_kind(sqlite3_column_text(have, 0)));
		goto out;
	}
	rc = sqlrc == SQLITE_DONE ? 0 : mr_store_sqlerr(s, sqlrc, "reading the schema", err);
out:
	sqlite3_finalize(have);
	return rc;
}

/* ---- rows ---- */

/* Stream ids are 0, 1, ... in order (the writer's call order), so they index arrays. */
static int check_streams(struct mr_store *s, struct mr_error *err)
{
	sqlite3_stmt *st;
	int64_t v, n = 0;
	int rc = sqlite3_prepare_v2(s->db, "SELECT id, lost FROM streams ORDER BY id", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading streams", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id != n || n >= MR_STORE_MAX_STREAMS) {
			rc = bad_row(s, err, "streams", (long long)id, "id", st, 0,
				     "is out of order: stream ids are 0, 1, 2, ... (at most 2^20 streams)");
			goto out;
		}
		if (!int_in(st, 1, 0, INT64_MAX, &v)) {
			rc = bad_row(s, err, "streams", (long long)id, "lost", st, 1,
				     "is not a count of lost events (an integer, 0 or more)");
			goto out;
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		rc = mr_store_sqlerr(s, rc, "reading streams", err);
		goto out;
	}
	s->n_streams = (uint32_t)n;
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

enum { CK_ID, CK_STREAM, CK_T_FIRST, CK_T_LAST, CK_N_EVENTS, CK_KIND_COUNTS, CK_PAYLOAD, CK_CRC,
       CK_DATA_TYPE, CK_DATA_LEN };

/* One chunk row's columns against the format; the blob's header against the row. */
static int check_chunk_row(struct mr_store *s, sqlite3_stmt *st, sqlite3_blob **blob,
			   struct mr_error *err)
{
	int64_t id = sqlite3_column_int64(st, CK_ID), v, t_first, n_events, payload, crc;
	const unsigned char *kc;
	uint8_t head[MR_CHUNK_HEADER_SIZE];
	struct mr_chunk_info info;
	struct mr_error why = { 0 };
	uint64_t sum = 0;
	int kn, rc;

	if (!int_in(st, CK_ID, 1, MR_STORE_MAX_CHUNK_ID, &v))
		return bad_row(s, err, "chunks", (long long)id, "id", st, CK_ID, "is not a chunk id (1 .. 2^47-1)");
	if (!int_in(st, CK_STREAM, 0, (int64_t)s->n_streams - 1, &v))
		return mr_error_set(err, MR_ECORRUPT, "%s: chunks row %lld, column stream: %s is not the id of a row of streams (which has %u rows): " FIX,
				    s->path, (long long)id, show_value(st, CK_STREAM, (char[64]){ 0 }, 64), s->n_streams);
	if (!int_in(st, CK_T_FIRST, 0, INT64_MAX, &t_first))
		return bad_row(s, err, "chunks", (long long)id, "t_first", st, CK_T_FIRST, "is not a time (0 .. 2^63-1 ns)");
	if (!int_in(st, CK_T_LAST, t_first, INT64_MAX, &v))
		return bad_row(s, err, "chunks", (long long)id, "t_last", st, CK_T_LAST, "is not a time at or after t_first (0 .. 2^63-1 ns)");
	if (!int_in(st, CK_N_EVENTS, 1, MR_CHUNK_MAX_EVENTS, &n_events))
		return bad_row(s, err, "chunks", (long long)id, "n_events", st, CK_N_EVENTS, "is not a chunk size (1 .. 65536 events)");
	kc = sqlite3_column_blob(st, CK_KIND_COUNTS);
	kn = sqlite3_column_bytes(st, CK_KIND_COUNTS);
	if (sqlite3_column_type(st, CK_KIND_COUNTS) != SQLITE_NULL) {
		if (sqlite3_column_type(st, CK_KIND_COUNTS) != SQLITE_BLOB || kn % 4 ||
		    kn > 4 * MR_EV_NR_KINDS)
			return bad_row(s, err, "chunks", (long long)id, "kind_counts", st, CK_KIND_COUNTS,
				       "is not a list of 32-bit counts, one per event kind");
		for (int k = 0; k < kn / 4; k++)
			sum += (uint64_t)kc[4 * k] | (uint64_t)kc[4 * k + 1] << 8 |
			       (uint64_t)kc[4 * k + 2] << 16 | (uint64_t)kc[4 * k + 3] << 24;
		if (sum != (uint64_t)n_events)
			return mr_error_set(err, MR_ECORRUPT, "%s: chunks row %lld, column kind_counts: the counts add up to %llu events where n_events is %lld: " FIX,
					    s->path, (long long)id, (unsigned long long)sum, (long long)n_events);
	}
	if (!int_in(st, CK_PAYLOAD, 0, UINT32_MAX, &payload))
		return bad_row(s, err, "chunks", (long long)id, "payload_bytes", st, CK_PAYLOAD, "is not a payload size (0 .. 2^32-1 bytes)");
	if (!int_in(st, CK_CRC, 0, UINT32_MAX, &crc))
		return bad_row(s, err, "chunks", (long long)id, "crc", st, CK_CRC, "is not a CRC-32C (0 .. 2^32-1)");
	if (strcmp((const char *)sqlite3_column_text(st, CK_DATA_TYPE), "blob") ||
	    sqlite3_column_int64(st, CK_DATA_LEN) < MR_CHUNK_HEADER_SIZE)
		return mr_error_set(err, MR_ECORRUPT, "%s: chunks row %lld, column data: not a chunk blob (a %s of %lld bytes; a chunk has at least %d): " FIX,
				    s->path, (long long)id, sqlite3_column_text(st, CK_DATA_TYPE),
				    (long long)sqlite3_column_int64(st, CK_DATA_LEN), MR_CHUNK_HEADER_SIZE);
	/* The header only (the first page of the blob): the rest is checked when decoded. */
	rc = *blob ? sqlite3_blob_reopen(*blob, id) :
		     sqlite3_blob_open(s->db, "main", "chunks", "data", id, 0, blob);
	if (rc == SQLITE_OK)
		rc = sqlite3_blob_read(*blob, head, sizeof(head), 0);
	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading a chunk header", err);
	if (mr_chunk_peek(head, sizeof(head), &info, &why))
		return mr_error_set(err, MR_ECORRUPT, "%s: chunks row %lld, column data: %s: " FIX, s->path,
				    (long long)id, why.msg);
	if (info.n_events != n_events || info.payload_len != payload || info.crc != crc)
		return mr_error_set(err, MR_ECORRUPT, "%s: chunks row %lld, column %s: the row says %lld where the chunk's header says %u: " FIX,
				    s->path, (long long)id,
				    info.n_events != n_events ? "n_events" : info.payload_len != payload ? "payload_bytes" : "crc",
				    (long long)(info.n_events != n_events ? n_events : info.payload_len != payload ? payload : crc),
				    info.n_events != n_events ? info.n_events : info.payload_len != payload ? info.payload_len : info.crc);
	return 0;
}

static int check_chunks(struct mr_store *s, struct mr_error *err)
{
	sqlite3_stmt *st;
	sqlite3_blob *blob = NULL;
	int rc = sqlite3_prepare_v2(s->db, "SELECT id, stream, t_first, t_last, n_events, kind_counts,"
				    " payload_bytes, crc, typeof(data), length(data) FROM chunks ORDER BY id",
				    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading chunks", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = check_chunk_row(s, st, &blob, err);
		if (rc)
			goto out;
	}
	rc = rc == SQLITE_DONE ? 0 : mr_store_sqlerr(s, rc, "reading chunks", err);
out:
	sqlite3_blob_close(blob);
	sqlite3_finalize(st);
	return rc;
}

/* Page ids are 0 .. n-1: the replayer indexes arrays by them, sized by the largest. */
static int check_page_ids(struct mr_store *s, struct mr_error *err)
{
	sqlite3_stmt *st;
	int64_t n = 0, lo = 0, hi = -1, bad;
	int rc = sqlite3_prepare_v2(s->db, "SELECT count(*), coalesce(min(id), 0), coalesce(max(id), -1)"
				    " FROM pages", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading pages", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		n = sqlite3_column_int64(st, 0);
		lo = sqlite3_column_int64(st, 1);
		hi = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return mr_store_sqlerr(s, rc, "reading pages", err);
	if (lo == 0 && hi == n - 1 && n < MR_PAGE_NONE) {
		s->n_pages = (uint32_t)n;
		return 0;
	}
	bad = lo < 0 ? lo : hi;
	return mr_error_set(err, MR_ECORRUPT, "%s: pages row %lld, column id: page ids are dense from 0 (pages has %lld rows, so ids 0 .. %lld), and %lld is not: " FIX,
			    s->path, (long long)bad, (long long)n, (long long)n - 1, (long long)bad);
}

/*
 * ---- address spaces, tasks and VMAs ----
 *
 * The replayer builds its page tables, task and VMA arrays from these rows, and used to
 * pass over a row it could not use: a VMA of an unknown mm or file, or with start >= end,
 * left its pages to derived VMAs and its MAP events to nothing, with no word said. Rows
 * of one mm may overlap in address: a range mapped again after an munmap is a new row,
 * and the MAP and UNMAP events say which row is mapped when.
 */

/* A column: an integer in [lo, hi]; with exists >= 0, also the id of a row of another
 * table (the query's column exists is 1 when it is), where zero_ok lets 0 mean none. */
struct col_rule {
	const char *name;
	int64_t lo, hi;
	int exists;
	int zero_ok;
	const char *rule;
};

#define TIME_NS(col, what) { col, 0, INT64_MAX, -1, 0, "is not a time (0 .. 2^63-1 ns" what ")" }

/* Every row of one query against its rules, then against check (relations between
 * columns; may be NULL). Column 0 is the row's id. */
static int check_table(struct mr_store *s, const char *table, const char *sql,
		       const struct col_rule *cols, int ncols,
		       int (*check)(struct mr_store *, sqlite3_stmt *, struct mr_error *),
		       struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, table, err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = (long long)sqlite3_column_int64(st, 0);

		for (int i = 0; i < ncols; i++) {
			const struct col_rule *c = &cols[i];
			int64_t v;

			if (!int_in(st, i, c->lo, c->hi, &v) ||
			    (c->exists >= 0 && !(c->zero_ok && v == 0) && !sqlite3_column_int(st, c->exists))) {
				rc = bad_row(s, err, table, id, c->name, st, i, c->rule);
				goto out;
			}
		}
		if (check && (rc = check(s, st, err)))
			goto out;
	}
	rc = rc == SQLITE_DONE ? 0 : mr_store_sqlerr(s, rc, table, err);
out:
	sqlite3_finalize(st);
	return rc;
}

static int check_mms(struct mr_store *s, struct mr_error *err)
{
	static const struct col_rule cols[] = {
		{ "id", 1, UINT32_MAX - 1, -1, 0, "is not an address space id (1 .. 2^32-2)" },
		{ "tgid", INT32_MIN, INT32_MAX, -1, 0, "is not a process id (a 32-bit integer)" },
	};

	return check_table(s, "mms", "SELECT id, tgid FROM mms ORDER BY id", cols, 2, NULL, err);
}

static int check_tasks(struct mr_store *s, struct mr_error *err)
{
	static const struct col_rule cols[] = {
		{ "id", 1, UINT32_MAX, -1, 0, "is not a task id (1 .. 2^32-1; 0 in events means unknown)" },
		{ "pid", INT32_MIN, INT32_MAX, -1, 0, "is not a process id (a 32-bit integer)" },
		{ "tgid", INT32_MIN, INT32_MAX, -1, 0, "is not a process id (a 32-bit integer)" },
		{ "mm", 0, UINT32_MAX, 7, 1, "is neither 0 (no address space) nor the id of a row of mms" },
		{ "cgroup", 0, UINT32_MAX, 8, 1, "is neither 0 (unknown) nor the id of a row of cgroups" },
		TIME_NS("start_ns", ""),
		TIME_NS("end_ns", "; 0: running at the end of the trace"),
	};

	return check_table(s, "tasks", "SELECT id, pid, tgid, mm, cgroup, start_ns, end_ns,"
			   " EXISTS(SELECT 1 FROM mms WHERE mms.id = t.mm),"
			   " EXISTS(SELECT 1 FROM cgroups WHERE cgroups.id = t.cgroup)"
			   " FROM tasks AS t ORDER BY id", cols, 7, NULL, err);
}

enum { VM_ID, VM_MM, VM_START, VM_END, VM_FLAGS, VM_FILE, VM_PGOFF, VM_MAP, VM_UNMAP, VM_NR };

/* [start, end) as unsigned addresses (the columns hold their bits), whole pages once end
 * is rounded up; unmapped no earlier than mapped. */
static int check_vma_range(struct mr_store *s, sqlite3_stmt *st, struct mr_error *err)
{
	uint64_t start = (uint64_t)sqlite3_column_int64(st, VM_START);
	uint64_t end = (uint64_t)sqlite3_column_int64(st, VM_END);
	int64_t map = sqlite3_column_int64(st, VM_MAP), unmap = sqlite3_column_int64(st, VM_UNMAP);
	long long id = (long long)sqlite3_column_int64(st, VM_ID);

	if (end <= start || end > UINT64_MAX - 4095)
		return bad_row(s, err, "vmas", id, "end", st, VM_END,
			       "is not an address above start (both unsigned 64-bit, end at most 2^64-4096)");
	if (unmap && unmap < map)
		return bad_row(s, err, "vmas", id, "unmap_ns", st, VM_UNMAP,
			       "is before map_ns (it is 0, mapped to the end, or a time at or after map_ns)");
	return 0;
}

static int check_vmas(struct mr_store *s, struct mr_error *err)
{
	static const struct col_rule cols[VM_NR] = {
		[VM_ID] = { "id", 1, INT32_MAX, -1, 0, "is not a VMA id (1 .. 2^31-1)" },
		[VM_MM] = { "mm", 1, UINT32_MAX, VM_NR, 0, "is not the id of a row of mms" },
		[VM_START] = { "start", INT64_MIN, INT64_MAX, -1, 0, "is not an address (an integer)" },
		[VM_END] = { "end", INT64_MIN, INT64_MAX, -1, 0, "is not an address (an integer)" },
		[VM_FLAGS] = { "flags", 0, UINT32_MAX, -1, 0, "is not a set of MR_VMA_* flags (0 .. 2^32-1)" },
		[VM_FILE] = { "file", 0, UINT32_MAX, VM_NR + 1, 1, "is neither 0 (anonymous) nor the id of a row of files" },
		[VM_PGOFF] = { "pgoff", 0, INT64_MAX, -1, 0, "is not a page offset (0 or more)" },
		[VM_MAP] = TIME_NS("map_ns", ""),
		[VM_UNMAP] = TIME_NS("unmap_ns", "; 0: mapped to the end of the trace"),
	};

	return check_table(s, "vmas", "SELECT id, mm, start, \"end\", flags, file, pgoff, map_ns, unmap_ns,"
			   " EXISTS(SELECT 1 FROM mms WHERE mms.id = v.mm),"
			   " EXISTS(SELECT 1 FROM files WHERE files.id = v.file)"
			   " FROM vmas AS v ORDER BY id", cols, VM_NR, check_vma_range, err);
}

int mr_store_check_rows(struct mr_store *s, struct mr_error *err)
{
	int rc = check_streams(s, err);

	if (!rc)
		rc = check_chunks(s, err);
	if (!rc)
		rc = check_page_ids(s, err);
	if (!rc)
		rc = check_mms(s, err);
	if (!rc)
		rc = check_tasks(s, err);
	if (!rc)
		rc = check_vmas(s, err);
	return rc;
}
