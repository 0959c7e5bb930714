/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_store.h - the trace store: one SQLite file per trace.
 *
 * Tables (schema version MR_STORE_VERSION, PRAGMA application_id = MR_STORE_APP_ID):
 *   meta(key, value)                    host, kernel, page size, nodes, options, ...
 *   streams(id, name, source, cpu, lost) one per recording stream; lost = events lost
 *   cgroups(id, path, memory_max)
 *   mms(id, tgid, comm)                  address spaces
 *   tasks(id, pid, tgid, mm, cgroup, comm, start_ns, end_ns)
 *   files(id, dev, ino, path, size_pages)
 *   vmas(id, mm, start, end, flags, file, pgoff, map_ns, unmap_ns)
 *   pages(id, type, mm, vpage, file, idx, exec, node, cgroup)   dense ids from 0
 *   markers(id, time_ns, text)
 *   chunks(id, stream, t_first, t_last, n_events, kind_counts, payload_bytes, crc, data)
 *
 * Stores opened with mr_store_open() also have an eponymous virtual table
 *   events(time, kind, kind_id, page, task, cpu, flags, size, arg)
 * that yields every event in time order; time ranges in WHERE skip chunks.
 *
 * Writer: events are buffered per stream (bounded: streams x chunk size) and each full
 * chunk is committed, together with every table row added before it, in its own
 * transaction in WAL mode, so a writer killed at any moment leaves a store that opens
 * with every committed chunk intact. A finished store is in rollback-journal mode: one
 * file that reads anywhere, read-only. Reader: merges streams by time and skips chunks
 * outside a time range from the chunk rows alone, without reading their blobs.
 *
 * Nothing in a store is trusted: mr_store_open() checks the schema and the rows readers
 * rely on, the reader checks every decoded event against the tables, and the SQLite
 * connection is defensive (no triggers, views or untrusted schema functions). A store
 * that breaks the format is MR_ECORRUPT with a message naming table, row and column.
 */
#ifndef MR_STORE_H
#define MR_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_event.h"

#define MR_STORE_APP_ID 0x4d52504cu /* "MRPL" */
#define MR_STORE_VERSION 3 /* 2: chunk encodings NZDELTA and DBITS; 3: JOINT (same schema) */

struct mr_store;
struct mr_writer;
struct mr_reader;
struct sqlite3;

/* A page row. anon/shmem: keyed by (mm, vpage); file: by (file, index). */
struct mr_page {
	uint32_t id;
	uint8_t type;  /* enum mr_page_type */
	uint8_t exec;  /* mapped through a VM_EXEC vma at some point */
	int16_t node;  /* NUMA node, -1 unknown */
	uint32_t cgroup; /* 0 = unknown */
	uint32_t mm;   /* anon/shmem */
	uint32_t file; /* file */
	uint64_t vpage; /* anon/shmem: virtual address >> page shift */
	uint64_t index; /* file: page index in the file */
};

struct mr_task {
	uint32_t id; /* dense, from 1; 0 means unknown */
	int32_t pid, tgid;
	uint32_t mm, cgroup;
	const char *comm;
	uint64_t start_ns, end_ns; /* end 0 = still running at the end of the trace */
};

struct mr_file {
	uint32_t id;
	uint64_t dev, ino;
	const char *path; /* may be NULL (unknown or anonymised) */
	uint64_t size_pages;
};

struct mr_vma_row {
	uint32_t id;
	uint32_t mm;
	uint64_t start, end; /* virtual addresses, [start, end) */
	uint32_t flags;      /* MR_VMA_* */
	uint32_t file;       /* 0 = anonymous */
	uint64_t pgoff;      /* file offset in pages */
	uint64_t map_ns, unmap_ns;
};

struct mr_cgroup {
	uint32_t id;
	const char *path;
	uint64_t memory_max; /* bytes, 0 = unlimited/unknown */
};

enum { MR_STORE_RDONLY = 0, MR_STORE_RDWR = 1 };

