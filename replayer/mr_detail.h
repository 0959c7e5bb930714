/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_detail.h - per-page, per-file, per-cgroup and per-VMA results, and the history of
 * chosen pages (docs/replay.md "Detail tables" and "Why was this page evicted",
 * docs/results-schema.md "Detail tables").
 *
 * Detail counting (mr_replay_opts.detail): each machine keeps counters per page id (the
 * trace's pages.id), sized at setup from the trace; the results database gets the
 * tables detail_pages, detail_files, detail_cgroups and detail_vmas asked for, keyed by
 * the trace's own ids so that `ATTACH 'trace.db' AS t` joins them to t.pages, t.files,
 * t.cgroups and t.vmas. Off, it costs one predictable test per counted site.
 *
 * Page history (mr_replay_opts.trace_pages): for at most MR_TRACE_MAX_PAGES pages, each
 * machine logs every insertion, every move of the page in its policy's order (its
 * generation and the lruvec's min_seq/max_seq under mglru, its list under lru) and flag
 * change seen at an event boundary, every eviction with the reclaim that did it, and
 * every free, into arrays of MR_TRACE_MAX_EVENTS entries per page allocated at setup.
 *
 * mr_explain() (explain.c) puts both together for `memreplay explain`: two runs of a
 * results database are replayed again from their runs rows, first to count per page
 * (unless the database has detail_pages: `replay --detail pages`), then with the
 * history of the pages whose outcomes differ most.
 */
#ifndef MR_DETAIL_H
#define MR_DETAIL_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"

struct mr_replay;

/* Which detail tables (mr_replay_opts.detail): a bit each. */
#define MR_DETAIL_FILES 0x1u
#define MR_DETAIL_CGROUPS 0x2u
#define MR_DETAIL_VMAS 0x4u
#define MR_DETAIL_PAGES 0x8u
#define MR_DETAIL_ALL 0xfu

/* "files,cgroups,vmas,pages" (any subset, any order) or "all" into *what. MR_EINVAL
 * naming the word not known and the ones that are. */
int mr_detail_parse(const char *arg, unsigned *what, struct mr_error *err);

/*
 * What happened to one page (or, summed, to a file, cgroup or VMA) in a run. Each is
 * the page's share of the engine counter named: summed over all pages they equal the
 * run's counters exactly (docs/results-schema.md).
 */
struct mr_detail_counts {
	uint32_t faults;          /* pgfault */
	uint32_t majfaults;       /* pgmajfault */
	uint32_t misses;          /* mr_misses: brought into memory */
	uint32_t refaults;        /* mr_refaults: ... after this replay evicted it */
	uint32_t shadow_refaults; /* mr_shadow_refaults: ... and a shadow entry was found */
	uint32_t evictions;       /* mr_evictions */
	uint32_t freed;           /* mr_freed */
	uint32_t pswpin;          /* pswpin */
	uint32_t writebacks;      /* mr_writebacks */
};

/* After mr_replay_run() with MR_DETAIL_* set (or pages traced): run's counters of page
 * into *c. 0; MR_ENOENT when the replay counted no detail or page is not in the trace. */
int mr_replay_page_counts(const struct mr_replay *r, size_t run, uint32_t page,
			  struct mr_detail_counts *c);
/* The trace's page count (pages ids are 0 .. this - 1). */
uint32_t mr_replay_nr_pages(const struct mr_replay *r);

/* ---- page history ---- */

#define MR_TRACE_MAX_PAGES 64
#define MR_TRACE_MAX_EVENTS 4096 /* entries kept per page and run; later ones are counted */

enum mr_page_event_kind {
	MR_PEV_INSERT = 1, /* brought into memory (how: MR_ADD_* bits, mr_policy.h) */
	MR_PEV_MOVE,       /* seen at an event boundary with another place or other flags */
	MR_PEV_EVICT,      /* reclaim freed it */
	MR_PEV_FREE,       /* freed by the trace (munmap, exit, truncate) */
};

/* Who reclaimed (MR_PEV_EVICT). */
enum mr_page_reclaim {
	MR_PRC_MEMCG = 1,  /* a charge over a memcg limit: try_to_free_mem_cgroup_pages() */
	MR_PRC_KSWAPD,     /* node reclaim: balance_pgdat() */
	MR_PRC_DIRECT,     /* node reclaim: try_to_free_pages() */
	MR_PRC_OTHER,      /* outside the engine's reclaim (a script's debugfs command) */
};

struct mr_page_event {
	uint64_t ev;         /* index of the trace event it happened at (0-based) */
	uint64_t t_ns;       /* that event's trace time */
	uint32_t kind;       /* enum mr_page_event_kind */
	uint32_t refs;       /* references to the page since its previous entry */
	uint32_t flags;      /* folio flags after it (MR_PG_*) */
	uint32_t how;        /* INSERT: MR_ADD_* | MR_PEV_REFAULT; EVICT: enum mr_page_reclaim */
	uint16_t mapcount;   /* PTEs mapping it after */
	uint16_t cause;      /* the trace event's kind (MR_EV_*, mr_event.h) */
	int32_t priority;    /* EVICT: the scan's priority (DEF_PRIORITY 12 .. 0), else -1 */
	uint64_t nr_scanned, nr_reclaimed, nr_to_reclaim; /* EVICT: the scan_control then */
	char list[24];       /* mr_folio_where (mr_policy_where.h) after it */
	int32_t gen;
	uint32_t tier_refs;
	uint64_t seq, min_seq, max_seq;
	uint64_t next_use;   /* opt: the reference position of its next use (UINT64_MAX
			      * never), 0 for other policies */
};

#define MR_PEV_REFAULT 0x100u /* INSERT: this replay had evicted the page before */

/* After mr_replay_run() with trace_pages: run's history of page, *n entries (NULL, 0
 * when page was not traced); *dropped: entries beyond MR_TRACE_MAX_EVENTS. Owned by r. */
const struct mr_page_event *mr_replay_page_history(const struct mr_replay *r, size_t run,
						   uint32_t page, size_t *n, uint64_t *dropped);

/* ---- explain: two runs side by side ---- */

struct mr_explain_opts {
	const char *results;      /* results database */
	int64_t runs[2];          /* run ids A, B */
	size_t top;               /* pages to explain when pages is NULL (default 5) */
	const uint32_t *pages;    /* or these page ids (at most MR_TRACE_MAX_PAGES) */
	size_t npages;
	const char *trace;        /* the trace, when not at the runs' path; NULL = theirs */
	const char *tmpdir;       /* next-use files (opt); NULL = /tmp */
	const char *nextuse_cache; /* as mr_replay_opts; NULL = none */
};

struct mr_explain_page {
	uint32_t page;
	int64_t score;            /* (refaults + evictions) under A minus under B */
	struct mr_detail_counts c[2];
	const struct mr_page_event *ev[2];
	size_t nev[2];
	uint64_t dropped[2];
	char what[256];           /* the page's row in the trace: "file 3 (/usr/lib/x) idx 17" */
};

struct mr_explain {
	char spec[2][256];        /* the runs' policy specs */
	uint64_t memory_pages[2];
	char trace[1024];
	struct mr_explain_page *pages;
	size_t npages;
	size_t differing;         /* pages whose counts differ between the runs (0 when
				   * o->pages named them: no ranking pass ran) */
	/* the same by page type (anon, file, shmem): how many, and their refaults +
	 * evictions A minus B summed (where the runs differ, which kind of page) */
	size_t differing_type[3];
	int64_t score_type[3];
	int from_table;           /* the ranking read the database's detail_pages (no
				   * replay to count) */
	struct mr_replay *r[2];   /* the replays holding the histories */
};

/*
 * Replay runs[0] and runs[1] of o->results again and explain the chosen pages. Errors
 * (MR_EINVAL unless said): no such run (naming the runs there), runs of different traces
 * (trace_id), a run that cannot be replayed again (an inline script), a page the trace
 * does not have, the trace missing or changed (its identity differs from the runs'), a
 * replay that does not reproduce the run's counters (MR_ECORRUPT), and the replays'.
 */
int mr_explain(const struct mr_explain_opts *o, struct mr_explain **out, struct mr_error *err);
void mr_explain_free(struct mr_explain *x);

#endif /* MR_DETAIL_H */
