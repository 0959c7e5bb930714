// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - creating, opening and summarising trace stores (see mr_store.h for the
 * table list). The schema below is version MR_STORE_VERSION; opening refuses files
 * that are not SQLite, carry another application id, or come from a newer format.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr_codec.h"
#include "store_int.h"

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;\n"
	"CREATE TABLE streams(id INTEGER PRIMARY KEY, name TEXT NOT NULL, source TEXT,"
	" cpu INTEGER, lost INTEGER NOT NULL DEFAULT 0);\n"
	"CREATE TABLE cgroups(id INTEGER PRIMARY KEY, path TEXT, memory_max INTEGER);\n"
	"CREATE TABLE mms(id INTEGER PRIMARY KEY, tgid INTEGER, comm TEXT);\n"
	"CREATE TABLE tasks(id INTEGER PRIMARY KEY, pid INTEGER, tgid INTEGER, mm INTEGER,"
	" cgroup INTEGER, comm TEXT, start_ns INTEGER, end_ns INTEGER);\n"
	"CREATE TABLE files(id INTEGER PRIMARY KEY, dev INTEGER, ino INTEGER, path TEXT,"
	" size_pages INTEGER);\n"
	"CREATE TABLE vmas(id INTEGER PRIMARY KEY, mm INTEGER, start INTEGER, \"end\" INTEGER,"
	" flags INTEGER, file INTEGER, pgoff INTEGER, map_ns INTEGER, unmap_ns INTEGER);\n"
	/* type: 0 anon, 1 file, 2 shmem. Anon/shmem keyed by (mm, vpage), file by (file, idx). */
	"CREATE TABLE pages(id INTEGER PRIMARY KEY, type INTEGER NOT NULL, mm INTEGER,"
	" vpage INTEGER, file INTEGER, idx INTEGER, exec INTEGER NOT NULL DEFAULT 0,"
	" node INTEGER, cgroup INTEGER);\n"
	"CREATE TABLE markers(id INTEGER PRIMARY KEY, time_ns INTEGER, text TEXT);\n"
	/* kind_counts: MR_EV_NR_KINDS little-endian u32, events of each kind in the chunk. */
	"CREATE TABLE chunks(id INTEGER PRIMARY KEY, stream INTEGER NOT NULL,"
	" t_first INTEGER NOT NULL, t_last INTEGER NOT NULL, n_events INTEGER NOT NULL,"
	" kind_counts BLOB, payload_bytes INTEGER NOT NULL, crc INTEGER NOT NULL,"
	" data BLOB NOT NULL);\n"
	"CREATE INDEX chunks_stream_time ON chunks(stream, t_first);\n";

int mr_store_sqlerr(struct mr_store *s, int rc, const char *what, struct mr_error *err)
{
	const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	const char *path = s && s->path ? s->path : "?";

	switch (rc & 0xff) {
	case SQLITE_FULL:
		return mr_error_set(err, MR_ENOSPC, "%s: disk full writing %s (%s); everything committed before is kept: free space and retry", what, path, msg);
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return mr_error_set(err, MR_ECORRUPT, "%s: %s is damaged (%s)", what, path, msg);
	case SQLITE_NOMEM:
		return mr_error_set(err, MR_ENOMEM, "%s: out of memory", what);
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return mr_error_set(err, MR_EPERM, "%s: %s is not writable (%s)", what, path, msg);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return mr_error_set(err, MR_EBUSY, "%s: %s is locked by another process (%s)", what, path, msg);
	}
	return mr_error_set(err, MR_EIO, "%s: %s: %s", what, path, msg);
}

static int exec_sql(struct mr_store *s, const char *sql, struct mr_error *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : mr_store_sqlerr(s, rc, "SQL", err);
}

static int pragma_int(struct mr_store *s, const char *pragma, int64_t *v, struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, pragma, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, pragma, err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return mr_store_sqlerr(s, rc, pragma, err);
	return 0;
}

static struct mr_store *store_alloc(const char *path, int mode)
{
	struct mr_store *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->path = strdup(path);
	s->mode = mode;
	if (!s->path) {
		free(s);
		return NULL;
	}
	return s;
}

/* Connection settings both for new and existing stores. WAL + synchronous=NORMAL keeps
 * every committed transaction across a killed process (only power loss may drop the
 * newest ones), which is the guarantee the writer documents. */
static int configure(struct mr_store *s, struct mr_error *err)
{
	sqlite3_busy_timeout(s->db, 2000);
	sqlite3_extended_result_codes(s->db, 1);
	if (s->mode == MR_STORE_RDWR)
		return exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err);
	return 0;
}

/* The WAL and shared-memory files SQLite keeps beside a store. */
static void remove_side_files(const char *path)
{
	for (int i = 0; i < 2; i++) {
		char side[4096];

		snprintf(side, sizeof(side), "%s%s", path, i ? "-shm" : "-wal");
		unlink(side);
	}
}

void mr_store_remove(const char *path)
{
	unlink(path);
	remove_side_files(path);
}

