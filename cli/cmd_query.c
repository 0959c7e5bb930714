// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_query.c - `memreplay query DB SQL`: run SQL read-only on a trace (tables plus the
 * events virtual table) or a results database, and print the rows, as the sqlite3 shell
 * does: every statement in turn, each result set with its own header (table and CSV) or
 * as its own JSON array.
 *
 * Nothing is written. Every statement is prepared and checked before any runs, so a
 * statement SQLite reports as writing (VACUUM INTO, which makes a new file even on a
 * read-only connection, PRAGMA with a value, an INSERT into an attached database, ...)
 * is refused before anything is printed. ATTACH is the one statement run while checking:
 * the statements after it may name the attached schema, and preparing them needs it.
 * The connection is read-only (mr_store_open / mr_results_open), and SQLite opens an
 * attached file with the flags of the main one (sqlite3AttachFunc in SQLite's attach.c
 * takes db->openFlags), so it is read-only too; query checks that it is
 * (sqlite3_db_readonly) rather than trust it. DETACH is refused: nothing needs it in a
 * one-shot query, and run after the checks it would pull a schema from under statements
 * already prepared against it. Text from a database is printed escaped (cli_print_text).
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_replay.h"
#include "mr_store.h"

#define MAX_STATEMENTS 256

enum format { F_TABLE, F_CSV, F_JSON };

/* What the authorizer saw while one statement was prepared. */
struct seen {
	int attach, detach;
};

static int authorize(void *ctx, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	struct seen *s = ctx;

	if (action == SQLITE_ATTACH)
		s->attach = 1;
	else if (action == SQLITE_DETACH)
		s->detach = 1;
	return SQLITE_OK;
}

/* The statement's text for a message: from sql to tail, blanks folded, control bytes
 * shown as '?', at most 60 bytes. */
