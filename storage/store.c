// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - creating, opening and summarising trace stores (see mr_store.h for the
 * table list). The schema below is version MR_STORE_VERSION; opening refuses files
 * that are not SQLite, carry another application id, or come from a newer format.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr_codec.h"
#include "store_int.h"

const char mr_store_schema_sql[] =
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

	/* a write the file system refused for want of space can surface as an I/O error
	 * (tmpfs: a page SQLite extends the file by) */
	if ((rc & 0xff) == SQLITE_IOERR && s && s->db &&
	    (sqlite3_system_errno(s->db) == ENOSPC || sqlite3_system_errno(s->db) == EDQUOT))
		rc = SQLITE_FULL;
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

int mr_store_harden(sqlite3 *db)
{
	/* Off: functions and virtual tables used from the schema unless marked innocuous
	 * (a hostile file's views, indexes or CHECKs cannot call ours), triggers, views (a
	 * trace has none: a view where a table belongs recursed until the stack overflowed),
	 * extension loading. */
	static const int off[] = { SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
				   SQLITE_DBCONFIG_ENABLE_VIEW, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION };
	int v = 0;

	/* Defensive: no writes to sqlite_schema or the file header through SQL, no
	 * journal_mode=OFF: nothing run on the connection can damage the file itself. */
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &v) != SQLITE_OK || v != 1)
		return MR_EIO;
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (sqlite3_db_config(db, off[i], 0, &v) != SQLITE_OK || v != 0)
			return MR_EIO;
	return 0;
}

/* Connection settings both for new and existing stores. WAL + synchronous=NORMAL keeps
 * every committed transaction across a killed process (only power loss may drop the
 * newest ones), which is the guarantee the writer documents. */
static int configure(struct mr_store *s, struct mr_error *err)
{
	sqlite3_busy_timeout(s->db, 2000);
	sqlite3_extended_result_codes(s->db, 1);
	if (mr_store_harden(s->db))
		return mr_error_set(err, MR_EIO, "%s: cannot put the SQLite connection in defensive mode", s->path);
	if (s->mode == MR_STORE_RDWR)
		return exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err);
	return 0;
}

/* The WAL and shared-memory files SQLite keeps beside a store. */
static void remove_side_files(const char *path)
{
	for (int i = 0; i < 2; i++) {
		char side[4096 + 64];

		snprintf(side, sizeof(side), "%s%s", path, i ? "-shm" : "-wal");
		unlink(side);
	}
}

/* A trace is made at its path, never through a symbolic link: a dangling one's target
 * would be created, a live one's file replaced. */
static int symlink_error(const char *path, struct mr_error *err)
{
	return mr_error_set(err, MR_EINVAL, "%s is a symbolic link: give the path of the trace file itself", path);
}

void mr_store_remove(const char *path)
{
	unlink(path);
	remove_side_files(path);
}

int mr_store_leave_wal(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rc = sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "delete") ? SQLITE_BUSY : SQLITE_OK;
	sqlite3_finalize(st);
	return rc;
}

/* Whether the store holds nothing recorded: no chunk, never finished; else MR_EINVAL. */
static int check_empty(struct mr_store *s, const char *keep, struct mr_error *err)
{
	sqlite3_stmt *st;
	int64_t chunks = -1, done = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT (SELECT count(*) FROM chunks),"
			       " (SELECT count(*) FROM meta WHERE key = 'complete')", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		chunks = sqlite3_column_int64(st, 0);
		done = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (chunks < 0)
		return mr_error_set(err, MR_EINVAL, "%s already exists and cannot be read (%s): %s", s->path,
				    sqlite3_errmsg(s->db), keep);
	if (chunks || done)
		return mr_error_set(err, MR_EINVAL, "%s already exists and holds a %s trace (%lld chunks of events): %s",
				    s->path, done ? "finished" : "recorded", (long long)chunks, keep);
	return 0;
}

/*
 * Read-only first: a finished trace opened for writing would be put back in WAL mode.
 * Whether no other connection has the store open is what SQLite answers when asked to
 * leave WAL mode (as mr_writer_finish() does): every connection to a WAL-mode file holds
 * a shared lock on it, a writer's until it closes. Then, in rollback mode, an exclusive
 * lock keeps any new reader or writer out while the file is checked once more and
 * removed.
 */
