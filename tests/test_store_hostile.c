// SPDX-License-Identifier: GPL-2.0
/*
 * test_store_hostile.c - the store's side of issue 14 at the library level: a store
 * killed at any write while being created is absent or valid; what the writer refuses
 * (times past 2^63-1, page ids with holes); the mode a finished store is left in; the
 * hardened connection; the events table's rowids (stable and unique, so OR terms are
 * de-duplicated right) and its time bounds from constraint values of any type; the opener
 * of stores in memory giving what the opener of files gives.
 * The command-line side (every class of bad file through info, query and replay) is
 * tests/test_hostile_store.sh.
 */
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_store.h"
#include "mr_test.h"
#include "store_int.h"
#include "store_sql.h"

static char *path_in(const char *name)
{
	static char buf[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", mr_test_tmpdir(), name);
	return buf[i];
}

/* ---- a VFS that kills the process before its Nth write ---- */

/*
 * Wraps the default VFS; every xWrite and xTruncate of any file counts, and the one that
 * makes the count kill_at raises SIGKILL before it reaches the file: the state a killed
 * writer leaves (the page cache survives a kill, so syncs do not matter).
 */
static sqlite3_vfs *real_vfs;
static long kill_at, writes;

struct kfile {
	sqlite3_file base;
	sqlite3_file *real; /* the real VFS's file, allocated right after this struct */
};

static void count_write(void)
{
	if (++writes == kill_at)
		raise(SIGKILL);
}

#define REAL(f) (((struct kfile *)(f))->real)
static int k_close(sqlite3_file *f)
{
	return REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
}
static int k_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int k_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	count_write();
	return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int k_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	count_write();
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int k_sync(sqlite3_file *f, int flags)
{
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int k_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int k_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int k_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int k_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int k_fcntl(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int k_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int k_devchar(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int k_shm_map(sqlite3_file *f, int pg, int sz, int ext, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, p);
}
static int k_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void k_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int k_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
/* no memory mapping: every write goes through k_write */
static int k_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **p)
{
	*p = NULL;
	return SQLITE_OK;
}
static int k_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p)
{
	return SQLITE_OK;
}

static const sqlite3_io_methods k_methods = {
	3, k_close, k_read, k_write, k_truncate, k_sync, k_size, k_lock, k_unlock, k_reserved,
	k_fcntl, k_sector, k_devchar, k_shm_map, k_shm_lock, k_shm_barrier, k_shm_unmap,
	k_fetch, k_unfetch,
};

static int k_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct kfile *k = (struct kfile *)f;
	int rc;

	k->real = (sqlite3_file *)(k + 1);
	memset(k->real, 0, (size_t)real_vfs->szOsFile);
	rc = real_vfs->xOpen(real_vfs, name, k->real, flags, out);
	f->pMethods = rc == SQLITE_OK ? &k_methods : NULL;
	return rc;
}

static sqlite3_vfs kill_vfs;

static void register_kill_vfs(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	kill_vfs = *real_vfs;
	kill_vfs.zName = "mr-kill";
	kill_vfs.szOsFile = (int)sizeof(struct kfile) + real_vfs->szOsFile;
	kill_vfs.xOpen = k_open;
	sqlite3_vfs_register(&kill_vfs, 1);
}

/* Create a store with one stream, 3 pages, a VMA and 100 events, and finish it. */
static int make_small_store(const char *p)
{
	struct mr_error err = { 0 };
	struct mr_store *s;
	struct mr_writer *w = NULL;
	uint32_t id;
	int rc = mr_store_create(p, 1, &s, &err);

	if (!rc)
		rc = mr_writer_create(s, NULL, &w, &err);
	if (!rc)
		rc = mr_writer_add_stream(w, "s", "test", 0, &id);
	for (uint32_t i = 0; !rc && i < 3; i++)
		rc = mr_writer_add_page(w, &(struct mr_page){ .id = i, .mm = 1, .vpage = i });
	for (uint64_t j = 0; !rc && j < 100; j++)
		rc = mr_writer_append(w, id, &(struct mr_event){ .time = j, .page = (uint32_t)(j % 3) });
	if (!rc)
		rc = mr_writer_finish(w);
	mr_writer_destroy(w);
	mr_store_close(s);
	return rc;
}

/* Remove what a killed creation leaves: the store, its side files, temporary files. */
static void clean_dir(void)
{
	DIR *d = opendir(mr_test_tmpdir());
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "k.db", 4))
			unlink(path_in(e->d_name));
	if (d)
		closedir(d);
}

/*
 * Kill creation before each of its writes in turn. At every point the path holds no file
 * or a store that opens (a store with application_id 0 was what a kill between the WAL
 * switch and the first commit left), and its events are none or all 100 (one chunk,
 * committed as a whole).
 */