static void stmt_text(const char *sql, const char *tail, char *buf, size_t cap)
{
	size_t n = 0;
	int space = 0;

	while (sql < tail && isspace((unsigned char)*sql))
		sql++;
	while (tail > sql && (isspace((unsigned char)tail[-1]) || tail[-1] == ';'))
		tail--;
	for (; sql < tail && n + 4 < cap; sql++) {
		unsigned char ch = (unsigned char)*sql;

		if (isspace(ch)) {
			space = 1;
			continue;
		}
		if (space && n)
			buf[n++] = ' ';
		space = 0;
		buf[n++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
		if (n >= 60 && sql + 1 < tail) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
	}
	buf[n] = 0;
}

static void print_field(const char *v, size_t n, enum format f)
{
	int quote = 0;

	if (!v) {
		if (f == F_TABLE)
			fputs("NULL", stdout);
		return;
	}
	for (size_t i = 0; f == F_CSV && i < n && !quote; i++)
		quote = v[i] == ',' || v[i] == '"' || v[i] == '\n' || v[i] == '\r';
	if (!quote) {
		cli_print_textn(v, n, f == F_CSV ? CLI_TEXT_CSV : 0);
		return;
	}
	putchar('"');
	cli_print_textn(v, n, CLI_TEXT_CSV);
	putchar('"');
}

/* One value as JSON: integers and finite reals as numbers, text as a string, NULL (and
 * the infinities SQLite can compute, which JSON has no word for) as null. */
static void print_json_value(sqlite3_stmt *st, int i)
{
	char buf[32];

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		printf("%lld", (long long)sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT: {
		double v = sqlite3_column_double(st, i);

		if (!isfinite(v)) {
			fputs("null", stdout);
			break;
		}
		/* the shortest of 15 and 17 digits that reads back as the same double */
		snprintf(buf, sizeof(buf), "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, sizeof(buf), "%.17g", v);
		fputs(buf, stdout);
		if (!strpbrk(buf, ".eE"))
			fputs(".0", stdout);
		break;
	}
	case SQLITE_NULL:
		fputs("null", stdout);
		break;
	case SQLITE_BLOB:
		printf("\"<blob %d bytes>\"", sqlite3_column_bytes(st, i));
		break;
	default: /* text (its bytes: it may hold NULs) */
		cli_json_stringn((const char *)sqlite3_column_text(st, i),
				 (size_t)sqlite3_column_bytes(st, i));
	}
}

static void print_row(sqlite3_stmt *st, int ncol, enum format f, long row)
{
	if (f == F_JSON) {
		fputs(row ? ",\n{" : "{", stdout);
		for (int i = 0; i < ncol; i++) {
			if (i)
				putchar(',');
			cli_json_string(sqlite3_column_name(st, i));
			putchar(':');
			print_json_value(st, i);
		}
		putchar('}');
		return;
	}
	for (int i = 0; i < ncol; i++) {
		if (sqlite3_column_type(st, i) == SQLITE_BLOB)
			printf("<blob %d bytes>", sqlite3_column_bytes(st, i));
		else
			print_field((const char *)sqlite3_column_text(st, i),
				    (size_t)sqlite3_column_bytes(st, i), f);
		putchar(i + 1 < ncol ? (f == F_CSV ? ',' : '\t') : '\n');
	}
}

/* Step one prepared statement, printing its header and rows. */
static int run(sqlite3 *db, sqlite3_stmt *st, enum format f, int index, const char *text)
{
	int ncol = sqlite3_column_count(st), rc;
	long rows = 0;

	if (ncol && f != F_JSON)
		for (int i = 0; i < ncol; i++) {
			const char *name = sqlite3_column_name(st, i);

			print_field(name, name ? strlen(name) : 0, f);
			putchar(i + 1 < ncol ? (f == F_CSV ? ',' : '\t') : '\n');
		}
	if (ncol && f == F_JSON)
		putchar('[');
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (ncol)
			print_row(st, ncol, f, rows++);
	if (ncol && f == F_JSON)
		puts("]");
	if (rc != SQLITE_DONE) {
		fflush(stdout);
		fprintf(stderr, "memreplay query: statement %d (%s): %s\n", index, text,
			sqlite3_errmsg(db));
		return 1;
	}
	return 0;
}

/* After an ATTACH ran: every database on the connection but temp must be read-only. */
static int check_attached(sqlite3 *db, int index, const char *text)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA database_list", -1, &st, NULL) != SQLITE_OK)
		return 1;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);

		if (name && strcmp(name, "temp") && sqlite3_db_readonly(db, name) != 1) {
			fprintf(stderr, "memreplay query: statement %d (%s): the database attached as '%s' is not read-only; query only reads: attach a file\n",
				index, text, name);
			rc = 1;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int cmd_query(int argc, char **argv)
{
	enum { O_CSV = 256, O_JSON };
	static const struct option opts[] = { { "format", required_argument, NULL, 'f' },
					      { "csv", no_argument, NULL, O_CSV },
					      { "json", no_argument, NULL, O_JSON },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	struct mr_error err = { 0 };
	struct mr_store *s = NULL;
	struct mr_results *res = NULL;
	sqlite3_stmt *sts[MAX_STATEMENTS];
	char *texts[MAX_STATEMENTS];
	int index[MAX_STATEMENTS];
	enum format f = F_TABLE;
	struct seen seen;
	sqlite3 *db;
	const char *sql;
	int c, rc, n = 0, k = 0, printed = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "table"))
				f = F_TABLE;
			else if (!strcmp(optarg, "csv"))
				f = F_CSV;
			else if (!strcmp(optarg, "json"))
				f = F_JSON;
			else
				return cli_usage_error("query", "--format '%s': use table, csv or json",
						       optarg);
			break;
		case O_CSV: f = F_CSV; break;
		case O_JSON: f = F_JSON; break;
		case 'h': return cli_help("query");
		default:
			/* SQL that starts with a comment or a minus reads as an option */
			if (optind > 1 && argv[optind - 1][0] == '-' && strpbrk(argv[optind - 1], " \t\n"))
				return cli_usage_error("query", "'%s' is read as an option: put -- "
						       "before SQL that starts with '-' (memreplay "
						       "query DB -- 'SQL')", argv[optind - 1]);
			return cli_usage_error("query", "bad option");
		}
	}
	if (optind != argc - 2)
		return cli_usage_error("query", "expected a database and SQL");
	/* A trace (with its events table), or else a results database. */
	rc = mr_store_open(argv[optind], MR_STORE_RDONLY, &s, &err);
	if (rc == MR_ENOTSTORE) {
		struct mr_error rerr = { 0 };

		if (!mr_results_open(argv[optind], &res, &rerr))
			rc = 0;
		else if (rerr.code != MR_ENOTSTORE)
			err = rerr;
	}
	if (rc)
		return cli_fail("query", &err);
	db = s ? mr_store_db(s) : mr_results_db(res);
	sqlite3_set_authorizer(db, authorize, &seen);
	rc = 0;
	for (sql = argv[optind + 1]; !rc && *sql;) {
		const char *tail = sql;
		sqlite3_stmt *st = NULL;
		char text[80];
		int prc;

		memset(&seen, 0, sizeof(seen));
		prc = sqlite3_prepare_v2(db, sql, -1, &st, &tail);
		if (prc != SQLITE_OK && tail == sql)
			tail = sql + strlen(sql); /* SQLite leaves tail unset on some errors */
		stmt_text(sql, tail, text, sizeof(text));
		if (st || prc != SQLITE_OK)
			k++;
		if (prc != SQLITE_OK) {
			const char *msg = sqlite3_errmsg(db);

			fprintf(stderr, "memreplay query: statement %d (%s): SQL error: %s%s\n", k, text,
				msg, strstr(msg, "access to view") && strstr(msg, "prohibited") ?
				" (a trace opened first turns views off, its own and an attached results "
				"file's: open the results file first and ATTACH the trace, or read the "
				"view's tables; docs/cli.md)" : "");
			rc = 1;
		} else if (st && seen.detach) {
			fprintf(stderr, "memreplay query: statement %d (%s): DETACH is refused: attached databases stay until the query ends\n",
				k, text);
			rc = 1;
		} else if (st && !sqlite3_stmt_readonly(st) && !sqlite3_stmt_isexplain(st)) {
			fprintf(stderr, "memreplay query: statement %d (%s) would write: query only reads (use sqlite3 on a copy to change a database)\n",
				k, text);
			rc = 1;
		} else if (st && n == MAX_STATEMENTS) {
			fprintf(stderr, "memreplay query: more than %d statements: run them in several queries\n",
				MAX_STATEMENTS);
			rc = 1;
		} else if (st && seen.attach && !sqlite3_stmt_isexplain(st)) {
			/* run now: the statements after it are prepared against its schema */
			if (sqlite3_step(st) != SQLITE_DONE) {
				fprintf(stderr, "memreplay query: statement %d (%s): %s\n", k, text,
					sqlite3_errmsg(db));
				rc = 1;
			} else {
				rc = check_attached(db, k, text);
			}
		} else if (st) {
			texts[n] = strdup(text);
			index[n] = k;
			sts[n++] = st;
			st = NULL;
		}
		sqlite3_finalize(st);
		sql = tail;
	}
	if (!rc && !k)
		rc = cli_usage_error("query", "no SQL statement given (the SQL is empty or only comments)");
	for (int i = 0; !rc && i < n; i++) {
		if (sqlite3_column_count(sts[i]) && printed++ && f != F_JSON)
			putchar('\n');
		rc = run(db, sts[i], f, index[i], texts[i] ? texts[i] : "?");
	}
	for (int i = 0; i < n; i++) {
		sqlite3_finalize(sts[i]);
		free(texts[i]);
	}
	mr_store_close(s);
	mr_results_close(res);
	return rc;
}
