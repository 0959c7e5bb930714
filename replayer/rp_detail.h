/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rp_detail.h - private to the machine's files: detail counters per page and the history
 * of traced pages (mr_detail.h), as hooks the engine calls where it counts.
 *
 * Each hook is an inline test of one pointer that is NULL unless the replay asked for
 * detail or history (predicted not taken, nothing else on the path), then a call into
 * detail.c. Nothing allocates after rp_detail_create(): counters are arrays per page id
 * and per VMA index, histories fixed arrays per traced page.
 */
#ifndef MR_RP_DETAIL_H
#define MR_RP_DETAIL_H

#include "mr_detail.h"
#include "mr_policy.h"

struct rp_machine;
struct rp_machine_opts;
struct mr_event;
struct sqlite3;

struct rp_trace_page {
	uint32_t page;
	uint32_t refs;                 /* references since its last entry */
	struct mr_page_event *ev;      /* [MR_TRACE_MAX_EVENTS] */
	size_t n;
	uint64_t dropped;
	struct mr_page_event last;     /* its state at its last entry (logged or not) */
};

/* Per page: its counters and the VMA it was last faulted in through, in one record so
 * that a miss or an eviction touches one place (prefetched with the folio). */
struct rp_detail_page {
	struct mr_detail_counts c;
	uint32_t last_vma;             /* VMA index of its last fault, or nr_vmas = none */
};

struct rp_detail {
	unsigned what;                 /* MR_DETAIL_* asked (counters are kept for all) */
	struct rp_detail_page *pages;  /* [nr_pages] */
	struct mr_detail_counts *vmas; /* [nr_vmas + 1]: faults through the VMA, evictions
					* and refaults of the pages last faulted in through
					* it; [nr_vmas] = pages never mapped */
	uint32_t nr_vmas;
	/* history */
	struct rp_trace_page *tp;      /* [ntrace], sorted by page */
	uint32_t ntrace;
	uint32_t tmin, tmax;           /* page range of the traced pages */
	uint64_t cur_ev;               /* index of the event being replayed */
	uint64_t sig;                  /* rp_trace_step(): what ran, at the last event */
	const struct mr_scan_control *sc; /* the scan in progress (shrink_one), or NULL */
	unsigned sc_kind;              /* enum mr_page_reclaim of it */
};

/* Set up mach->detail (and mach->trace when pages are traced) for what o asks.
 * 0 or MR_ENOMEM; MR_EINVAL for a traced page the trace does not have. */
int rp_detail_create(struct rp_machine *mach, const struct rp_machine_opts *o,
		     struct mr_error *err);
void rp_detail_destroy(struct rp_machine *mach);

/* Start loading page's record (a miss or an eviction of it is coming). */
static inline void rp_detail_prefetch(const struct rp_detail *d, uint32_t page)
{
	const char *p = (const char *)&d->pages[page];

	mr_prefetchw(p);
	mr_prefetchw(p + sizeof(d->pages[0]) - 1); /* 40 bytes may straddle two lines */
}

void rp_detail_fault(struct rp_machine *mach, uint32_t page, uint32_t vi, int major);
void rp_detail_insert(struct rp_machine *mach, uint32_t page, uint32_t est, unsigned ctx);
void rp_detail_evict(struct rp_machine *mach, uint32_t page);
void rp_detail_free(struct rp_machine *mach, uint32_t page);
void rp_detail_writeback(struct rp_machine *mach, uint32_t page);
/* After event idx was replayed (only with traced pages). */
void rp_trace_step(struct rp_machine *mach, const struct mr_event *e, uint64_t idx);

/* replay.c: run's machine (NULL past the last), and the trace image. */
struct rp_image;
struct rp_machine *rp_replay_machine(const struct mr_replay *r, size_t run);
const struct rp_image *rp_replay_image(const struct mr_replay *r);

/* Write the detail tables asked for, for machines mach[0..n) as runs 1..n. */
int rp_detail_write(struct sqlite3 *db, struct rp_machine *const *mach, size_t n,
		    struct mr_error *err);

#endif /* MR_RP_DETAIL_H */