int mr_store_create(const char *path, int overwrite, struct mr_store **out, struct mr_error *err)
{
	struct mr_store *s;
	struct stat sb;
	char sql[256];
	int rc;

	*out = NULL;
	if (!stat(path, &sb)) {
		if (!overwrite)
			return mr_error_set(err, MR_EINVAL, "%s already exists: remove it or choose another output path", path);
		if (!S_ISREG(sb.st_mode))
			return mr_error_set(err, MR_EINVAL, "%s exists and is not a regular file", path);
		if (unlink(path))
			return mr_error_set(err, MR_EIO, "cannot replace %s: %s", path, strerror(errno));
	}
	/* Stale WAL/SHM files of an older store at this path would be replayed into ours. */
	remove_side_files(path);
	s = store_alloc(path, MR_STORE_RDWR);
	if (!s)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = mr_error_set(err, MR_EIO, "cannot create %s: %s", path,
				  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	rc = configure(s, err);
	if (rc)
		goto fail;
	snprintf(sql, sizeof(sql), "BEGIN; PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 (int)MR_STORE_APP_ID, MR_STORE_VERSION);
	rc = exec_sql(s, sql, err);
	if (!rc)
		rc = exec_sql(s, schema_sql, err);
	if (!rc)
		rc = exec_sql(s, "INSERT INTO meta VALUES('format', 'memreplay trace v1'); COMMIT;", err);
	if (rc)
		goto fail;
	s->version = MR_STORE_VERSION;
	*out = s;
	return 0;
fail:
	mr_store_close(s);
	return rc;
}

int mr_store_open(const char *path, int mode, struct mr_store **out, struct mr_error *err)
{
	struct mr_store *s;
	struct stat sb;
	int64_t app = 0, ver = 0, n = 0;
	int rc, flags;

	*out = NULL;
	if (stat(path, &sb))
		return mr_error_set(err, errno == ENOENT ? MR_ENOENT : MR_EIO,
				    "cannot open trace %s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return mr_error_set(err, MR_ENOTSTORE, "%s is not a regular file (expected a memreplay trace .db)", path);
	if (sb.st_size == 0)
		return mr_error_set(err, MR_ENOTSTORE, "%s is empty: not a memreplay trace", path);
	s = store_alloc(path, mode);
	if (!s)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	flags = mode == MR_STORE_RDWR ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	/* one thread at a time uses a store (replay workers never touch it): no mutexes */
	rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = mr_error_set(err, MR_EIO, "cannot open %s: %s", path,
				  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 2000);
	sqlite3_extended_result_codes(s->db, 1);
	rc = pragma_int(s, "PRAGMA application_id", &app, err);
	if (rc) {
		if (rc == MR_ECORRUPT)
			rc = mr_error_set(err, MR_ENOTSTORE, "%s is not a memreplay trace (not an SQLite database)", path);
		goto fail;
	}
	if ((uint32_t)app != MR_STORE_APP_ID) {
		rc = mr_error_set(err, MR_ENOTSTORE,
				  "%s is not a memreplay trace: its SQLite application_id is 0x%08x, a trace has 0x%08x ('MRPL'); record one with `memreplay record` or `memreplay gen`",
				  path, (unsigned)app, MR_STORE_APP_ID);
		goto fail;
	}
	rc = pragma_int(s, "PRAGMA user_version", &ver, err);
	if (rc)
		goto fail;
	if (ver > MR_STORE_VERSION) {
		rc = mr_error_set(err, MR_EVERSION,
				  "%s uses trace format version %lld, newer than this memreplay reads (version %d): upgrade memreplay to read it",
				  path, (long long)ver, MR_STORE_VERSION);
		goto fail;
	}
	if (ver < 1) {
		rc = mr_error_set(err, MR_ECORRUPT, "%s has trace format version %lld, which never existed: the file is damaged", path, (long long)ver);
		goto fail;
	}
	s->version = (int)ver;
	rc = configure(s, err);
	if (rc)
		goto fail;
	rc = pragma_int(s, "SELECT count(*) FROM sqlite_schema WHERE name IN "
			   "('meta','streams','pages','chunks','tasks','files','vmas','mms','cgroups','markers')",
			&n, err);
	if (rc)
		goto fail;
	if (n != 10) {
		rc = mr_error_set(err, MR_ECORRUPT, "%s lacks tables of the version %d trace schema: the file is damaged or was not written by memreplay", path, s->version);
		goto fail;
	}
	if (mr_store_register_vtab(s)) {
		rc = mr_error_set(err, MR_EIO, "%s: cannot register the events table", path);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	mr_store_close(s);
	return rc;
}

void mr_store_close(struct mr_store *s)
{
	if (!s)
		return;
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

const char *mr_store_path(const struct mr_store *s)
{
	return s->path;
}

struct sqlite3 *mr_store_db(struct mr_store *s)
{
	return s->db;
}

int mr_store_meta_get(struct mr_store *s, const char *key, char *buf, size_t cap,
		      struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key=?1", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading metadata", err);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);

		snprintf(buf, cap, "%s", v ? (const char *)v : "");
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = mr_error_set(err, MR_ENOENT, "no metadata '%s' in %s", key, s->path);
	} else {
		rc = mr_store_sqlerr(s, rc, "reading metadata", err);
	}
	sqlite3_finalize(st);
	return rc;
}

static int count_rows(struct mr_store *s, const char *sql, uint64_t *v, struct mr_error *err)
{
	int64_t x = 0;
	int rc = pragma_int(s, sql, &x, err);

	*v = x < 0 ? 0 : (uint64_t)x;
	return rc;
}

int mr_store_summarize(struct mr_store *s, struct mr_store_summary *sum, struct mr_error *err)
{
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int rc;

	memset(sum, 0, sizeof(*sum));
	sum->version = s->version;
	rc = sqlite3_prepare_v2(s->db,
				"SELECT n_events, t_first, t_last, kind_counts, payload_bytes, length(data) FROM chunks",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "summarising chunks", err);
	sum->t_first = UINT64_MAX;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *kc = sqlite3_column_blob(st, 3);
		int kn = sqlite3_column_bytes(st, 3);
		uint64_t t0 = (uint64_t)sqlite3_column_int64(st, 1);
		uint64_t t1 = (uint64_t)sqlite3_column_int64(st, 2);

		sum->n_chunks++;
		sum->n_events += (uint64_t)sqlite3_column_int64(st, 0);
		sum->payload_bytes += (uint64_t)sqlite3_column_int64(st, 4);
		sum->stored_bytes += (uint64_t)sqlite3_column_int64(st, 5);
		if (t0 < sum->t_first)
			sum->t_first = t0;
		if (t1 > sum->t_last)
			sum->t_last = t1;
		for (int k = 0; kc && k < MR_EV_NR_KINDS && (k + 1) * 4 <= kn; k++) {
			uint32_t c;

			memcpy(&c, kc + 4 * k, 4);
			sum->by_kind[k] += le32toh(c);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mr_store_sqlerr(s, rc, "summarising chunks", err);
	if (!sum->n_chunks)
		sum->t_first = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT type, count(*) FROM pages GROUP BY type", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "summarising pages", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		uint64_t c = (uint64_t)sqlite3_column_int64(st, 1);

		if (t >= 0 && t < MR_PAGE_NR_TYPES)
			sum->pages_by_type[t] += c;
		sum->n_pages += c;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mr_store_sqlerr(s, rc, "summarising pages", err);

	if ((rc = count_rows(s, "SELECT count(*) FROM tasks", &sum->n_tasks, err)) ||
	    (rc = count_rows(s, "SELECT count(*) FROM mms", &sum->n_mms, err)) ||
	    (rc = count_rows(s, "SELECT count(*) FROM files", &sum->n_files, err)) ||
	    (rc = count_rows(s, "SELECT count(*) FROM vmas", &sum->n_vmas, err)) ||
	    (rc = count_rows(s, "SELECT count(*) FROM streams", &sum->n_streams, err)) ||
	    (rc = count_rows(s, "SELECT count(*) FROM cgroups", &sum->n_cgroups, err)) ||
	    (rc = count_rows(s, "SELECT coalesce(sum(lost),0) FROM streams", &sum->lost, err)))
		return rc;
	if (!stat(s->path, &sb))
		sum->file_bytes = (uint64_t)sb.st_size;
	return 0;
}

int mr_store_pages_foreach(struct mr_store *s, int (*fn)(const struct mr_page *, void *),
			   void *ctx, struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db,
				    "SELECT id, type, coalesce(mm,0), coalesce(vpage,0), coalesce(file,0),"
				    " coalesce(idx,0), exec, coalesce(node,-1), coalesce(cgroup,0)"
				    " FROM pages ORDER BY id",
				    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading pages", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mr_page p = {
			.id = (uint32_t)sqlite3_column_int64(st, 0),
			.type = (uint8_t)sqlite3_column_int(st, 1),
			.mm = (uint32_t)sqlite3_column_int64(st, 2),
			.vpage = (uint64_t)sqlite3_column_int64(st, 3),
			.file = (uint32_t)sqlite3_column_int64(st, 4),
			.index = (uint64_t)sqlite3_column_int64(st, 5),
			.exec = (uint8_t)sqlite3_column_int(st, 6),
			.node = (int16_t)sqlite3_column_int(st, 7),
			.cgroup = (uint32_t)sqlite3_column_int64(st, 8),
		};
		int r;
		int64_t id = sqlite3_column_int64(st, 0);

		if (id < 0 || id >= MR_PAGE_NONE || p.type >= MR_PAGE_NR_TYPES) {
			sqlite3_finalize(st);
			return mr_error_set(err, MR_ECORRUPT, "%s: page row %lld is invalid (id or type out of range)",
					    s->path, (long long)id);
		}
		r = fn(&p, ctx);
		if (r) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mr_store_sqlerr(s, rc, "reading pages", err);
}
