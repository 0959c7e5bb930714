/* SPDX-License-Identifier: GPL-2.0 */
/* store_int.h - private to storage/: the store object shared by writer and reader. */
#ifndef MR_STORE_INT_H
#define MR_STORE_INT_H

#include <sqlite3.h>

#include "mr_store.h"

struct mr_store {
	sqlite3 *db;
	char *path;
	int mode;
	int version;
};

/* Map a SQLite result code to enum mr_err and set a message naming the operation. */
int mr_store_sqlerr(struct mr_store *s, int rc, const char *what, struct mr_error *err);

/* Register the `events` virtual table (vtab.c) on the store's connection. */
int mr_store_register_vtab(struct mr_store *s);

#endif
