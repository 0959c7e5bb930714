// SPDX-License-Identifier: GPL-2.0
/*
 * ext.c - libmemreplay.so, the SQLite extension: the `events` table that `memreplay
 * query` has, for any program that opens a trace with SQLite.
 *
 *   sqlite3 trace.db -cmd '.load libmemreplay' 'SELECT kind, count(*) FROM events GROUP BY kind'
 *   con = sqlite3.connect("trace.db"); con.enable_load_extension(True)
 *   con.load_extension("libmemreplay")
 *
 * Loading it on a connection to a trace opens that trace once more through
 * mr_store_open() (read-only, with every check a trace gets from memreplay itself: a
 * hostile or damaged file is refused here, naming the problem) and registers `events`
 * over it, the same table, time-range push-down and rowids as vtab.c. The table reads
 * the trace as it was when the extension was loaded.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "mr_store.h"

int mr_ext_register_vtab(sqlite3 *db, struct mr_store *s);
int sqlite3_memreplay_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);

int sqlite3_memreplay_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
	struct mr_error err = { 0 };
	struct mr_store *s;
	const char *path;
	int rc;

	SQLITE_EXTENSION_INIT2(api);
	path = sqlite3_db_filename(db, "main");
	if (!path || !*path) {
		*errmsg = sqlite3_mprintf("memreplay: the connection has no trace open: open the "
					  "trace first (sqlite3 TRACE.db), then load libmemreplay");
		return SQLITE_ERROR;
	}
	if (mr_store_open(path, MR_STORE_RDONLY, &s, &err)) {
		*errmsg = sqlite3_mprintf("memreplay: %s", err.msg);
		return SQLITE_ERROR;
	}
	rc = mr_ext_register_vtab(db, s); /* closes s when it fails, as when db closes */
	if (rc != SQLITE_OK)
		*errmsg = sqlite3_mprintf("memreplay: cannot register the events table: %s",
					  sqlite3_errstr(rc));
	return rc;
}