static void test_create_killed(void)
{
	char p[1024];
	long total = -1, bad = 0, absent = 0, valid = 0;
	int status;
	pid_t pid;

	snprintf(p, sizeof(p), "%s", path_in("k.db")); /* clean_dir() reuses path_in()'s buffers */
	/* how many writes an uninterrupted creation makes */
	pid = fork();
	if (pid == 0) {
		register_kill_vfs();
		if (make_small_store(p))
			_exit(255);
		_exit((int)(writes < 250 ? writes : 250));
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 0 || WEXITSTATUS(status) >= 250)
		fprintf(stderr, "counting run: status 0x%x\n", status);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 250);
	if (WIFEXITED(status))
		total = WEXITSTATUS(status);
	for (long k = 1; k <= total + 1; k++) {
		struct mr_error err = { 0 };
		struct mr_store *s;
		struct stat sb;

		clean_dir();
		pid = fork();
		if (pid == 0) {
			register_kill_vfs();
			kill_at = k;
			_exit(make_small_store(p) ? 1 : 0);
		}
		waitpid(pid, &status, 0);
		if (stat(p, &sb)) {
			absent++;
			continue;
		}
		if (mr_store_open(p, MR_STORE_RDONLY, &s, &err)) {
			fprintf(stderr, "killed before write %ld: %s\n", k, err.msg);
			bad++;
			continue;
		}
		{
			struct mr_store_summary sum;

			if (mr_store_summarize(s, &sum, &err) || (sum.n_events != 0 && sum.n_events != 100)) {
				fprintf(stderr, "killed before write %ld: %llu events\n", k,
					(unsigned long long)sum.n_events);
				bad++;
			} else {
				valid++;
			}
		}
		mr_store_close(s);
	}
	printf("%ld kill points: %ld without a file, %ld valid stores, %ld bad\n", total + 1, absent,
	       valid, bad);
	CHECK_EQ_U64(bad, 0);
	CHECK(absent > 0 && valid > 0);
	clean_dir();
}

/* ---- writer refusals and the finished state ---- */

