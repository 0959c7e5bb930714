// SPDX-License-Identifier: GPL-2.0
/*
 * test_store.c - the SQLite trace store: write/read round trip across streams, time-range
 * skipping, refusal of foreign/newer/damaged files, damaged chunks reported, writer
 * killed with SIGKILL leaving every committed chunk, size/count parsers.
 */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_codec.h"
#include "mr_store.h"
#include "mr_test.h"
#include "mr_util.h"
#include "store_sql.h"

static char *path_in(const char *name)
{
	static char buf[8][1024];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", mr_test_tmpdir(), name);
	return buf[i];
}

/* Event j of stream s: times interleave across streams, fields derived from (s, j). Pages
 * are the 10 rows write_store() adds, MAP/UNMAP name its one VMA (readers check both). */
static struct mr_event make_event(uint32_t s, uint64_t j)
{
	struct mr_event e = {
		.time = j * 10 + s * 3,
		.arg = j % MR_EV_NR_KINDS == MR_EV_MAP || j % MR_EV_NR_KINDS == MR_EV_UNMAP ? 1 : j ^ 0x5555,
		.page = (uint32_t)(j * 7 + s) % 10,
		.task = s + 1,
		.size = 1,
		.cpu = (uint16_t)s,
		.kind = (uint8_t)(j % MR_EV_NR_KINDS),
		.flags = (uint8_t)(j & 7),
	};
	return e;
}

static int write_store(const char *path, uint32_t nstreams, uint64_t per_stream, uint32_t chunk)
{
	struct mr_error err = { 0 };
	struct mr_writer_opts wo = { .chunk_events = chunk };
	struct mr_store *s;
	struct mr_writer *w;
	int rc = mr_store_create(path, 1, &s, &err);

	if (rc)
		return rc;
	rc = mr_writer_create(s, &wo, &w, &err);
	for (uint32_t i = 0; !rc && i < nstreams; i++) {
		uint32_t id;

		rc = mr_writer_add_stream(w, "cpu", "test", (int)i, &id);
	}
	for (uint32_t p = 0; !rc && p < 10; p++) {
		struct mr_page pg = { .id = p, .type = p % 2, .mm = 1, .vpage = p, .node = 0 };

		rc = mr_writer_add_page(w, &pg);
	}
	if (!rc)
		rc = mr_writer_add_mm(w, 1, 1, "test");
	if (!rc)
		rc = mr_writer_add_vma(w, &(struct mr_vma_row){ .id = 1, .mm = 1, .start = 0, .end = 40960 });
	for (uint64_t j = 0; !rc && j < per_stream; j++)
		for (uint32_t i = 0; !rc && i < nstreams; i++) {
			struct mr_event e = make_event(i, j);

			rc = mr_writer_append(w, i, &e);
		}
	if (!rc)
		rc = mr_writer_finish(w);
	if (rc)
		fprintf(stderr, "write_store: %s\n", err.msg[0] ? err.msg : mr_writer_error(w)->msg);
	mr_writer_destroy(w);
	mr_store_close(s);
	return rc;
}

