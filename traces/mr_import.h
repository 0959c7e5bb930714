/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_import.h - traces from other tools' formats, and libCacheSim's oracleGeneral out.
 *
 * An importer reads another tool's output as a stream (line by line, or record by
 * record: nothing is held whole) and writes an ordinary memreplay store through the
 * store writer (mr_store.h), so `info`, `query` and `replay` take it like any trace. Each
 * format says less than a recording: the store's meta names the format (import.format)
 * and what it cannot say (import.lacks), and docs/import.md gives the mapping.
 *
 *   perf     `perf script` text of page-fault samples with addresses
 *   damo     damo's JSON record (DAMON region snapshots)
 *   lackey   valgrind --tool=lackey --trace-mem=yes output
 *   oracle   libCacheSim's oracleGeneral binary records
 *
 * The store is written beside the output path and renamed into place when complete: a
 * malformed input (an error naming the input line or record and what was expected), a
 * full disk or any other failure leaves no file at the output path.
 */
#ifndef MR_IMPORT_H
#define MR_IMPORT_H

#include <stdint.h>

#include "mr_err.h"

/* The unit of oracleGeneral's 32-bit timestamps, both ways (--time-unit): seconds in
 * libCacheSim's traces. */
enum mr_export_time { MR_EXPORT_S, MR_EXPORT_MS, MR_EXPORT_US, MR_EXPORT_NS };

/* "s", "ms", "us" or "ns" into *unit: 0, or -1 for any other name. */
int mr_oracle_time_unit(const char *name, enum mr_export_time *unit);
/* Nanoseconds per unit, and its name. */
uint64_t mr_oracle_time_unit_ns(enum mr_export_time unit);
const char *mr_oracle_time_unit_name(enum mr_export_time unit);

struct mr_import_opts {
	uint64_t tick_ns; /* lackey: trace time between two memory records; 0 = 1 ns */
	int with_instr;   /* lackey: instruction fetches (I records) become exec accesses */
	int file_pages;   /* oracle: objects are pages of one file read with read() (else anon) */
	int one_page;     /* oracle: every object is one page whatever its size */
	enum mr_export_time time_unit; /* oracle: the timestamps' unit (default: seconds) */
	int overwrite;    /* replace an existing output (never a symbolic link) */
};

struct mr_import_stats {
	uint64_t records;  /* input lines or records read (comments and headers included) */
	uint64_t events, accesses, pages, tasks, mms;
	uint64_t skipped;  /* records read and left out (kernel addresses, no-access regions) */
	uint64_t clamped;  /* oracle: records whose time went back or size grew (see docs) */
};

struct mr_importer_ops; /* import_priv.h */

struct mr_importer {
	const char *name;
	const char *help;  /* one line: what the input is */
	const char *lacks; /* what the format cannot say, comma separated (import.lacks) */
	const char *howto; /* the command that makes such an input */
	const struct mr_importer_ops *ops;
};

/* All importers, NULL-terminated; find returns NULL for an unknown name. */
const struct mr_importer *const *mr_import_list(void);
const struct mr_importer *mr_import_find(const char *name);

/*
 * Read input (a path; "-" is standard input) in importer imp's format and write the
 * trace at path. 0, or MR_EINVAL (bad input: the message names the line or record and
 * what was expected; an existing path without overwrite), MR_ENOENT (no input file),
 * MR_EIO / MR_ENOSPC / MR_ENOMEM, each with a message. st (may be NULL) gets counts.
 */
int mr_import_create(const struct mr_importer *imp, const char *input, const char *path,
		     const struct mr_import_opts *o, struct mr_import_stats *st,
		     struct mr_error *err);

/* ---- export ---- */

struct mr_export_opts {
	enum mr_export_time unit; /* unit of the records' 32-bit timestamp */
	int overwrite;
};

struct mr_export_stats {
	uint64_t requests; /* records written: one per page referenced */
	uint64_t objects;  /* distinct pages among them */
	uint64_t skipped;  /* events that are not references (inserts, faults, maps, ...) */
};

/*
 * Write the page references of the trace at trace_path (ACCESS events, and each page of
 * FD_ACCESS events, in time order) as libCacheSim oracleGeneral records to out_path:
 * 24 bytes each, little-endian, packed:
 *
 *   offset 0   uint32 timestamp          trace time in unit, from the trace's start
 *   offset 4   uint64 obj_id             the dense page id
 *   offset 12  uint32 obj_size           the page size (4096)
 *   offset 16  int64  next_access_vtime  1-based number of the next record of the same
 *                                        object, -1 when there is none
 *
 * Memory is one 8-byte slot per page of the trace plus a fixed write buffer. 0, or
 * MR_ERANGE (a time that does not fit 32 bits in unit: the message names a coarser
 * unit), MR_EINVAL, MR_EIO, ... from opening or reading the trace. Written beside
 * out_path and renamed into place.
 */
int mr_export_oracle(const char *trace_path, const char *out_path,
		     const struct mr_export_opts *o, struct mr_export_stats *st,
		     struct mr_error *err);

#endif /* MR_IMPORT_H */