int mr_store_remove_abandoned(const char *path, struct mr_error *err)
{
	static const char keep[] = "remove it, choose another output path, or give --force to replace it";
	struct mr_error why = { 0 };
	struct mr_store *s = NULL;
	struct stat sb;
	int rc;

	if (lstat(path, &sb))
		return mr_error_set(err, errno == ENOENT ? MR_ENOENT : MR_EIO, "%s: %s", path, strerror(errno));
	if (S_ISLNK(sb.st_mode))
		return symlink_error(path, err);
	if (!S_ISREG(sb.st_mode))
		return mr_error_set(err, MR_EINVAL, "%s already exists and is not a regular file: %s", path, keep);
	rc = mr_store_open(path, MR_STORE_RDONLY, &s, &why);
	if (!rc) {
		rc = check_empty(s, keep, err);
		mr_store_close(s);
		s = NULL;
		if (rc)
			return rc;
		rc = mr_store_open(path, MR_STORE_RDWR, &s, &why);
	}
	if (rc)
		return mr_error_set(err, MR_EINVAL, "%s already exists and is not a trace memreplay may replace (%.300s): %s",
				    path, why.msg, keep);
	sqlite3_busy_timeout(s->db, 0); /* ask once: a live writer is not kept waiting */
	if (mr_store_leave_wal(s->db) != SQLITE_OK ||
	    sqlite3_exec(s->db, "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK) {
		rc = mr_error_set(err, MR_EBUSY, "%s already exists and another process has it open (a recording still running?): %s",
				  path, keep);
		goto out;
	}
	rc = check_empty(s, keep, err);
	if (!rc && unlink(path))
		rc = mr_error_set(err, errno == EACCES || errno == EROFS ? MR_EPERM : MR_EIO,
				  "%s: an empty trace a killed recording left, which cannot be removed: %s", path, strerror(errno));
	if (!rc)
		remove_side_files(path);
out:
	mr_store_close(s);
	return rc;
}

/*
 * PATH.tmp-PID-N files (and their -wal, -shm, -journal) that a creation killed before its
 * rename left, whose process is gone: nothing recorded is ever in one (a store is renamed
 * into place before its first event), and each such kill left one more beside the trace.
 * A live PID's (its creation may be under way), or another user's (kill() says EPERM),
 * stay.
 */
static void remove_stale_temps(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	char dir[4096];
	struct dirent *e;
	DIR *d;

	if ((size_t)snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 2,
			     slash ? path : "./") >= sizeof(dir))
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		const char *p = e->d_name + blen + 5;
		char *end, full[4096 + 256];
		long pid;

		if (strncmp(e->d_name, base, blen) || strncmp(e->d_name + blen, ".tmp-", 5) ||
		    *p < '1' || *p > '9')
			continue;
		pid = strtol(p, &end, 10);
		if (pid > INT32_MAX || *end != '-' || end[1] < '0' || end[1] > '9')
			continue;
		strtoul(end + 1, &end, 10);
		if (*end && strcmp(end, "-wal") && strcmp(end, "-shm") && strcmp(end, "-journal"))
			continue;
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		if ((size_t)snprintf(full, sizeof(full), "%s%s", dir, e->d_name) < sizeof(full))
			unlink(full);
	}
	if (d)
		closedir(d);
}

/* A name beside path that no one else uses, created empty: the store is built there and
 * renamed to path once it is valid. */
static int create_temp(const char *path, char *tmp, size_t cap, struct mr_error *err)
{
	remove_stale_temps(path);
	for (unsigned i = 0; i < 100; i++) {
		int fd;

		if ((size_t)snprintf(tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(), i) >= cap)
			return mr_error_set(err, MR_EINVAL, "path too long: %s", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			remove_side_files(tmp);
			return 0;
		}
		if (errno != EEXIST)
			return mr_error_set(err, errno == EACCES || errno == EROFS ? MR_EPERM : MR_EIO,
					    "cannot create %s: %s", tmp, strerror(errno));
	}
	return mr_error_set(err, MR_EIO, "cannot create a temporary file beside %s", path);
}

