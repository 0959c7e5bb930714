// SPDX-License-Identifier: GPL-2.0
/* cmd_query.c - `memreplay query DB SQL`: run SQL read-only on a trace (tables plus the
 * events virtual table) or a results database, and print the rows. */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mr_replay.h"
#include "mr_store.h"

static void print_csv_field(const char *v)
{
	if (!v)
		return;
	if (!strpbrk(v, ",\"\n")) {
		fputs(v, stdout);
		return;
	}
	putchar('"');
	for (; *v; v++) {
		if (*v == '"')
			putchar('"');
		putchar(*v);
	}
	putchar('"');
}

int cmd_query(int argc, char **argv)
{
	static const struct option opts[] = { { "csv", no_argument, NULL, 'c' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	struct mr_error err = { 0 };
	struct mr_store *s = NULL;
	struct mr_results *res = NULL;
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *tail;
	int c, csv = 0, rc, ncol;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ch", opts, NULL)) != -1) {
		switch (c) {
		case 'c': csv = 1; break;
		case 'h': printf("usage: %s\n", cli_find("query")->usage); return 0;
		default: return cli_usage_error("query", "bad option");
		}
	}
	if (optind != argc - 2)
		return cli_usage_error("query", "expected a database and one SQL statement");
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
	rc = sqlite3_prepare_v2(db, argv[optind + 1], -1, &st, &tail);
	if (rc != SQLITE_OK) {
		fprintf(stderr, "memreplay query: SQL error: %s\n", sqlite3_errmsg(db));
		mr_store_close(s);
		mr_results_close(res);
		return 1;
	}
	ncol = sqlite3_column_count(st);
	for (int i = 0; i < ncol; i++) {
		if (csv)
			print_csv_field(sqlite3_column_name(st, i));
		else
			fputs(sqlite3_column_name(st, i), stdout);
		putchar(i + 1 < ncol ? (csv ? ',' : '\t') : '\n');
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			const char *v;

			if (sqlite3_column_type(st, i) == SQLITE_BLOB) {
				printf("<blob %d bytes>", sqlite3_column_bytes(st, i));
			} else {
				v = (const char *)sqlite3_column_text(st, i);
				if (csv)
					print_csv_field(v);
				else
					fputs(v ? v : "NULL", stdout);
			}
			putchar(i + 1 < ncol ? (csv ? ',' : '\t') : '\n');
		}
	}
	if (rc != SQLITE_DONE)
		fprintf(stderr, "memreplay query: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	mr_store_close(s);
	mr_results_close(res);
	return rc == SQLITE_DONE ? 0 : 1;
}
