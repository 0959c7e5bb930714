/* SPDX-License-Identifier: GPL-2.0 */
/* store_sql.h - what the store tests (test_store.c, test_store_hostile.c) share. */
#ifndef MR_TEST_STORE_SQL_H
#define MR_TEST_STORE_SQL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "mr_store.h"

/* First column of the first row of sql on the store's own connection (its events
 * table included); -2 when it does not prepare, -1 when it gives no row. */
static inline int64_t sql_int(struct mr_store *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(mr_store_db(s), sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(mr_store_db(s)));
		return -2;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(mr_store_db(s)));
	sqlite3_finalize(st);
	return v;
}

#endif
