/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import_priv.h - what the importers share, private to traces/.
 *
 * import.c         registry, mr_import_create (temporary store, meta, rename), the
 *                  context below: key maps, address spaces, tasks, pages, events.
 * import_perf.c    `perf script` page-fault samples.
 * import_damo.c    damo JSON records, with a streaming JSON tokenizer.
 * import_lackey.c  valgrind lackey --trace-mem=yes.
 * import_oracle.c  libCacheSim oracleGeneral in.
 * export_oracle.c  libCacheSim oracleGeneral out (mr_export_oracle).
 *
 * Every imported address space gets one anonymous read-write VMA over the whole user
 * range [0, IMP_VA_END), mapped at its first event: none of the formats says where the
 * mappings were, and a replay needs a VMA to put a page's PTE in. Pages are anonymous,
 * keyed by (address space, virtual page), with dense ids in order of first appearance.
 */
#ifndef MR_IMPORT_PRIV_H
#define MR_IMPORT_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mr_import.h"
#include "mr_store.h"

#define IMP_PAGE_SHIFT 12
#define IMP_VA_END (1ull << 56) /* x86-64 5-level paging: the largest user address + 1 */
#define IMP_MM_BITS 20          /* page keys are mm << 44 | vpage */
#define IMP_NS_PER_S 1000000000ull

/* Open-addressing map from 64-bit keys to 64-bit values; grows by doubling (amortised:
 * an import's memory is a slot per distinct key, never per event). */
struct imp_map {
	uint64_t *keys, *vals;
	uint8_t *used;
	uint64_t cap, n;
};

/* The value slot of key, inserted (value 0) if absent: *found says which. NULL when
 * out of memory. The pointer is valid until the next insert. */
uint64_t *imp_map_slot(struct imp_map *m, uint64_t key, int *found);
void imp_map_free(struct imp_map *m);

struct imp_ctx {
	const struct mr_importer *imp;
	const struct mr_import_opts *o;
	struct mr_writer *w;
	struct mr_error *err;
	FILE *in;
	const char *input; /* for messages */
	uint64_t line;     /* current line (text formats) or record (binary), from 1 */
	struct mr_import_stats st;
	struct imp_map pages;   /* mm << 44 | vpage -> page id + 1, bit 63 = exec */
	struct imp_map procs;   /* tgid -> mm id */
	struct imp_map threads; /* (uint32)tgid << 32 | (uint32)tid -> task id */
	uint32_t next_mm, next_task, next_vma, next_file;
	uint64_t next_page;
	uint32_t streams;       /* streams added so far */
};

struct mr_importer_ops {
	/* Read c->in to its end and write the trace through c->w (rows and events). */
	int (*run)(struct imp_ctx *c);
};

/* "INPUT:LINE: " + message; MR_EINVAL. For the format's own errors. */
int imp_fail(struct imp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failed mr_writer_* call (rc) as an error naming what was written. */
int imp_wfail(struct imp_ctx *c, int rc, const char *what);

/* A new stream; its id in *id. */
int imp_stream(struct imp_ctx *c, const char *name, uint32_t *id);
/*
 * The task of thread tid of process tgid, created at time t on stream with its mm when
 * first seen: mms row, VMA row and MAP event for a new process, tasks row for a new
 * thread (comm may be NULL: "?"). *task and *mm get the ids.
 */
int imp_task(struct imp_ctx *c, uint32_t stream, uint64_t t, int32_t tgid, int32_t tid,
	     const char *comm, uint32_t *task, uint32_t *mm);
/* The anonymous page at virtual page vpage of mm, its row added when new (or when exec
 * is first set: the row is replaced). vpage < IMP_VA_END >> 12. */
int imp_page(struct imp_ctx *c, uint32_t mm, uint64_t vpage, int exec, uint32_t *id);
/* A new page row (for pages with no address: oracleGeneral objects). */
int imp_page_new(struct imp_ctx *c, const struct mr_page *p, uint32_t *id);
/* Append one event. */
int imp_emit(struct imp_ctx *c, uint32_t stream, uint64_t t, uint8_t kind, uint32_t page,
	     uint32_t task, uint8_t flags, uint32_t size, uint64_t arg);

/* Text formats: the next line into *buf (getline's buffer), without its newline.
 * 1 = a line, 0 = end of input, < 0 = error (read error, a line over 1 MiB). */
int imp_getline(struct imp_ctx *c, char **buf, size_t *cap);
/* Parse a hexadecimal number (optional 0x) that is the whole of s[0..len). */
int imp_hex(const char *s, size_t len, uint64_t *v);

/* Output files (import.c, for the exporter too): refuse an existing path unless
 * overwrite (never a symbolic link) and name the temporary file beside it in tmp; then
 * move the finished tmp to path. */
int imp_prepare_output(const char *path, int overwrite, char *tmp, size_t cap,
		       struct mr_error *err);
int imp_install_output(const char *tmp, const char *path, int overwrite, struct mr_error *err);

extern const struct mr_importer_ops imp_perf_ops, imp_damo_ops, imp_lackey_ops, imp_oracle_ops;

#endif /* MR_IMPORT_PRIV_H */