static void test_writer_refusals(void)
{
	const char *p = path_in("w.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	struct mr_writer *w;
	uint32_t id;

	CHECK(mr_store_create(p, 1, &s, &err) == 0);
	if (!s)
		return;
	CHECK(mr_writer_create(s, NULL, &w, &err) == 0);
	CHECK(mr_writer_add_stream(w, "s", "test", 0, &id) == 0);
	/* SQLite stores integers signed: 2^63 would be a negative time in the chunk row */
	CHECK(mr_writer_append(w, id, &(struct mr_event){ .time = 1ull << 63, .page = MR_PAGE_NONE }) == MR_ERANGE);
	CHECK(strstr(mr_writer_error(w)->msg, "2^63-1") != NULL);
	CHECK(mr_writer_append(w, id, &(struct mr_event){ .time = UINT64_MAX, .page = MR_PAGE_NONE }) == MR_ERANGE);
	CHECK(mr_writer_append(w, id, &(struct mr_event){ .time = INT64_MAX, .page = MR_PAGE_NONE }) == 0);
	/* page ids are dense: 0, then 1 (or a replacement of 0), never a hole */
	CHECK(mr_writer_add_page(w, &(struct mr_page){ .id = 0, .mm = 1 }) == 0);
	CHECK(mr_writer_add_page(w, &(struct mr_page){ .id = 1000000000, .mm = 1 }) == MR_EINVAL);
	CHECK(strstr(mr_writer_error(w)->msg, "dense") != NULL);
	CHECK(mr_writer_add_page(w, &(struct mr_page){ .id = 0, .mm = 1, .exec = 1 }) == 0);
	CHECK(mr_writer_add_page(w, &(struct mr_page){ .id = 1, .mm = 1 }) == 0);
	CHECK(mr_writer_finish(w) == 0);
	mr_writer_destroy(w);
	mr_store_close(s);
	/* what was accepted reads back */
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (s) {
		struct mr_store_summary sum;

		CHECK(mr_store_summarize(s, &sum, &err) == 0);
		CHECK_EQ_U64(sum.n_events, 1);
		CHECK_EQ_U64(sum.t_last, INT64_MAX);
		CHECK_EQ_U64(sum.n_pages, 2);
		mr_store_close(s);
	}
}

/* A finished store is one file in rollback mode: readable read-only anywhere, and a -wal
 * beside it is never its own. */
static void test_finished_mode(void)
{
	const char *p = path_in("f.db");
	char side[1100];
	unsigned char hdr[20];
	FILE *f;

	CHECK(make_small_store(p) == 0);
	f = fopen(p, "rb");
	CHECK(f && fread(hdr, 1, sizeof(hdr), f) == sizeof(hdr));
	if (f)
		fclose(f);
	CHECK(hdr[18] == 1 && hdr[19] == 1); /* 2, 2 is WAL mode */
	snprintf(side, sizeof(side), "%s-wal", p);
	CHECK(access(side, F_OK) != 0);
	snprintf(side, sizeof(side), "%s-shm", p);
	CHECK(access(side, F_OK) != 0);
}

/* The connection is defensive and trusts nothing from the schema. */
static void test_hardened(void)
{
	const char *p = path_in("h.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	int v = -1;

	CHECK(make_small_store(p) == 0);
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	CHECK(sqlite3_db_config(mr_store_db(s), SQLITE_DBCONFIG_DEFENSIVE, -1, &v) == SQLITE_OK && v == 1);
	CHECK(sqlite3_db_config(mr_store_db(s), SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &v) == SQLITE_OK && v == 0);
	CHECK(sqlite3_db_config(mr_store_db(s), SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &v) == SQLITE_OK && v == 0);
	CHECK(sqlite3_db_config(mr_store_db(s), SQLITE_DBCONFIG_ENABLE_VIEW, -1, &v) == SQLITE_OK && v == 0);
	mr_store_close(s);
}

/* ---- the events table ---- */

/* Three streams of 5000 events in chunks of 700, times j * 1000 + stream; the last
 * stream's times jump past 2^53 so bounds above a double's exact range are used. */
static int make_vtab_store(const char *p)
{
	struct mr_error err = { 0 };
	struct mr_writer_opts wo = { .chunk_events = 700 };
	struct mr_store *s;
	struct mr_writer *w = NULL;
	uint32_t id;
	int rc = mr_store_create(p, 1, &s, &err);

	if (!rc)
		rc = mr_writer_create(s, &wo, &w, &err);
	for (int i = 0; !rc && i < 3; i++)
		rc = mr_writer_add_stream(w, "s", "test", i, &id);
	for (uint64_t j = 0; !rc && j < 5000; j++)
		for (uint32_t i = 0; !rc && i < 3; i++) {
			uint64_t t = j * 1000 + i;

			if (i == 2 && j >= 4000)
				t = (1ull << 53) + (j - 4000) * 2 + 1; /* odd: not a double */
			rc = mr_writer_append(w, i, &(struct mr_event){ .time = t, .page = MR_PAGE_NONE });
		}
	if (!rc)
		rc = mr_writer_finish(w);
	mr_writer_destroy(w);
	mr_store_close(s);
	return rc;
}

/*
 * rowids restarted at 1 on every scan, so an OR of two ranges (two scans, de-duplicated by
 * rowid) dropped the events of the second scan whose rowid the first had used.
 */
static void test_events_rowid(void)
{
	const char *p = path_in("v.db");
	struct mr_error err = { 0 };
	struct mr_store *s;

	CHECK(make_vtab_store(p) == 0);
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	CHECK_EQ_U64(sql_int(s, "SELECT count(*) FROM events"), 15000);
	CHECK_EQ_U64(sql_int(s, "SELECT count(DISTINCT rowid) FROM events"), 15000);
	CHECK_EQ_U64(sql_int(s, "SELECT count(*) FROM events WHERE time < 100000 OR time > 4000000"),
		     sql_int(s, "SELECT count(*) FROM events WHERE time < 100000") +
		     sql_int(s, "SELECT count(*) FROM events WHERE time > 4000000"));
	/* overlapping terms: each event once */
	CHECK_EQ_U64(sql_int(s, "SELECT count(*) FROM events WHERE time < 3000000 OR time > 1000000"), 15000);
	/* stable: a range scan gives each event the rowid a full scan gives it */
	CHECK_EQ_U64(sql_int(s, "SELECT count(*) FROM (SELECT rowid, time FROM events WHERE time BETWEEN 1234567 AND 2345678"
				" EXCEPT SELECT rowid, time FROM (SELECT rowid, time FROM events) WHERE time BETWEEN 1234567 AND 2345678)"), 0);
	CHECK_EQ_U64(sql_int(s, "SELECT count(*) FROM events WHERE time BETWEEN 1234567 AND 2345678"), 3333);
	mr_store_close(s);
}

/* Bounds from constraint values of every type: the answer is the one a full scan gives. */
static void test_events_bounds(void)
{
	static const char *const where[] = {
		"time < 'abc'",         /* an integer sorts before text: every event */
		"time > 'abc'",         /* none */
		"time <= '5000'",       /* text that is a number compares as the number */
		"time >= 4999999.5",
		"time < 2500.7",
		"time > -3",
		"time < -3",
		"time = 9007199254740993", /* 2^53 + 1: a double is 2^53 */
		"time >= 9007199254740995",
		"time <= 9007199254740995",
		"time < 9007199254740995",
		"time = x'00'",
		"time < NULL",
		"time >= 9223372036854775807",
		"time <= 9223372036854775807",
	};
	const char *p = path_in("b.db");
	struct mr_error err = { 0 };
	struct mr_store *s;

	CHECK(make_vtab_store(p) == 0);
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char a[256], b[256];
		int64_t got, want;

		/* the subquery with a LIMIT is scanned whole (no constraint is pushed into it)
		 * and keeps the column's INTEGER affinity, so it compares as the table does */
		snprintf(a, sizeof(a), "SELECT count(*) FROM events WHERE %s", where[i]);
		snprintf(b, sizeof(b), "SELECT count(*) FROM (SELECT time FROM events LIMIT -1 OFFSET 0) WHERE %s", where[i]);
		got = sql_int(s, a);
		want = sql_int(s, b);
		if (got != want)
			fprintf(stderr, "WHERE %s: %lld rows, a full scan finds %lld\n", where[i],
				(long long)got, (long long)want);
		CHECK(got == want);
	}
	CHECK_EQ_U64(sql_int(s, "SELECT count(*) FROM events WHERE time = 9007199254740993"), 1);
	mr_store_close(s);
}

/* ---- the opener of stores in memory (the fuzz target's) ---- */

static unsigned char *read_all(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");
	unsigned char *b = NULL;
	long len;

	if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)len + 1)) && fread(b, 1, (size_t)len, f) == (size_t)len) {
		*n = (size_t)len;
	} else {
		free(b);
		b = NULL;
	}
	if (f)
		fclose(f);
	return b;
}