/* Create a new store at path. Fails with MR_EINVAL if path exists unless overwrite. The
 * store is built under a temporary name beside path and renamed into place, so path never
 * holds a partial file (a process killed before the rename leaves PATH.tmp-PID-N, which a
 * later create at path removes once that process is gone). */
int mr_store_create(const char *path, int overwrite, struct mr_store **out, struct mr_error *err);
/* Open an existing store. MR_ENOENT, MR_ENOTSTORE (wrong application id or not SQLite),
 * MR_EVERSION (newer format), MR_ECORRUPT (a table, row or side file that breaks the
 * format: a -wal or -journal beside it that it did not write is refused, not applied) or
 * MR_EPERM (an unfinished WAL-mode store whose WAL holds data, where SQLite cannot create
 * the -shm file), each with a message naming the fix. Read-only opens never write. */
int mr_store_open(const char *path, int mode, struct mr_store **out, struct mr_error *err);
void mr_store_close(struct mr_store *s);
/* Remove the store file at path with its -wal and -shm files, those that exist (a store
 * no one has open: a partial or temporary one). */
void mr_store_remove(const char *path);
/* Remove the store at path if a writer left it with nothing recorded: a memreplay store
 * with no chunk, never finished, that no process has open (a recording killed before its
 * first commit). 0 when removed; MR_ENOENT when there is no file; MR_EINVAL when path
 * holds anything else (a trace with events, a finished one, another file) and MR_EBUSY
 * when a process has it open, both with a message saying why it stays. Lets a retry to
 * the same path go ahead without --force, and never loses a recorded event. */
int mr_store_remove_abandoned(const char *path, struct mr_error *err);
const char *mr_store_path(const struct mr_store *s);
/* The underlying database, for SQL queries. Owned by the store. */
struct sqlite3 *mr_store_db(struct mr_store *s);

/* Metadata: key/value text. get returns MR_ENOENT when absent. */
int mr_store_meta_get(struct mr_store *s, const char *key, char *buf, size_t cap,
		      struct mr_error *err);

/* What `memreplay info` prints. */
struct mr_store_summary {
	int version;
	uint64_t n_events, n_chunks;
	uint64_t t_first, t_last;
	uint64_t by_kind[MR_EV_NR_KINDS];
	uint64_t payload_bytes; /* column-encoded bytes before LZ4 */
	uint64_t stored_bytes;  /* chunk blob bytes */
	uint64_t file_bytes;    /* database file size */
	uint64_t pages_by_type[MR_PAGE_NR_TYPES];
	uint64_t n_pages, n_tasks, n_mms, n_files, n_vmas, n_streams, n_cgroups;
	uint64_t lost;
};
int mr_store_summarize(struct mr_store *s, struct mr_store_summary *sum, struct mr_error *err);
/* The chunks' part alone (events, chunks, times, kinds, bytes): no scan of the pages
 * table, whose million rows a replay reads once anyway (the rest of sum is zero). */
int mr_store_summarize_chunks(struct mr_store *s, struct mr_store_summary *sum,
			      struct mr_error *err);

/* Iterate pages in id order. fn returns non-zero to stop (that value is returned). */
int mr_store_pages_foreach(struct mr_store *s, int (*fn)(const struct mr_page *, void *),
			   void *ctx, struct mr_error *err);

/* ---- writer ---- */

struct mr_writer_opts {
	uint32_t chunk_events; /* events per chunk; 0 = MR_CHUNK_DEFAULT_EVENTS */
};

/* The writer borrows s (which must be RDWR) until mr_writer_destroy. */
int mr_writer_create(struct mr_store *s, const struct mr_writer_opts *opts,
		     struct mr_writer **out, struct mr_error *err);
/* Flush without finishing, then free. Safe on NULL. */
void mr_writer_destroy(struct mr_writer *w);

int mr_writer_set_meta(struct mr_writer *w, const char *key, const char *value);
int mr_writer_set_meta_u64(struct mr_writer *w, const char *key, uint64_t value);
/* Streams: ids are assigned from 0 in call order. */
int mr_writer_add_stream(struct mr_writer *w, const char *name, const char *source, int cpu,
			 uint32_t *id_out);