/* Move the finished temporary store to path: over an old store with overwrite, else only
 * if path still does not exist (link fails with EEXIST where rename would replace). */
static int publish(const char *tmp, const char *path, int overwrite, struct mr_error *err)
{
	if (!overwrite) {
		if (!link(tmp, path)) {
			unlink(tmp);
			return 0;
		}
		if (errno == EEXIST)
			return mr_error_set(err, MR_EINVAL, "%s already exists: remove it or choose another output path", path);
		/* no hard links on this file system: rename, having checked the name is free */
		if (!access(path, F_OK))
			return mr_error_set(err, MR_EINVAL, "%s already exists: remove it or choose another output path", path);
	}
	/* An old store's WAL beside path would be applied to the new file. */
	remove_side_files(path);
	if (rename(tmp, path))
		return mr_error_set(err, MR_EIO, "cannot create %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The new store is written in full (application id, version, schema, one transaction in
 * rollback-journal mode) under a temporary name, closed and renamed into place, and only
 * then reopened in WAL mode, so a process killed at any moment leaves either no file at
 * path or a valid empty store (never one with application_id 0). It is not renamed while
 * open because SQLite names the WAL after the path it opened. A kill before the rename
 * leaves PATH.tmp-PID-N behind. The temporary file is written with synchronous=OFF: a
 * killed process loses nothing SQLite wrote (the kernel has it), and the five
 * fdatasync() calls of the journal dance were a third of `record -- /bin/true`'s wall on
 * a loaded disk; only a crash of the host itself can lose an empty store made just
 * before it. The reopened connection syncs as configure() says, and the finished trace
 * is checkpointed durably (writer.c).
 */
int mr_store_create(const char *path, int overwrite, struct mr_store **out, struct mr_error *err)
{
	struct mr_store *s = NULL;
	struct stat sb;
	char tmp[4096 + 32], sql[256];
	int rc;

	*out = NULL;
	/* lstat: through a symbolic link the store would be made wherever it points (a
	 * dangling one's target created, a live one's file replaced with overwrite) */
	if (!lstat(path, &sb)) {
		if (S_ISLNK(sb.st_mode))
			return symlink_error(path, err);
		if (!overwrite)
			return mr_error_set(err, MR_EINVAL, "%s already exists: remove it or choose another output path", path);
		if (!S_ISREG(sb.st_mode))
			return mr_error_set(err, MR_EINVAL, "%s exists and is not a regular file", path);
	}
	rc = create_temp(path, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	s = store_alloc(tmp, MR_STORE_RDWR);
	if (!s) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto fail;
	}
	rc = sqlite3_open_v2(tmp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = mr_error_set(err, MR_EIO, "cannot create %s: %s", tmp,
				  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	if (mr_store_harden(s->db)) {
		rc = mr_error_set(err, MR_EIO, "%s: cannot put the SQLite connection in defensive mode", tmp);
		goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA synchronous=OFF; BEGIN; PRAGMA application_id=%d; "
		 "PRAGMA user_version=%d;",
		 (int)MR_STORE_APP_ID, MR_STORE_VERSION);
	rc = exec_sql(s, sql, err);
	if (!rc)
		rc = exec_sql(s, mr_store_schema_sql, err);
	if (!rc)
		rc = exec_sql(s, "INSERT INTO meta VALUES('format', 'memreplay trace v1'); COMMIT;", err);
	/* WAL mode is kept in the file; switching here, not at path, leaves no hot journal
	 * at path if killed during the switch */
	if (!rc)
		rc = exec_sql(s, "PRAGMA journal_mode=WAL", err);
	if (rc)
		goto fail;
	sqlite3_close_v2(s->db);
	s->db = NULL;
	rc = publish(tmp, path, overwrite, err);
	if (rc)
		goto fail;
	free(s->path);
	s->path = strdup(path);
	if (!s->path) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto fail_published;
	}
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = mr_error_set(err, MR_EIO, "cannot open %s: %s", path,
				  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail_published;
	}
	rc = configure(s, err);
	if (rc)
		goto fail_published;
	s->version = MR_STORE_VERSION;
	*out = s;
	return 0;
fail:
	unlink(tmp);
	remove_side_files(tmp);
	mr_store_close(s);
	return rc;
fail_published:
	/* a valid empty store is at path; the caller could not use it, so it goes */
	mr_store_close(s);
	mr_store_remove(path);
	return rc;
}

/* SQLite's file header: the fields read before SQLite opens the file. */
struct db_header {
	uint32_t page_size;
	int wal;     /* file format bytes say WAL mode */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The first n bytes of a file (n >= 100 needed) as a header, or MR_ENOTSTORE. */
static int parse_header(const char *path, const unsigned char *b, size_t n, struct db_header *h,
			struct mr_error *err)
{
	if (n < 100 || memcmp(b, "SQLite format 3", 16))
		return mr_error_set(err, MR_ENOTSTORE, "%s is not a memreplay trace (not an SQLite database)", path);
	h->page_size = (uint32_t)b[16] << 8 | b[17];
	if (h->page_size == 1)
		h->page_size = 65536;
	h->wal = b[18] == 2 || b[19] == 2;
	return 0;
}

static int read_header(const char *path, struct db_header *h, struct mr_error *err)
{
	unsigned char b[100];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return mr_error_set(err, errno == EACCES ? MR_EPERM : MR_EIO, "cannot open trace %s: %s",
				    path, strerror(errno));
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	return parse_header(path, b, n < 0 ? 0 : (size_t)n, h, err);
}

/*
 * A hot -journal beside the store: the one memreplay can leave is that of the writer's
 * last transaction, leaving WAL mode (mr_writer_finish()) when killed during it, which
 * holds page 1 alone and the main file is whole without it (the WAL was checkpointed
 * first). Anything else is another program's change, which SQLite would roll into the
 * file. Returns 1 for ours, 0 for another's.
 */
static int journal_is_ours(int fd, off_t size, uint32_t page_size)
{
	static const unsigned char magic[8] = { 0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7 };
	unsigned char h[28], rec[4], app[4];
	uint32_t sector;

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, magic, 8) ||
	    be32(h + 24) != page_size)
		return 0;
	sector = be32(h + 20);
	if (sector < 32 || sector > 65536)
		return 0;
	for (off_t at = sector; at + 4 <= size; at += 4 + (off_t)page_size + 4) {
		if (pread(fd, rec, 4, at) != 4 || be32(rec) != 1)
			return 0;
		if (pread(fd, app, 4, at + 4 + 68) == 4 && be32(app) != MR_STORE_APP_ID)
			return 0;
	}
	return 1;
}

/*
 * SQLite applies a -wal file beside a database whatever wrote it, even to a database in
 * rollback mode, and rolls a hot -journal back into it. memreplay never leaves a WAL
 * beside a finished trace (which is in rollback mode), and its WAL frames of page 1 carry
 * the trace's application id. Refuse what cannot be this trace's:
 *   - a non-empty -journal that is not the writer's own (journal_is_ours());
 *   - a non-empty -wal beside a file in rollback mode;
 *   - a WAL whose page size differs, or with a page 1 of another application id.
 * *wal_bytes gets the WAL's size (0 when absent); *own_journal is set when the writer's
 * own journal is there: then the file is read as it is, without it (read-only
 * connections cannot roll it back, and rolling back would write the file).
 */
static int check_side_files(const char *path, const struct db_header *h, off_t *wal_bytes,
			    int *own_journal, struct mr_error *err)
{
	char side[4096 + 16];
	unsigned char wh[32], fh[24], app[4];
	struct stat sb;
	uint32_t ps;
	int fd, rc = 0;

	*wal_bytes = 0;
	*own_journal = 0;
	snprintf(side, sizeof(side), "%s-journal", path);
	if (!stat(side, &sb) && sb.st_size > 0 && (fd = open(side, O_RDONLY | O_CLOEXEC)) >= 0) {
		unsigned char first = 0;
		int hot;

		/* SQLite writes the header's magic last: a journal starting with 0 is not hot
		 * (nothing to roll back) and SQLite passes it by */
		hot = pread(fd, &first, 1, 0) == 1 && first;
		*own_journal = hot && journal_is_ours(fd, sb.st_size, h->page_size);
		close(fd);
		if (hot && !*own_journal)
			return mr_error_set(err, MR_ECORRUPT,
					    "%s has a rollback journal beside it (%s, %lld bytes) that memreplay did not write: an interrupted change by another program, which SQLite would roll into the trace. Move it away to read the trace as it is, or let that program finish",
					    path, side, (long long)sb.st_size);
	}
	snprintf(side, sizeof(side), "%s-wal", path);
	if (stat(side, &sb) || sb.st_size == 0)
		return 0;
	*wal_bytes = sb.st_size;
	if (!h->wal && !*own_journal)
		return mr_error_set(err, MR_ECORRUPT,
				    "%s is a finished trace (rollback mode) but has a write-ahead log beside it (%s, %lld bytes) that it did not write and SQLite would apply: move %s away to read the trace as it was finished",
				    path, side, (long long)sb.st_size, side);
	fd = open(side, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* SQLite reports what it cannot read */
	if (pread(fd, wh, sizeof(wh), 0) != (ssize_t)sizeof(wh) ||
	    (be32(wh) & ~1u) != 0x377f0682u)
		goto out; /* no valid WAL header: SQLite ignores the file */
	ps = be32(wh + 8);
	if (ps != h->page_size) {
		rc = mr_error_set(err, MR_ECORRUPT,
				  "%s: the write-ahead log beside it (%s) has %u-byte pages where the trace has %u: it is another database's; move it away to read the trace",
				  path, side, ps, h->page_size);
		goto out;
	}
	for (off_t at = 32; at + 24 + ps <= (off_t)sb.st_size; at += 24 + ps) {
		if (pread(fd, fh, sizeof(fh), at) != (ssize_t)sizeof(fh) || memcmp(fh + 8, wh + 16, 8))
			break; /* salts differ: the frames after this are not part of the log */
		if (be32(fh) != 1)
			continue;
		if (pread(fd, app, 4, at + 24 + 68) == 4 && be32(app) != MR_STORE_APP_ID) {
			rc = mr_error_set(err, MR_ECORRUPT,
					  "%s: the write-ahead log beside it (%s) holds a first page with application_id 0x%08x, not a trace's: it is another database's; move it away to read the trace",
					  path, side, be32(app));
			goto out;
		}
	}
out:
	close(fd);
	return rc;
}

/* "file:" URI for path with the query string q (the characters URIs reserve escaped). */
static void path_uri(const char *path, const char *q, char *buf, size_t cap)
{
	size_t k = (size_t)snprintf(buf, cap, "file:%s", path[0] == '/' ? "//" : "");

	for (const char *p = path; *p && k + 4 < cap; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			k += (size_t)snprintf(buf + k, cap - k, "%%%02X", (unsigned char)*p);
		else
			buf[k++] = *p;
	}
	buf[k] = '\0';
	snprintf(buf + k, cap - k, "?%s", q);
}

/* The first read of the file (the application id), which is also where SQLite finds out
 * whether it can read a WAL-mode file at all. */
static int read_app_id(struct mr_store *s, int64_t *app, int *sqlrc)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA application_id", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*app = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	*sqlrc = rc;
	return rc == SQLITE_OK ? 0 : -1;
}

/*
 * Open the connection. Read-only opens of a WAL-mode store need its -shm file, which a
 * reader cannot create in a directory it may not write (read-only media, another user's
 * trace). When the WAL is empty the main file holds everything and is opened as
 * immutable (no locks, no -shm). With committed events still in the WAL there is no safe
 * way: say so, with the fix.
 */
static int open_db(struct mr_store *s, const struct db_header *h, off_t wal_bytes,
		   int own_journal, int64_t *app, struct mr_error *err)
{
	char uri[3 * 4096 + 32];
	int flags = s->mode == MR_STORE_RDWR ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	int rc, sqlrc;

	if (own_journal && s->mode == MR_STORE_RDONLY)
		goto immutable;

	/* one thread at a time uses a store (replay workers never touch it): no mutexes */
	rc = sqlite3_open_v2(s->path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return mr_error_set(err, MR_EIO, "cannot open %s: %s", s->path,
				    s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	sqlite3_busy_timeout(s->db, 2000);
	sqlite3_extended_result_codes(s->db, 1);
	if (mr_store_harden(s->db))
		return mr_error_set(err, MR_EIO, "%s: cannot put the SQLite connection in defensive mode", s->path);
	if (!read_app_id(s, app, &sqlrc))
		return 0;
	if (s->mode != MR_STORE_RDONLY || !h->wal || (sqlrc & 0xff) == SQLITE_NOTADB ||
	    (sqlrc & 0xff) == SQLITE_CORRUPT || (sqlrc & 0xff) == SQLITE_BUSY)
		return mr_store_sqlerr(s, sqlrc, "PRAGMA application_id", err);
	if (wal_bytes > 0)
		return mr_error_set(err, MR_EPERM,
				    "%s is an unfinished trace in WAL mode with %lld bytes of committed data in %s-wal, and SQLite cannot read it without creating %s-shm, which this directory does not allow (%s): copy the trace with its -wal file to a writable directory and read it there",
				    s->path, (long long)wal_bytes, s->path, s->path, sqlite3_errmsg(s->db));
	sqlite3_close_v2(s->db);
	s->db = NULL;
immutable:
	path_uri(s->path, "immutable=1", uri, sizeof(uri));
	rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return mr_error_set(err, MR_EIO, "cannot open %s: %s", s->path,
				    s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	sqlite3_extended_result_codes(s->db, 1);
	if (mr_store_harden(s->db))
		return mr_error_set(err, MR_EIO, "%s: cannot put the SQLite connection in defensive mode", s->path);
	if (read_app_id(s, app, &sqlrc))
		return mr_store_sqlerr(s, sqlrc, "PRAGMA application_id", err);
	return 0;
}

/*
 * What every open does once its connection reads the file, whether it came from a path
 * (mr_store_open()) or from bytes in memory (mr_store_open_image()): the application id
 * read by the connection, the version, the connection settings, the schema and row
 * checks, and the events table. On failure the caller closes s.
 */
static int check_store(struct mr_store *s, int64_t app, struct mr_error *err)
{
	int64_t ver = 0;
	int rc;

	if ((uint32_t)app != MR_STORE_APP_ID)
		return mr_error_set(err, MR_ENOTSTORE,
				    "%s is not a memreplay trace: its SQLite application_id is 0x%08x, a trace has 0x%08x ('MRPL'); record one with `memreplay record` or `memreplay gen`",
				    s->path, (unsigned)app, MR_STORE_APP_ID);
	rc = pragma_int(s, "PRAGMA user_version", &ver, err);
	if (rc)
		return rc;
	if (ver > MR_STORE_VERSION)
		return mr_error_set(err, MR_EVERSION,
				    "%s uses trace format version %lld, newer than this memreplay reads (version %d): upgrade memreplay to read it",
				    s->path, (long long)ver, MR_STORE_VERSION);
	if (ver < 1)
		return mr_error_set(err, MR_ECORRUPT, "%s has trace format version %lld, which never existed: the file is damaged", s->path, (long long)ver);
	s->version = (int)ver;
	rc = configure(s, err);
	if (!rc)
		rc = mr_store_check_schema(s, err);
	if (!rc)
		rc = mr_store_check_rows(s, err);
	if (rc)
		return rc;
	if (mr_store_register_vtab(s))
		return mr_error_set(err, MR_EIO, "%s: cannot register the events table", s->path);
	return 0;
}

int mr_store_open(const char *path, int mode, struct mr_store **out, struct mr_error *err)
{
	struct mr_store *s;
	struct stat sb;
	struct db_header h;
	off_t wal_bytes;
	int64_t app = 0;
	int rc, own_journal;

	*out = NULL;
	if (stat(path, &sb))
		return mr_error_set(err, errno == ENOENT ? MR_ENOENT : MR_EIO,
				    "cannot open trace %s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return mr_error_set(err, MR_ENOTSTORE, "%s is not a regular file (expected a memreplay trace .db)", path);
	if (sb.st_size == 0)
		return mr_error_set(err, MR_ENOTSTORE, "%s is empty: not a memreplay trace", path);
	rc = read_header(path, &h, err);
	if (!rc)
		rc = check_side_files(path, &h, &wal_bytes, &own_journal, err);
	if (rc)
		return rc;
	s = store_alloc(path, mode);
	if (!s)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	rc = open_db(s, &h, wal_bytes, own_journal, &app, err);
	if (rc == MR_ECORRUPT)
		rc = mr_error_set(err, MR_ENOTSTORE, "%s is not a memreplay trace (not an SQLite database)", path);
	if (!rc)
		rc = check_store(s, app, err);
	if (rc) {
		mr_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

/*
 * The bytes are copied into a buffer SQLite owns. The header's WAL bytes are set to
 * rollback: SQLite's in-memory files have no WAL, and a WAL-mode store with no -wal
 * beside it reads as its main file alone, which is what this gives.
 */
int mr_store_open_image(const char *name, const void *data, size_t size, struct mr_store **out,
			struct mr_error *err)
{
	struct mr_store *s;
	struct db_header h;
	unsigned char *copy;
	int64_t app = 0;
	int rc, sqlrc;

	*out = NULL;
	rc = parse_header(name, data, size, &h, err);
	if (rc)
		return rc;
	s = store_alloc(name, MR_STORE_RDONLY);
	copy = s ? sqlite3_malloc64(size) : NULL;
	if (!copy) {
		mr_store_close(s);
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	}
	memcpy(copy, data, size);
	if (h.wal)
		copy[18] = copy[19] = 1;
	s->image_bytes = size;
	sqlrc = sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (sqlrc != SQLITE_OK) {
		sqlite3_free(copy);
		rc = mr_error_set(err, MR_EIO, "cannot open %s: %s", name, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(sqlrc));
		goto out;
	}
	sqlite3_extended_result_codes(s->db, 1);
	/* FREEONCLOSE: SQLite frees copy on every path from here on, errors included */
	sqlrc = sqlite3_deserialize(s->db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
				    SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
	if (sqlrc != SQLITE_OK) {
		rc = mr_store_sqlerr(s, sqlrc, "loading the trace into memory", err);
		goto out;
	}
	if (mr_store_harden(s->db)) {
		rc = mr_error_set(err, MR_EIO, "%s: cannot put the SQLite connection in defensive mode", name);
		goto out;
	}
	if (read_app_id(s, &app, &sqlrc)) {
		rc = mr_store_sqlerr(s, sqlrc, "PRAGMA application_id", err);
		if (rc == MR_ECORRUPT)
			rc = mr_error_set(err, MR_ENOTSTORE, "%s is not a memreplay trace (not an SQLite database)", name);
		goto out;
	}
	rc = check_store(s, app, err);
out:
	if (rc) {
		mr_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
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

/* The first pages row whose type is not one of the format's, as an error. */
static int bad_page_type(struct mr_store *s, struct mr_error *err)
{
	sqlite3_stmt *st;
	long long id = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT id FROM pages WHERE typeof(type) != 'integer' OR type NOT BETWEEN 0 AND 2"
			       " ORDER BY id LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return mr_error_set(err, MR_ECORRUPT, "%s: pages row %lld, column type: not a page type (0 anon, 1 file, 2 shmem); the file is damaged or was not written by memreplay: record or generate the trace again",
			    s->path, id);
}

int mr_store_summarize_chunks(struct mr_store *s, struct mr_store_summary *sum,
			      struct mr_error *err)
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
	if (s->image_bytes)
		sum->file_bytes = s->image_bytes;
	else if (!stat(s->path, &sb))
		sum->file_bytes = (uint64_t)sb.st_size;
	return 0;
}

int mr_store_summarize(struct mr_store *s, struct mr_store_summary *sum, struct mr_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = mr_store_summarize_chunks(s, sum, err);

	if (rc)
		return rc;
	rc = sqlite3_prepare_v2(s->db, "SELECT type, count(*) FROM pages GROUP BY type", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "summarising pages", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		uint64_t c = (uint64_t)sqlite3_column_int64(st, 1);

		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || t < 0 || t >= MR_PAGE_NR_TYPES) {
			sqlite3_finalize(st);
			return bad_page_type(s, err);
		}
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
	return 0;
}

/* One pages row against the format: which column breaks it, or NULL. Columns as selected
 * by mr_store_pages_foreach(), each read once into type[] and v[]; NULL is allowed where
 * the writer leaves a column unset. */
#define PAGE_COLS 9
static int bad_page_column(const int *type, const int64_t *v, const char **rule)
{
	static const struct {
		int64_t lo, hi;
		int null_ok;
		const char *rule;
	} cols[PAGE_COLS] = {
		{ 0, MR_PAGE_NONE - 1, 0, "a page id (0 .. 2^32-2)" },
		{ 0, MR_PAGE_NR_TYPES - 1, 0, "a page type (0 anon, 1 file, 2 shmem)" },
		{ 0, UINT32_MAX, 1, "an address space id (0 .. 2^32-1)" },
		{ 0, INT64_MAX, 1, "a virtual page number (0 or more)" },
		{ 0, UINT32_MAX, 1, "a file id (0 .. 2^32-1)" },
		{ 0, INT64_MAX, 1, "a page index in a file (0 or more)" },
		{ 0, 1, 0, "a flag (0 or 1)" },
		{ -1, INT16_MAX, 1, "a NUMA node (-1 unknown, 0 .. 32767)" },
		{ 0, UINT32_MAX, 1, "a cgroup id (0 .. 2^32-1)" },
	};

	for (int i = 0; i < PAGE_COLS; i++) {
		if (type[i] == SQLITE_NULL && cols[i].null_ok)
			continue;
		if (type[i] != SQLITE_INTEGER || v[i] < cols[i].lo || v[i] > cols[i].hi) {
			*rule = cols[i].rule;
			return i;
		}
	}
	return -1;
}

int mr_store_pages_foreach(struct mr_store *s, int (*fn)(const struct mr_page *, void *),
			   void *ctx, struct mr_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db,
				    "SELECT id, type, mm, vpage, file, idx, exec, node, cgroup"
				    " FROM pages ORDER BY id",
				    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return mr_store_sqlerr(s, rc, "reading pages", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* each column read once: a million-row trace spent most of its load in these
		 * calls when the check and the copy each read every column */
		int type[PAGE_COLS], bad;
		int64_t v[PAGE_COLS];
		const char *rule;
		struct mr_page p;
		int r;

		for (int i = 0; i < PAGE_COLS; i++) {
			type[i] = sqlite3_column_type(st, i);
			v[i] = sqlite3_column_int64(st, i);
		}
		bad = bad_page_column(type, v, &rule);
		if (bad >= 0) {
			char val[32];

			if (type[bad] == SQLITE_INTEGER)
				snprintf(val, sizeof(val), "%lld", (long long)v[bad]);
			else
				snprintf(val, sizeof(val), "%s", type[bad] == SQLITE_NULL ? "NULL" :
					 type[bad] == SQLITE_TEXT ? "a text value" :
					 type[bad] == SQLITE_FLOAT ? "a real number" : "a blob");
			r = mr_error_set(err, MR_ECORRUPT, "%s: pages row %lld, column %s: %s is not %s; the file is damaged or was not written by memreplay: record or generate the trace again",
					 s->path, (long long)v[0], sqlite3_column_name(st, bad), val, rule);
			sqlite3_finalize(st);
			return r;
		}
		/* NULL where the writer left a column unset (read as 0): mm/vpage of file
		 * pages, file/idx of anon and shmem pages, an unknown node or cgroup */
		p = (struct mr_page){
			.id = (uint32_t)v[0],
			.type = (uint8_t)v[1],
			.mm = (uint32_t)v[2],
			.vpage = (uint64_t)v[3],
			.file = (uint32_t)v[4],
			.index = (uint64_t)v[5],
			.exec = (uint8_t)v[6],
			.node = type[7] == SQLITE_NULL ? -1 : (int16_t)v[7],
			.cgroup = (uint32_t)v[8],
		};
		r = fn(&p, ctx);
		if (r) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mr_store_sqlerr(s, rc, "reading pages", err);
}
