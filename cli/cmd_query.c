// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_query.c - `memreplay query DB SQL`: run SQL read-only on a trace (tables plus the
 * events virtual table) or a results database, and print the rows.
 *
 * SQL may hold several statements; each is run in turn and its rows printed, a blank
 * line between result sets. Every statement is prepared and checked before any runs:
 * query never writes anything, so a statement SQLite reports as writing (VACUUM INTO,
 * which makes a new file even on a read-only connection, PRAGMA with a value, ...) and
 * ATTACH are refused. Text from the database is printed escaped (cli_print_text).
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_replay.h"
#include "mr_store.h"

#define MAX_STATEMENTS 256

static void print_field(const char *v, int csv)
{
	if (!v) {
		if (!csv)
			fputs("NULL", stdout);
		return;
	}
	if (!csv) {
		cli_print_text(v, 0);
		return;
	}
	if (!strpbrk(v, ",\"\n\r")) {
		cli_print_text(v, CLI_TEXT_CSV);
		return;
	}
	putchar('"');
	cli_print_text(v, CLI_TEXT_CSV);
	putchar('"');
}

/* Authorizer: ATTACH would open (or create) another file; nothing else is refused here
 * (writing statements are refused by sqlite3_stmt_readonly()). */
static int authorize(void *ctx, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	if (action != SQLITE_ATTACH)
		return SQLITE_OK;
	*(int *)ctx = 1;
	return SQLITE_DENY;
}

/* Step one prepared statement, printing its header and rows. */
static int run(sqlite3 *db, sqlite3_stmt *st, int csv, int index)
{
	int ncol = sqlite3_column_count(st), rc;

	for (int i = 0; i < ncol; i++) {
		print_field(sqlite3_column_name(st, i), csv);
		putchar(i + 1 < ncol ? (csv ? ',' : '\t') : '\n');
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			if (sqlite3_column_type(st, i) == SQLITE_BLOB)
				printf("<blob %d bytes>", sqlite3_column_bytes(st, i));
			else
				print_field((const char *)sqlite3_column_text(st, i), csv);
			putchar(i + 1 < ncol ? (csv ? ',' : '\t') : '\n');
		}
	}
	if (rc != SQLITE_DONE) {
		fflush(stdout);
		fprintf(stderr, "memreplay query: statement %d: %s\n", index, sqlite3_errmsg(db));
		return 1;
	}
	return 0;
}

int cmd_query(int argc, char **argv)
{
	static const struct option opts[] = { { "csv", no_argument, NULL, 'c' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	struct mr_error err = { 0 };
	struct mr_store *s = NULL;
	struct mr_results *res = NULL;
	sqlite3_stmt *sts[MAX_STATEMENTS];
	sqlite3 *db;
	const char *sql;
	int c, csv = 0, rc, n = 0, printed = 0, attach = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ch", opts, NULL)) != -1) {
		switch (c) {
		case 'c': csv = 1; break;
		case 'h': printf("usage: %s\n", cli_find("query")->usage); return 0;
		default: return cli_usage_error("query", "bad option");
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
	sqlite3_set_authorizer(db, authorize, &attach);
	rc = 0;
	for (sql = argv[optind + 1]; !rc && *sql;) {
		const char *tail;
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
			if (attach)
				fprintf(stderr, "memreplay query: statement %d: ATTACH is refused: query reads the one database it is given\n",
					n + 1);
			else
				fprintf(stderr, "memreplay query: SQL error in statement %d: %s\n", n + 1,
					sqlite3_errmsg(db));
			rc = 1;
		} else if (st && !sqlite3_stmt_readonly(st) && !sqlite3_stmt_isexplain(st)) {
			fprintf(stderr, "memreplay query: statement %d would write: query only reads (use sqlite3 on a copy to change a database)\n",
				n + 1);
			rc = 1;
		} else if (st && n == MAX_STATEMENTS) {
			fprintf(stderr, "memreplay query: more than %d statements: run them in several queries\n",
				MAX_STATEMENTS);
			rc = 1;
		} else if (st) {
			sts[n++] = st;
			st = NULL;
		}
		sqlite3_finalize(st);
		sql = tail;
	}
	if (!rc && !n)
		rc = cli_usage_error("query", "no SQL statement given (the SQL is empty or only comments)");
	for (int i = 0; !rc && i < n; i++) {
		if (sqlite3_column_count(sts[i]) && printed++)
			putchar('\n');
		rc = run(db, sts[i], csv, i + 1);
	}
	for (int i = 0; i < n; i++)
		sqlite3_finalize(sts[i]);
	mr_store_close(s);
	mr_results_close(res);
	return rc;
}