/*
 * mr_store_open_image() runs the checks of mr_store_open() on bytes in memory: given the
 * file's bytes (and its path as the name) it gives the same result, the same summary and
 * the same error message, for a good store and for each kind of damage it checks.
 */
static void test_open_image(void)
{
	static const char *const damage[] = {
		NULL, /* the store as written */
		"UPDATE chunks SET t_last = -1",
		"UPDATE pages SET id = 7 WHERE id = 2",
		"UPDATE chunks SET stream = 5",
		"DROP TABLE chunks; CREATE VIEW chunks AS SELECT * FROM pages",
		"ALTER TABLE markers ADD COLUMN x",
		"DROP TABLE vmas",
		"PRAGMA application_id = 7",
		"PRAGMA user_version = 99",
		"CREATE TABLE events(x)",
	};
	const char *p = path_in("img.db");

	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		struct mr_error fe = { 0 }, me = { 0 };
		struct mr_store *fs = NULL, *ms = NULL;
		struct mr_store_summary fsum, msum;
		unsigned char *b;
		sqlite3 *db;
		size_t n = 0;
		int frc, mrc;

		CHECK(make_small_store(p) == 0);
		if (damage[i]) {
			CHECK(sqlite3_open(p, &db) == SQLITE_OK);
			CHECK(sqlite3_exec(db, damage[i], NULL, NULL, NULL) == SQLITE_OK);
			sqlite3_close(db);
		}
		b = read_all(p, &n);
		CHECK(b != NULL);
		if (!b)
			return;
		frc = mr_store_open(p, MR_STORE_RDONLY, &fs, &fe);
		mrc = mr_store_open_image(p, b, n, &ms, &me);
		/* the image was copied: the caller's bytes may go at once */
		memset(b, 0, n);
		free(b);
		if (frc != mrc || strcmp(fe.msg, me.msg))
			fprintf(stderr, "%s:\n  file:   %d %s\n  memory: %d %s\n", damage[i] ? damage[i] : "intact",
				frc, fe.msg, mrc, me.msg);
		CHECK(frc == mrc);
		CHECK(!strcmp(fe.msg, me.msg));
		CHECK((frc == 0) == (damage[i] == NULL));
		if (!frc && !mrc) {
			CHECK(mr_store_summarize(fs, &fsum, &fe) == 0);
			CHECK(mr_store_summarize(ms, &msum, &me) == 0);
			CHECK(!memcmp(&fsum, &msum, sizeof(fsum)));
			CHECK_EQ_U64(sql_int(ms, "SELECT count(*) FROM events WHERE time < 10 OR time > 90"), 19);
		}
		mr_store_close(fs);
		mr_store_close(ms);
	}
	{
		struct mr_error err = { 0 };
		struct mr_store *s = NULL;

		CHECK(mr_store_open_image("junk", "SQLite format 2", 16, &s, &err) == MR_ENOTSTORE && !s);
		CHECK(strstr(err.msg, "junk is not a memreplay trace") != NULL);
	}
}

int main(int argc, char **argv)
{
	static const struct mr_test_case cases[] = {
		MR_CASE(test_create_killed),
		MR_CASE(test_writer_refusals),
		MR_CASE(test_finished_mode),
		MR_CASE(test_hardened),
		MR_CASE(test_events_rowid),
		MR_CASE(test_events_bounds),
		MR_CASE(test_open_image),
	};

	return mr_test_main("test_store_hostile", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