static void test_roundtrip(void)
{
	const char *p = path_in("rt.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	struct mr_reader *r;
	struct mr_store_summary sum;
	struct mr_event e, prev = { 0 };
	uint64_t seen[3] = { 0 }, n = 0;
	int rc, ordered = 1, match = 1;

	CHECK(write_store(p, 3, 10000, 1000) == 0);
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	CHECK(mr_store_summarize(s, &sum, &err) == 0);
	CHECK_EQ_U64(sum.n_events, 30000);
	CHECK_EQ_U64(sum.n_chunks, 30);
	CHECK_EQ_U64(sum.n_streams, 3);
	CHECK_EQ_U64(sum.n_pages, 10);
	CHECK_EQ_U64(sum.pages_by_type[MR_PAGE_FILE], 5);
	CHECK_EQ_U64(sum.by_kind[MR_EV_ACCESS], 3 * ((10000 + MR_EV_NR_KINDS - 1) / MR_EV_NR_KINDS));
	CHECK(mr_reader_open(s, NULL, &r, &err) == 0);
	while ((rc = mr_reader_next(r, &e)) == 0) {
		uint32_t st = e.cpu;
		struct mr_event want;

		if (n && e.time < prev.time)
			ordered = 0;
		if (st >= 3) {
			match = 0;
			break;
		}
		want = make_event(st, seen[st]++);
		if (memcmp(&want, &e, sizeof(e)))
			match = 0;
		prev = e;
		n++;
	}
	CHECK(rc == MR_EOF);
	CHECK_EQ_U64(n, 30000);
	CHECK(ordered);
	CHECK(match);
	mr_reader_close(r);

	/* Time range [50000, 60000]: only overlapping chunks are decoded. */
	{
		struct mr_reader_opts ro = { .t_from = 50000, .t_to = 60000 };
		struct mr_reader_stats rs;
		uint64_t cnt = 0, bad = 0;

		CHECK(mr_reader_open(s, &ro, &r, &err) == 0);
		while (mr_reader_next(r, &e) == 0) {
			cnt++;
			if (e.time < 50000 || e.time > 60000)
				bad++;
		}
		mr_reader_get_stats(r, &rs);
		/* stream s has times j*10+3s in range for j in [5000-ceil, 6000-..]: 1001 / 1000 / 1000 */
		CHECK_EQ_U64(cnt, 1001 + 1000 + 1000);
		CHECK_EQ_U64(bad, 0);
		CHECK(rs.chunks_skipped >= 24);
		CHECK(rs.chunks_decoded <= 6);
		mr_reader_close(r);
	}
	mr_store_close(s);
}

/* The events virtual table: all rows, time-range pushdown with exact strict bounds. */
static void test_events_vtab(void)
{
	const char *p = path_in("vt.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	uint64_t want_strict = 0, want_kind = 0;

	CHECK(write_store(p, 3, 10000, 1000) == 0);
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	for (uint32_t st = 0; st < 3; st++)
		for (uint64_t j = 0; j < 10000; j++) {
			struct mr_event e = make_event(st, j);

			want_strict += e.time > 50000 && e.time < 60000;
			want_kind += e.kind == MR_EV_FD_ACCESS;
		}
	CHECK(sql_int(s, "SELECT count(*) FROM events") == 30000);
	CHECK(sql_int(s, "SELECT count(*) FROM events WHERE time BETWEEN 50000 AND 60000") == 3001);
	CHECK(sql_int(s, "SELECT count(*) FROM events WHERE time > 50000 AND time < 60000") ==
	      (int64_t)want_strict);
	CHECK(sql_int(s, "SELECT count(*) FROM events WHERE time = 50003") == 1);
	CHECK(sql_int(s, "SELECT count(*) FROM events WHERE kind = 'fd_access'") == (int64_t)want_kind);
	/* rows come in time order (rowids name chunk and index, not the position in a scan) */
	CHECK(sql_int(s, "SELECT sum(t1 <= t2) FROM (SELECT time AS t1, lead(time) OVER () AS t2 FROM events) WHERE t2 IS NOT NULL") == 29999);
	mr_store_close(s);
}

static void test_deterministic(void)
{
	const char *a = path_in("d1.db"), *b = path_in("d2.db");
	sqlite3 *da, *db;
	sqlite3_stmt *sa, *sb;
	int same = 1, rows = 0;

	CHECK(write_store(a, 2, 5000, 777) == 0);
	CHECK(write_store(b, 2, 5000, 777) == 0);
	CHECK(sqlite3_open(a, &da) == SQLITE_OK);
	CHECK(sqlite3_open(b, &db) == SQLITE_OK);
	sqlite3_prepare_v2(da, "SELECT stream, t_first, t_last, data FROM chunks ORDER BY id", -1, &sa, NULL);
	sqlite3_prepare_v2(db, "SELECT stream, t_first, t_last, data FROM chunks ORDER BY id", -1, &sb, NULL);
	for (;;) {
		int ra = sqlite3_step(sa), rb = sqlite3_step(sb);

		if (ra != rb) {
			same = 0;
			break;
		}
		if (ra != SQLITE_ROW)
			break;
		rows++;
		if (sqlite3_column_bytes(sa, 3) != sqlite3_column_bytes(sb, 3) ||
		    memcmp(sqlite3_column_blob(sa, 3), sqlite3_column_blob(sb, 3),
			   (size_t)sqlite3_column_bytes(sa, 3)))
			same = 0;
	}
	CHECK(same);
	CHECK(rows == 14);
	sqlite3_finalize(sa);
	sqlite3_finalize(sb);
	sqlite3_close(da);
	sqlite3_close(db);
}

static void expect_open_error(const char *p, int code, const char *needle)
{
	struct mr_error err = { 0 };
	struct mr_store *s = NULL;
	int rc = mr_store_open(p, MR_STORE_RDONLY, &s, &err);

	CHECK(rc == code);
	CHECK(s == NULL);
	CHECK(strstr(err.msg, needle) != NULL);
	if (!strstr(err.msg, needle))
		fprintf(stderr, "  message was: %s (wanted '%s')\n", err.msg, needle);
	mr_store_close(s);
}

static void test_refusals(void)
{
	const char *p = path_in("ref.db"), *q = path_in("plain.db"), *t = path_in("text.db");
	const char *e = path_in("empty.db");
	sqlite3 *db;
	FILE *f;

	expect_open_error(path_in("missing.db"), MR_ENOENT, "No such file");

	CHECK(write_store(p, 1, 100, 100) == 0);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version=7", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	expect_open_error(p, MR_EVERSION, "upgrade memreplay");

	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version=1; PRAGMA application_id=1234", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	expect_open_error(p, MR_ENOTSTORE, "application_id");

	CHECK(sqlite3_open(q, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	expect_open_error(q, MR_ENOTSTORE, "not a memreplay trace");

	f = fopen(t, "w");
	fputs("this is not a database, just some text long enough to have a header....\n", f);
	for (int i = 0; i < 100; i++)
		fputs("padding padding padding padding padding\n", f);
	fclose(f);
	expect_open_error(t, MR_ENOTSTORE, "not a memreplay trace");

	f = fopen(e, "w");
	fclose(f);
	expect_open_error(e, MR_ENOTSTORE, "empty");

	/* A store whose schema lost a table. */
	CHECK(write_store(p, 1, 10, 10) == 0);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "DROP TABLE pages", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	expect_open_error(p, MR_ECORRUPT, "damaged");
}

static void test_corrupt_chunk(void)
{
	const char *p = path_in("bad.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	struct mr_reader *r;
	struct mr_event e;
	sqlite3 *db;
	uint64_t n = 0;
	int rc;

	CHECK(write_store(p, 1, 5000, 1000) == 0);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	/* Flip one bit in the middle of chunk 3's blob. */
	{
		sqlite3_stmt *st;
		unsigned char *blob = NULL;
		int len = 0;

		CHECK(sqlite3_prepare_v2(db, "SELECT data FROM chunks WHERE id=3", -1, &st, NULL) == SQLITE_OK);
		if (sqlite3_step(st) == SQLITE_ROW) {
			len = sqlite3_column_bytes(st, 0);
			blob = malloc((size_t)len);
			memcpy(blob, sqlite3_column_blob(st, 0), (size_t)len);
		}
		sqlite3_finalize(st);
		CHECK(blob && len > 40);
		if (!blob)
			return;
		blob[len / 2] ^= 0x10;
		CHECK(sqlite3_prepare_v2(db, "UPDATE chunks SET data=?1 WHERE id=3", -1, &st, NULL) == SQLITE_OK);
		sqlite3_bind_blob(st, 1, blob, len, SQLITE_TRANSIENT);
		CHECK(sqlite3_step(st) == SQLITE_DONE);
		sqlite3_finalize(st);
		free(blob);
	}
	sqlite3_close(db);
	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	CHECK(mr_reader_open(s, NULL, &r, &err) == 0);
	while ((rc = mr_reader_next(r, &e)) == 0)
		n++;
	CHECK(rc == MR_ECORRUPT);
	CHECK_EQ_U64(n, 2000); /* chunks 1 and 2 intact */
	CHECK(strstr(mr_reader_error(r)->msg, "chunk 3") != NULL);
	/* The error is sticky: no further (wrong) events. */
	CHECK(mr_reader_next(r, &e) == MR_ECORRUPT);
	mr_reader_close(r);
	mr_store_close(s);
}

static void test_writer_errors(void)
{
	const char *p = path_in("werr.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	struct mr_writer *w;
	struct mr_event e = { .time = 100, .page = 1 };
	uint32_t id;

	CHECK(mr_store_create(p, 0, &s, &err) == 0);
	CHECK(mr_writer_create(s, NULL, &w, &err) == 0);
	CHECK(mr_writer_append(w, 0, &e) == MR_EINVAL); /* no stream yet */
	CHECK(mr_writer_add_stream(w, "s", "test", -1, &id) == 0);
	CHECK(mr_writer_append(w, id, &e) == 0);
	e.time = 99;
	CHECK(mr_writer_append(w, id, &e) == MR_EINVAL);
	CHECK(strstr(mr_writer_error(w)->msg, "time order") != NULL);
	e.time = 100;
	e.kind = MR_EV_NR_KINDS;
	CHECK(mr_writer_append(w, id, &e) == MR_EINVAL);
	CHECK(mr_writer_finish(w) == 0);
	mr_writer_destroy(w);
	mr_store_close(s);
	/* Refuse to clobber without overwrite. */
	CHECK(mr_store_create(p, 0, &s, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "already exists") != NULL);
}

/* A child writes chunks forever; kill it with SIGKILL after some commits. */
static void test_sigkill(void)
{
	const char *p = path_in("kill.db");
	struct mr_error err = { 0 };
	struct mr_store *s;
	pid_t pid;
	int64_t committed = 0;

	pid = fork();
	if (pid == 0) {
		struct mr_writer_opts wo = { .chunk_events = 500 };
		struct mr_writer *w;
		uint32_t id;

		if (mr_store_create(p, 1, &s, &err) || mr_writer_create(s, &wo, &w, &err) ||
		    mr_writer_add_stream(w, "s", "test", 0, &id) || mr_writer_add_mm(w, 1, 1, "test") ||
		    mr_writer_add_vma(w, &(struct mr_vma_row){ .id = 1, .mm = 1, .end = 1ull << 40 }))
			_exit(2);
		for (uint32_t i = 0; i < 10; i++)
			if (mr_writer_add_page(w, &(struct mr_page){ .id = i, .mm = 1, .vpage = i }))
				_exit(3);
		for (uint64_t j = 0;; j++) {
			struct mr_event e = make_event(0, j);
			/* dense ids, as the format wants: 10, 11, ... one per 50 events */
			struct mr_page pg = { .id = 10 + (uint32_t)(j / 50), .type = MR_PAGE_ANON, .mm = 1, .vpage = 10 + j };

			if (j % 50 == 0 && mr_writer_add_page(w, &pg))
				_exit(3);
			if (mr_writer_append(w, id, &e))
				_exit(4);
		}
	}
	CHECK(pid > 0);
	/* Wait until at least 40 chunks are committed, as seen by an independent reader. */
	for (int tries = 0; tries < 3000 && committed < 40; tries++) {
		sqlite3 *db;
		sqlite3_stmt *st;

		usleep(2000);
		if (sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
			sqlite3_close(db);
			continue;
		}
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM chunks", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			committed = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(committed >= 40);

	CHECK(mr_store_open(p, MR_STORE_RDONLY, &s, &err) == 0);
	if (!s)
		return;
	{
		struct mr_store_summary sum;
		struct mr_reader *r;
		struct mr_event e;
		uint64_t n = 0, mismatch = 0;
		int rc;

		CHECK(mr_store_summarize(s, &sum, &err) == 0);
		CHECK(sum.n_chunks >= (uint64_t)committed);
		CHECK_EQ_U64(sum.n_events, sum.n_chunks * 500);
		/* Pages committed with the chunks: one per 50 events up to the last chunk. */
		CHECK(sum.n_pages >= sum.n_events / 50);
		CHECK(mr_reader_open(s, NULL, &r, &err) == 0);
		while ((rc = mr_reader_next(r, &e)) == 0) {
			struct mr_event want = make_event(0, n++);

			if (memcmp(&want, &e, sizeof(e)))
				mismatch++;
		}
		CHECK(rc == MR_EOF);
		CHECK_EQ_U64(n, sum.n_events);
		CHECK_EQ_U64(mismatch, 0);
		mr_reader_close(r);
	}
	mr_store_close(s);
}

static void test_parsers(void)
{
	struct mr_error err = { 0 };
	uint64_t v = 0;
	double d;

	CHECK(mr_parse_pages("256M", 4096, 0, &v, &err) == 0 && v == 65536);
	CHECK(mr_parse_pages("1G", 4096, 0, &v, &err) == 0 && v == 262144);
	CHECK(mr_parse_pages("1GiB", 4096, 0, &v, &err) == 0 && v == 262144);
	CHECK(mr_parse_pages("65536", 4096, 0, &v, &err) == 0 && v == 65536);
	CHECK(mr_parse_pages("100p", 4096, 0, &v, &err) == 0 && v == 100);
	CHECK(mr_parse_pages("5K", 4096, 0, &v, &err) == 0 && v == 2); /* rounded up */
	CHECK(mr_parse_pages("0", 4096, 0, &v, &err) == MR_EINVAL);
	CHECK(mr_parse_pages("0", 4096, 1, &v, &err) == 0 && v == 0);
	CHECK(mr_parse_pages("-5M", 4096, 0, &v, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "-5M") != NULL);
	CHECK(mr_parse_pages("12X", 4096, 0, &v, &err) == MR_EINVAL);
	CHECK(mr_parse_pages("1.5G", 4096, 0, &v, &err) == MR_EINVAL);
	CHECK(mr_parse_pages("", 4096, 0, &v, &err) == MR_EINVAL);
	CHECK(mr_parse_pages("99999999999999999999", 4096, 0, &v, &err) == MR_ERANGE);
	CHECK(mr_parse_pages("20000000T", 4096, 0, &v, &err) == MR_ERANGE);
	CHECK(mr_parse_count("50M", &v, &err) == 0 && v == 50000000);
	CHECK(mr_parse_count("7", &v, &err) == 0 && v == 7);
	CHECK(mr_parse_count("7q", &v, &err) == MR_EINVAL);
	CHECK(mr_parse_double("1.0", 0, 3, &d, &err) == 0 && d == 1.0);
	CHECK(mr_parse_double("3.5", 0, 3, &d, &err) == MR_ERANGE);
	CHECK(mr_parse_double("nan", 0, 3, &d, &err) == MR_EINVAL);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_parsers),
	MR_CASE(test_roundtrip),
	MR_CASE(test_events_vtab),
	MR_CASE(test_deterministic),
	MR_CASE(test_refusals),
	MR_CASE(test_corrupt_chunk),
	MR_CASE(test_writer_errors),
	MR_CASE(test_sigkill),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_store", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
