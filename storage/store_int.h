/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store_int.h - private to storage/: the store object shared by writer and reader, and
 * the checks that make a store trusted (store_check.c).
 *
 * File map: store.c (create, open, summary), store_check.c (schema and row checks run on
 * open), writer.c, reader.c (events in time order, each checked against the tables),
 * vtab.c (the `events` table), codec.c + crc32c.c (the pure chunk codec).
 */
#ifndef MR_STORE_INT_H
#define MR_STORE_INT_H

#include <sqlite3.h>

#include "mr_store.h"

struct mr_store {
	sqlite3 *db;
	char *path;
	int mode;
	int version;
	/* Filled on open by mr_store_check_rows() (0 for a store being created): */
	uint32_t n_pages;   /* pages rows; their ids are exactly 0 .. n_pages - 1 */
	uint32_t n_streams; /* streams rows; chunk rows name only these ids */
	uint64_t image_bytes; /* opened by mr_store_open_image(): the image's size, else 0 */
};

/*
 * Open a store from the bytes of a store file in memory, read-only, with the same checks
 * as mr_store_open() less those of a file on disk (its type, its -wal and -journal side
 * files): the application id, the version, the schema, the rows, and the events table.
 * name stands for the file in messages. data is copied; the caller keeps it. Errors as
 * mr_store_open()'s. For the store-opener fuzz target, which would otherwise spend its
 * time writing each input to a file.
 */
int mr_store_open_image(const char *name, const void *data, size_t size, struct mr_store **out,
			struct mr_error *err);

/* The schema of version MR_STORE_VERSION (store.c), one statement per object. */
extern const char mr_store_schema_sql[];

/* Map a SQLite result code to enum mr_err and set a message naming the operation. */
int mr_store_sqlerr(struct mr_store *s, int rc, const char *what, struct mr_error *err);

/* PRAGMA journal_mode=DELETE: SQLITE_OK when the store left WAL mode, SQLITE_BUSY when
 * another connection has it open (SQLite then keeps WAL mode and writes nothing). */
int mr_store_leave_wal(sqlite3 *db);

/* Connection settings of every store connection: defensive mode (no writes to the schema
 * through SQL, no untrusted functions or virtual tables from the schema, no triggers and
 * no views). Returns 0 or MR_EIO. */
int mr_store_harden(sqlite3 *db);

/* Every object the format names is what the format says: a real table whose definition is
 * the format's, byte for byte, and nothing shadows the `events` table. MR_ECORRUPT naming
 * the table otherwise. */
int mr_store_check_schema(struct mr_store *s, struct mr_error *err);

/* Rows the reader, the summary and replay trust, checked once on open: streams ids, every
 * chunk row's columns (types, ranges, and agreement with its blob's header), page ids
 * dense from 0, and the mms, tasks and vmas rows (ranges, the rows they name, a VMA's
 * start below its end). Sets s->n_pages and s->n_streams. MR_ECORRUPT naming table, row
 * and column. */
int mr_store_check_rows(struct mr_store *s, struct mr_error *err);

/* Largest chunk id: the events table's rowid is (chunk id << 16 | index in the chunk). */
#define MR_STORE_MAX_CHUNK_ID ((1LL << 47) - 1)
#define MR_STORE_MAX_STREAMS (1u << 20)

/* Register the `events` virtual table (vtab.c) on the store's connection. */
int mr_store_register_vtab(struct mr_store *s);

/* mr_reader_next() that also gives the event's rowid in the events table: stable across
 * scans and unique per event, (chunk id << 16) | index of the event in its chunk. */
int mr_reader_next_rowid(struct mr_reader *r, struct mr_event *ev, int64_t *rowid);

#endif