int mr_writer_set_lost(struct mr_writer *w, uint32_t stream, uint64_t lost);
int mr_writer_add_cgroup(struct mr_writer *w, const struct mr_cgroup *c);
int mr_writer_add_mm(struct mr_writer *w, uint32_t id, int32_t tgid, const char *comm);
int mr_writer_add_task(struct mr_writer *w, const struct mr_task *t);
int mr_writer_add_file(struct mr_writer *w, const struct mr_file *f);
int mr_writer_add_vma(struct mr_writer *w, const struct mr_vma_row *v);
/* Insert or replace (node/exec/cgroup may be learned later). Ids are dense: a new page's
 * id is one past the largest so far (MR_EINVAL otherwise). Page rows are batched: they
 * reach the database with the next chunk commit (or flush) in its transaction, so an
 * SQLite error on them is returned by that call. Rows added to `pages` by other means
 * while a writer is open are not supported (a commit that finds its page ids out of
 * step fails with MR_EIO and rolls back). */
int mr_writer_add_page(struct mr_writer *w, const struct mr_page *p);
int mr_writer_add_marker(struct mr_writer *w, uint32_t id, uint64_t time_ns, const char *text);

/* Append one event to a stream. Times within a stream must not decrease (MR_EINVAL) and
 * must be below 2^63 ns (MR_ERANGE: SQLite integers are signed).
 * Commits a chunk when the stream's buffer fills; MR_EIO / MR_ENOSPC on write failure,
 * after which everything committed before stays readable. */
int mr_writer_append(struct mr_writer *w, uint32_t stream, const struct mr_event *ev);
/* Commit every buffered event and row now. */
int mr_writer_flush(struct mr_writer *w);
/* Flush, mark the store complete, fold the WAL in and leave WAL mode. With all data
 * committed and the store left in WAL mode (every chunk readable): MR_EBUSY when another
 * process has it open, MR_ENOSPC when the disk is too full to fold the WAL in. */
int mr_writer_finish(struct mr_writer *w);
const struct mr_error *mr_writer_error(const struct mr_writer *w);

struct mr_writer_stats {
	uint64_t events, chunks, payload_bytes, stored_bytes;
	size_t buffer_bytes; /* memory held for buffering: bounded, independent of trace length */
};
void mr_writer_get_stats(const struct mr_writer *w, struct mr_writer_stats *st);

/* ---- reader ---- */

struct mr_reader_opts {
	uint64_t t_from; /* inclusive */
	uint64_t t_to;   /* inclusive; 0 = no upper bound */
};

int mr_reader_open(struct mr_store *s, const struct mr_reader_opts *opts,
		   struct mr_reader **out, struct mr_error *err);
void mr_reader_close(struct mr_reader *r);
/* Next event in time order (ties: lower stream id first, then stream order).
 * Returns 0, MR_EOF at the end, or a negative error (MR_ECORRUPT naming the chunk). */
int mr_reader_next(struct mr_reader *r, struct mr_event *ev);
/* Up to cap events in time order; *n = 0 with MR_EOF at the end. */
int mr_reader_read(struct mr_reader *r, struct mr_event *evs, size_t cap, size_t *n);
const struct mr_error *mr_reader_error(const struct mr_reader *r);

/* Decode every chunk and check its events as the reader does, stream by stream without
 * merging them by time: 0 when mr_reader_read() would read the whole trace, else the
 * error it would stop with (MR_ECORRUPT naming chunk, event and column). For what does
 * not read events otherwise (`memreplay info`): one check, the reader's. */
int mr_store_check_events(struct mr_store *s, struct mr_error *err);

struct mr_reader_stats {
	uint64_t chunks_decoded, chunks_skipped, events;
};
void mr_reader_get_stats(const struct mr_reader *r, struct mr_reader_stats *st);

#endif /* MR_STORE_H */
