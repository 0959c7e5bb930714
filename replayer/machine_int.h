/* SPDX-License-Identifier: GPL-2.0 */
/*
 * machine_int.h - private to the machine's files: struct rp_machine and the helpers they
 * share. The machine is split by subject:
 *
 *   mm.c       address spaces: PTE tables (a pool), VMAs (mm->mmap, i_mmap), rmap_walk,
 *              walk_mm, mapping and unmapping pages
 *   machine.c  memory in and out: charge and memcg reclaim, swap, writeback, insertion,
 *              freeing and remove_mapping; results; create/destroy
 *   events.c   what each trace event means, and time-driven work (samples, snapshots,
 *              script commands, writeback completion); rp_machine_run/finish
 *
 * State sits where the kernel keeps it (docs/replay.md, "Speed": state per frame). Per page
 * id of the trace, whether in memory or not, struct rp_pg (16 B): the shadow entry (the
 * page-cache slot's value entry) or its frame while resident, the PTE hint, and the flags
 * a page keeps out of memory. Per page frame, only while the page is
 * resident: one 32-byte struct mr_folio record (flags whose high bits hold engine
 * state, E_*; `pte`, a copy of the page's hint for reclaim's rmap walks; the frame's
 * page id; the policy's per-frame state), so a victim is one cache line. Policies
 * and PTEs name frames (as a PTE names a pfn); the engine's own functions take page ids.
 * Frames are taken from a stack of free ones, so the frames in use are the low ones and
 * the memory touched grows with the pages resident at once, not with the trace.
 * Page tables come from a pool of struct mr_pte_table sized from the trace
 * (image.c); tables are indexed by a u32 and a PTE location is (table << 9 | slot).
 *
 *   mm (index) -> sorted array of (2 MiB region key, table index)   PMD entries
 *                 grouped by key >> 9 = PUD                          PUD entries
 *              -> sorted array of live VMA indices                  mm->mmap
 *   file id    -> array of live VMA indices mapping it              i_mmap
 */
#ifndef MR_RP_MACHINE_INT_H
#define MR_RP_MACHINE_INT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_machine.h"
#include "rp_detail.h"

/*
 * Machines of more pages than this prefetch each event's state some events ahead
 * (events.c); smaller ones keep their pages' records (16 B each, 256 KiB here), tables
 * and frames in L2 across a batch, where the prefetches only cost. Measured on
 * mmaprand.db's sampled 16-size curve (about 4100 pages a machine): 0.75 of the time
 * without them; a sampled machine of the bench's 10M-event Zipf trace (49000 pages) is
 * 1.04 times slower without them (docs/replay.md, "Speed").
 */
#define RP_PREFETCH_PAGES 16384

#define TSHIFT 10
#define TPER (1u << TSHIFT) /* tables per slab */
#define MAX_TABLES (1u << 23)
#define LOC(ti, s) (((ti) << 9) | (s))
#define LOC_TABLE(l) ((uint32_t)(l) >> 9)
#define LOC_SLOT(l) ((uint32_t)(l) & 511u)
#define MAX_RECLAIM_RETRIES 16
#define RA_RANGES 8
#define WB_BATCHES 1024
#define UNLIMITED UINT64_MAX
#define RP_MAX_NOTES 8 /* toggle_idle notes kept per run */
/* Segments of a run (docs/results-schema.md, "segments"): the trace's events in this
 * many equal parts (fewer when it has fewer events), the counters snapshotted at each
 * boundary, for compare's block bootstrap. 64 gives a block length of 4 (64^(1/3)) and
 * 61 distinct blocks; the cost is 64 copies of the counters per run. */
#define RP_SEGMENTS 64

/* Engine state per page, in the engine-private high bits of mr_folio.flags (policies own
 * only the reclaim flags). */
#define E_SHADOW (1u << 24)    /* slot[] holds a shadow */
#define E_SWAP (1u << 25)      /* owns a swap slot: swap cache while resident, swapped out else */
#define E_SWAPVALID (1u << 26) /* the slot holds the page's current content */
#define E_EVICTED (1u << 27)   /* evicted by reclaim since it last entered memory freshly */
#define E_HINT (1u << 28)      /* while mapped: rp_pg.pte names a live PTE of this folio (set
				* when a PTE is installed, dropped when any PTE of it is zapped);
				* kept in rp_pg.flags */
/* entered memory through a mapping with recency by a read fault or the readahead of
 * one, and the trace has shown no touch of it since: reads of it while resident would
 * be invisible to a trace without a read source (young scans, hardware samples), so a
 * refault of such a page counts in mr_unseen_refaults (docs/replay.md, "Coverage") */
#define E_UNSEEN (1u << 29) /* kept in rp_pg.flags */
#define E_FLUSHQ (1u << 30)    /* dirty file folio on the flusher's queue (rp_file_dirtied) */
#define E_KEEP (MR_PG_SWAPBACKED | MR_PG_EXEC) /* what a folio keeps out of memory */
/* what an evicted page keeps of its folio's flags in its rp_pg (remove_mapping()) */
#define E_OUT (E_KEEP | E_SWAP | E_SWAPVALID | E_EVICTED | E_SHADOW)
/* rp_pg.flags bits 14-15: the page's type (RP_ANON, RP_FILE, RP_SHMEM), fixed by its
 * trace row; no MR_PG_* or E_* bit uses them */
#define PG_TYPE_SHIFT 14
#define PG_TYPE_MASK (3u << PG_TYPE_SHIFT)

/* Per page id (see the top of this file). An access to a mapped page needs only this and
 * its PTE, as the hardware needs only the PTE: the folio is not touched. */
struct rp_pg {
	union {
		uint64_t shadow; /* out of memory: the shadow entry while E_SHADOW */
		uint32_t frame;  /* in memory: its frame */
	};
	uint32_t pte;   /* PTE location (table << 9 | slot): in memory, one mapping it (a
			 * live one while E_HINT); out, the one it had last (a hint to the
			 * table of its next fault) */
	uint32_t flags; /* in memory: MR_PG_RESIDENT (the folio has the rest); out, the
			 * E_OUT bits; always the type (PG_TYPE_MASK), E_HINT and E_UNSEEN */
};

#define RP_CTR_LIST(X)                                                                   \
	X(EVENTS, "mr_events") X(ACCESSES, "mr_accesses") X(FD_PAGES, "mr_fd_access_pages") \
	X(REFS, "mr_references")                                                         \
	X(MISSES, "mr_misses") X(FIRST, "mr_first_touch") X(REFAULTS, "mr_refaults")     \
	X(SHADOW_REFAULTS, "mr_shadow_refaults") X(RA_PAGES, "mr_readahead_pages")       \
	X(UNSEEN_REFAULTS, "mr_unseen_refaults")                                         \
	X(EVICTIONS, "mr_evictions") X(EVICT_ANON, "mr_evict_anon")                      \
	X(EVICT_FILE, "mr_evict_file") X(WRITEBACKS, "mr_writebacks")                    \
	X(WB_ROTATE, "mr_writeback_rotations") X(RECLAIMS, "mr_reclaims")                \
	X(FLUSHER_WRITEBACKS, "mr_flusher_writebacks")                                   \
	X(FLUSHER_BACKGROUND, "mr_flusher_background")                                   \
	X(FLUSHER_PERIODIC, "mr_flusher_periodic") X(FLUSHER_WAKEUPS, "mr_flusher_wakeups") \
	X(FILE_DIRTIED, "mr_file_dirtied")                                               \
	X(OOM, "mr_oom") X(FREED, "mr_freed") X(UNMAPS, "mr_unmaps")                      \
	X(MM_EXITS, "mr_mm_exits") X(UNMAPPED_ACCESS, "mr_access_unmapped")              \
	X(FAULT_AROUND, "mr_fault_around")                                               \
	X(BAD, "mr_bad_events") X(SWAP_UNWRITTEN, "mr_swap_unwritten")                    \
	X(TABLES_MAX, "mr_pte_tables_max") X(TABLE_GROW, "mr_pte_pool_grow")             \
	X(SCRIPT_CMDS, "mr_script_commands") X(SCRIPT_ERRORS, "mr_script_errors")        \
	X(CHECK, "mr_check_problems") X(USAGE_MAX, "mr_usage_max")                       \
	X(SWAP_MAX, "mr_swap_max") X(RESIDENT, "mr_resident")                            \
	X(RESIDENT_ANON, "mr_resident_anon") X(RESIDENT_FILE, "mr_resident_file")       \
	X(SWAP_USED, "mr_swap_used") X(MARKERS, "mr_markers")                            \
	X(H_FAULT, "host_pgfault") X(H_MAJFAULT, "host_pgmajfault")                      \
	X(H_PC_DELETE, "host_pc_delete") X(H_REFAULT, "host_refault")                    \
	X(H_REFAULT_FILE, "host_refault_file") X(H_SWAP_IN, "host_pswpin")               \
	X(H_SWAP_OUT, "host_pswpout") X(H_ACTIVATE, "host_pgactivate")                   \
	X(H_LOST, "host_lost_events") X(H_SCANS, "host_young_scans")                   \
	X(H_WS_REFAULT, "host_workingset_refault")                                       \
	X(H_WS_REFAULT_FILE, "host_workingset_refault_file")                             \
	X(H_WS_REFAULT_ANON, "host_workingset_refault_anon")                             \
	X(H_WS_RESTORE, "host_workingset_restore")                                       \
	X(H_WS_RESTORE_FILE, "host_workingset_restore_file")                             \
	X(H_WS_RESTORE_ANON, "host_workingset_restore_anon")                             \
	X(H_WS_ACTIVATE, "host_workingset_activate")                                     \
	X(H_WS_ACTIVATE_FILE, "host_workingset_activate_file")                           \
	X(H_WS_ACTIVATE_ANON, "host_workingset_activate_anon")                           \
	X(NODE_PAGES, "mr_node_pages") X(WMARK_MIN, "mr_wmark_min")                      \
	X(WMARK_LOW, "mr_wmark_low") X(WMARK_HIGH, "mr_wmark_high")                      \
	X(KSWAPD_WAKEUPS, "mr_kswapd_wakeups") X(KSWAPD_RUNS, "mr_kswapd_runs")          \
	X(KSWAPD_FAILED, "mr_kswapd_failed") X(DIRECT_RECLAIMS, "mr_direct_reclaims")

enum {
#define RP_CTR_ENUM(id, name) C_##id,
	RP_CTR_LIST(RP_CTR_ENUM)
#undef RP_CTR_ENUM
	NR_CTR
};

extern const char *const rp_ctr_names[NR_CTR];

/* A segment boundary snapshots every vmstat item, then every engine counter (one copy
 * of each array); the results keep those that count events (rp_seg_counts()). */
#define NR_SEG_CTR (MR_NR_VMSTAT + NR_CTR)

/* Time series columns after the vmstat items. */
#define TS_NENGINE 6
extern const unsigned rp_ts_engine[TS_NENGINE];

struct rp_tkey {
	uint64_t key;   /* virtual address >> 21 */
	uint32_t table;
	uint32_t pad;
};

struct rp_mmx {
	uint32_t *live; /* live VMA indices sorted by start */
	uint32_t nlive, caplive;
	struct rp_tkey *tbl;
	uint32_t ntbl, captbl;
	uint32_t tasks_left;
	uint8_t dead;
};

struct rp_flist {
	uint32_t *live;
	uint32_t n, cap;
};

struct rp_memcg {
	uint64_t usage, limit, usage_max, oom;
	uint64_t dirty; /* its file folios on the flusher's queue (E_FLUSHQ) */
};

/* One NUMA node's memory under node reclaim (--reclaim node). */
struct rp_node {
	uint64_t managed;         /* pages of memory (zone_managed_pages, one zone) */
	uint64_t used;            /* pages allocated on it */
	uint64_t wmark_min, wmark_low, wmark_high;
	uint64_t oom;             /* allocations that went below min after direct reclaim */
	uint64_t wake_ns;         /* trace time of the wakeup while kswapd_pending */
	uint32_t kswapd_failures; /* pgdat->kswapd_failures */
	uint32_t rr;              /* direct reclaim's memcg cursor (reclaim cookie) */
	uint8_t kswapd_pending;
};

struct wb_batch {
	uint64_t due, end; /* entries [previous end, end) of the ring */
};

struct rp_machine {
	struct mr_machine m; /* what policies see; first */
	/* a sampled replay's 1 in N (0 = in full), and its memcg reclaim calls and the
	 * folios they freed, whose mean sets the batch slack (machine.c, charge()) */
	uint32_t sample_den;
	uint64_t charge_reclaims, charge_freed;
	uint64_t cow_unmaps; /* sampled file pages unmapped for unsampled copies (rp_cow_break()) */
	/* --vary: after a page-table walk the walked task is switched back in with
	 * probability vary_p (mm.c, rp_walk_mm()); the draws come from vary_rng, seeded by
	 * the run's variation seed (0 = off) */
	uint64_t vary_rng, vary_thresh;
	uint32_t vary_seed;
	struct mr_machine_ops mops;
	const struct rp_image *t;
	const struct mr_policy_ops *ops;
	struct mr_policy *pol;
	struct mr_error err;
	int failed;

	struct rp_pg *pg;        /* [nr_pages of the trace] */
	uint32_t *free_frames;   /* stack of freed frames, taken first */
	uint32_t nfree_frames;
	uint32_t frames_used;    /* frames [0, frames_used) have been used */

	const struct rp_image_vma *vmas; /* the image's (t->vmas), shared by the pass */
	uint8_t *vma_live;         /* [nr_vmas]: mapped now in this machine */
	struct rp_mmx *mmx;
	struct rp_flist *imap;
	uint32_t *arena;        /* live lists */
	uint8_t *task_exited;
	uint64_t all_nodes;

	struct mr_pte_table **slabs; /* [0, initial_slabs) in slab_block, then malloc'd */
	struct mr_pte_table *slab_block;
	uint32_t nslabs, capslabs, ntables, live_tables, initial_slabs;
	/* Per table: its mm, and a pending pmd_young bit. The access path sets the bit here
	 * (a small, cache-resident array) instead of touching the table's header line;
	 * pmd_sync() folds it into pt->pmd_young before a policy can look (rp_walk_mm,
	 * rp_rmap_walk). Both sized capslabs * TPER. */
	uint32_t *tbl_mm;   /* per table: its mm, 0 while the table is free */
	uint64_t *tbl_addr; /* per table: virtual address of entry 0 (rmap without the header) */
	uint32_t *tbl_vma;  /* per table: the VMA found there last (a guess, checked on use) */
	uint64_t *pmdy;
	uint32_t *freelist;
	uint32_t nfree, capfree;

	struct rp_memcg *memcg; /* [nr_memcgs] */
	uint64_t global_limit, total_usage, global_oom;
	int hier;               /* a parent limit over several memcgs */
	uint32_t rr;            /* next memcg to reclaim first under the parent limit */
	struct rp_node *node;   /* [nr_nodes] under node reclaim, else NULL */
	int kswapd_pending;     /* some node's kswapd is woken and has not run yet */
	uint64_t swap_total;    /* UNLIMITED or pages */
	uint64_t swap_used;

	/* writeback */
	uint32_t *wb_ring;
	/* pages under writeback, oldest first, at wb_ring[i % wb_cap] for i in [wb_head,
	 * wb_tail); wb_cap doubles up to wb_max inside the reservation (fifo_grow()) */
	uint64_t wb_cap, wb_max, wb_head, wb_tail;
	struct wb_batch wbb[WB_BATCHES];
	uint64_t wbb_head, wbb_tail;
	uint64_t wb_delay;
	int in_reclaim;
	/* the flusher (machine.c, "the flusher"): dirty file folios in the order they were
	 * dirtied, each once while E_FLUSHQ (entries of folios freed meanwhile stay, stale);
	 * a ring of flushq_cap entries with the time each was queued (ms of trace time) */
	struct rp_flushq_ent {
		uint32_t page, ms;
	} *flushq;
	uint64_t flushq_head, flushq_tail, flushq_cap, flushq_max; /* as wb_ring's */
	int flush_wake;          /* reclaim met a dirty file folio: wake the flusher at its end */
	uint64_t next_kupdate;   /* the next periodic writeback (wb_workfn's kupdate), ns */

	/* shadow entries after they are stored (shadow.c) */
	int shadow_mode;           /* enum rp_shadow_mode */
	uint32_t fault_around;     /* pages of do_fault_around()'s window, <= 1 = off */
	/* prefetch the state of events ahead (events.c, rp_machine_run()): only where the
	 * per-page state outgrows the caches (RP_PREFETCH_PAGES) */
	int prefetch;
	uint32_t *lruvec_pages;  /* [nr_lruvecs]: mr_machine.lruvec_pages */
	/* which slots of the direct maps of files (rp_image.fmap) hold a page in the
	 * page cache: a fault-around window's neighbours are neighbouring bits */
	uint64_t *fa_resident;
	struct rp_shadow *shadow;  /* RP_SHADOW_KERNEL: the xarray nodes */

	/* this task's in-fault insertions since its last ACCESS: the major fault's I/O */
	uint32_t ra_task, ra_n;
	uint32_t ra_first[RA_RANGES], ra_len[RA_RANGES];

	uint64_t c[NR_CTR];
	uint64_t vmstat[MR_NR_VMSTAT];
	uint64_t *lruvec_stat;

	/* time-driven work */
	uint64_t next_due;
	uint64_t interval, next_sample;
	uint64_t snap_every, next_snap;
	const struct rp_script *script;
	size_t next_cmd;        /* next timed command */
	int check;                 /* 1: after every reclaim; 2: sampled (debug builds) */

	/* results */
	const char **ts_names;
	char (*ts_memcg_names)[48];
	size_t ts_nnames, ts_cap, ts_n;
	uint64_t *ts_t, *ts_val;
	uint64_t ts_cut;        /* time of the first sample with no room (script past the
				 * trace's end), 0 = none; sampling stops there */
	struct mr_result_snapshot *snaps;
	size_t nsnaps, capsnaps;
	struct mr_result_script_log *log;
	size_t nlog, caplog;
	char *showbuf;
	size_t showcap;
	struct mr_result_model_counter *model;
	size_t nmodel, capmodel;
	/* toggle_idle notes (ops->idle_params at the end of the run) */
	struct mr_result_note notes[RP_MAX_NOTES];
	char note_text[RP_MAX_NOTES][320];
	size_t nnotes;
	struct mr_result_counter *counters;
	size_t ncounters;
	/* segments: seg[nsegs] bounds; seg_cum[nsegs][NR_SEG_CTR], the segment counters
	 * (seg_idx) at the end of each; seg_done segments closed, the open one ends
	 * before event index seg_next */
	struct mr_result_segment *seg;
	uint64_t *seg_cum;
	const char **seg_names; /* the counted ones, for the results */
	uint64_t *seg_out;      /* [nsegs][nseg_names], for the results */
	size_t nseg_names;
	uint32_t nsegs, seg_done;
	uint64_t seg_next;
	uint64_t last_time;
	double wall_s;
	char canon[256];
	/* --detail counters and traced pages' history (detail.c), NULL when off; trace is
	 * detail when some page is traced, else NULL */
	struct rp_detail *detail, *trace;
};

static inline struct rp_machine *to_rp(struct mr_machine *m)
{
	return (struct rp_machine *)m;
}

static inline struct mr_pte_table *tbl(const struct rp_machine *mach, uint32_t i)
{
	return &mach->slabs[i >> TSHIFT][i & (TPER - 1)];
}

static inline void pmd_mark(struct rp_machine *mach, uint32_t ti)
{
	mach->pmdy[ti >> 6] |= 1ull << (ti & 63);
}

/* Fold the pending non-leaf young bit of table ti into its PMD entry. */
static inline struct mr_pte_table *pmd_sync(struct rp_machine *mach, uint32_t ti)
{
	struct mr_pte_table *pt = tbl(mach, ti);
	uint64_t bit = 1ull << (ti & 63);

	if (mach->pmdy[ti >> 6] & bit) {
		mach->pmdy[ti >> 6] &= ~bit;
		pt->pmd_young = 1;
	}
	return pt;
}

static inline int rp_resident(const struct rp_machine *mach, uint32_t page)
{
	return (mach->pg[page].flags & MR_PG_RESIDENT) != 0;
}

/* The frame of a resident page, which is what policies and PTEs name. */
static inline uint32_t rp_frame(const struct rp_machine *mach, uint32_t page)
{
	return mach->pg[page].frame;
}

/* The folio of a resident page. */
static inline struct mr_folio *rp_folio(const struct rp_machine *mach, uint32_t page)
{
	return &mach->m.folios[mach->pg[page].frame];
}

/* The page id in a frame in use (a policy's folio, a PTE's entry). */
static inline uint32_t rp_page(const struct rp_machine *mach, uint32_t frame)
{
	return mach->m.folios[frame].page;
}

/* The flags of a page in memory or not: the folio's, or what rp_pg keeps. */
static inline uint32_t rp_pflags(const struct rp_machine *mach, uint32_t page)
{
	const struct rp_pg *g = &mach->pg[page];

	return (g->flags & MR_PG_RESIDENT) ? mach->m.folios[g->frame].flags | (g->flags & (E_HINT | E_UNSEEN))
					   : g->flags & ~PG_TYPE_MASK;
}

static inline unsigned ptype(const struct rp_machine *mach, uint32_t page)
{
	return (mach->pg[page].flags & PG_TYPE_MASK) >> PG_TYPE_SHIFT;
}

/* The lruvec a page is charged to: its trace row's (memcg, node), as the folio has. */
static inline uint32_t page_lruvec(const struct rp_machine *mach, uint32_t page)
{
	const struct rp_page *rp = &mach->t->pages[page];

	return rp_resident(mach, page) ? rp_folio(mach, page)->lruvec
				       : (uint16_t)(rp->memcg * mach->m.nr_nodes + rp->node);
}

/* count() for a resident page */
static inline void count(struct rp_machine *mach, uint32_t page, unsigned item)
{
	mr_count(&mach->m, rp_folio(mach, page)->lruvec, item, 1);
}

static inline void fail(struct rp_machine *mach, int code, const char *what)
{
	if (!mach->failed)
		mr_error_set(&mach->err, code, "replay of %s: %s", mach->canon, what);
	mach->failed = code;
}

/* The first of mm's tables at or above key: a search without branches on the data
 * (the comparison selects the half by a conditional move), as the keys a random fault
 * asks for are unpredictable and a mispredicted halving costs more than the load. */
static inline uint32_t tkey_lower(const struct rp_mmx *mx, uint64_t key)
{
	const struct rp_tkey *b = mx->tbl;
	uint32_t n = mx->ntbl;

	if (!n)
		return 0;
	while (n > 1) {
		uint32_t half = n / 2;

		b = b[half].key < key ? b + half : b;
		n -= half;
	}
	return (uint32_t)(b - mx->tbl) + (b->key < key);
}

static inline uint32_t table_find(const struct rp_machine *mach, uint32_t mm, uint64_t key)
{
	const struct rp_mmx *mx = &mach->mmx[mm];
	uint32_t pos = tkey_lower(mx, key);

	return pos < mx->ntbl && mx->tbl[pos].key == key ? mx->tbl[pos].table : MR_NONE;
}

/* Did this task's current fault read page in (in-fault readahead since its last ACCESS)? */
static inline int rp_ra_major(const struct rp_machine *mach, uint32_t page, uint32_t task)
{
	if (mach->ra_task != task)
		return 0;
	for (uint32_t i = 0; i < mach->ra_n; i++)
		if (page - mach->ra_first[i] < mach->ra_len[i])
			return 1;
	return 0;
}

/* The slot of index key of file in the file's direct map (rp_image.fmap), UINT64_MAX =
 * none: a page the image may not hold (a sampled replay's unsampled fault) too. */
static inline uint64_t fmap_slot(const struct rp_image *t, uint32_t file, uint64_t key)
{
	uint64_t b;

	if (file >= t->nr_files || (b = t->fmap_base[file]) == UINT64_MAX ||
	    key - t->fmap_kmin[file] >= t->fmap_span[file])
		return UINT64_MAX;
	return b + key - t->fmap_kmin[file];
}

/* The page's slot in the direct map of its file, UINT64_MAX = none. */
static inline uint64_t fa_slot(const struct rp_image *t, uint32_t page)
{
	const struct rp_page *rp = &t->pages[page];

	return rp_page_type(rp) == RP_FILE ? fmap_slot(t, rp->owner, rp->key) : UINT64_MAX;
}

static inline void fa_resident_set(struct rp_machine *mach, uint32_t page, int on)
{
	uint64_t s = fa_slot(mach->t, page);

	if (s == UINT64_MAX)
		return;
	if (on)
		mach->fa_resident[s >> 6] |= 1ull << (s & 63);
	else
		mach->fa_resident[s >> 6] &= ~(1ull << (s & 63));
}

static inline uint64_t vma_pages(const struct mr_vma *v)
{
	return (v->end - v->start) >> 12;
}

static inline void use_mm(struct rp_machine *mach, uint32_t mm)
{
	if (mm && !mach->mmx[mm].dead) {
		mach->m.mms[mm].lru_gen_bitmap = mach->all_nodes;
		mach->m.mms[mm].alive = 1;
	}
}

static inline uint32_t task_mm(const struct rp_machine *mach, uint32_t task)
{
	return task < mach->t->nr_tasks ? mach->t->task_mm[task] : 0;
}

static inline void notify_access(struct rp_machine *mach, uint32_t page, const uint64_t *nu)
{
	if (nu && mach->ops->access)
		mach->ops->access(mach->pol, rp_frame(mach, page), *nu);
}

/* A detail hook (rp_detail.h): one test of a pointer that is NULL unless asked for. */
#define DETAIL(mach, call)                                       \
	do {                                                     \
		if (__builtin_expect((mach)->detail != NULL, 0)) \
			call;                                    \
	} while (0)

/* ---- mm.c: page tables, VMAs, rmap ---- */

uint32_t rp_table_get(struct rp_machine *mach, uint32_t mm, uint64_t key);
void rp_table_free(struct rp_machine *mach, uint32_t i);
uint32_t rp_vma_at(const struct rp_machine *mach, uint32_t mm, uint64_t addr);
uint32_t rp_vma_for_page(struct rp_machine *mach, uint32_t page, uint32_t mm, uint64_t *addr);
void rp_vma_activate(struct rp_machine *mach, uint32_t vi);
void rp_vma_unmap(struct rp_machine *mach, uint32_t vi, int explicit);
void rp_zap_pte(struct rp_machine *mach, const struct mr_vma *vma, struct mr_pte_table *pt,
		unsigned s, int explicit);
void rp_install_pte(struct rp_machine *mach, uint32_t page, uint32_t mm, uint64_t addr, int write);
void rp_cow_break(struct rp_machine *mach, uint32_t mm, uint64_t vpn);
void rp_fault_around(struct rp_machine *mach, uint32_t vi, uint32_t mm, uint64_t addr, uint32_t page,
		     uint32_t task);
void rp_fault_around_unsampled(struct rp_machine *mach, uint32_t task, uint32_t file, uint64_t key);
void rp_unmap_all(struct rp_machine *mach, uint32_t page);
void rp_anon_range(const struct rp_image *t, uint32_t mm, uint64_t start, uint64_t end,
		   uint64_t *lo_out, uint64_t *hi_out);
int rp_rmap_walk(struct mr_machine *m, uint32_t page,
		 int (*fn)(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt, unsigned slot),
		 void *arg);
void rp_walk_mm(struct mr_machine *m, uint32_t mm, const struct mr_walk_ops *ops, void *arg);
void rp_prefetch_folio(struct mr_machine *m, uint32_t page);

/* ---- shadow.c: what becomes of shadow entries (--shadow) ---- */

int rp_shadow_create(struct rp_machine *mach, struct mr_error *err);
void rp_shadow_destroy(struct rp_machine *mach);
/* An evicted folio's shadow: 1 to store it (E_SHADOW), 0 when none is kept. */
int rp_shadow_store(struct rp_machine *mach, uint32_t page);
/* The page is resident again; had_shadow: its shadow was consumed. */
void rp_shadow_page_in(struct rp_machine *mach, uint32_t page, int had_shadow);
/* The page leaves for good (freed, truncated): its folio and shadow entries go. */
void rp_shadow_page_gone(struct rp_machine *mach, uint32_t page, int was_resident,
			 int had_shadow);
/* After a reclaim invocation: the shadow-node shrinker. */
void rp_shadow_shrink(struct rp_machine *mach);

/* ---- machine.c: memory in and out, reclaim ---- */

void rp_folio_free(struct rp_machine *mach, uint32_t page);
/* the flusher (machine.c): a write dirtied file folio page; the periodic writeback */
void rp_file_dirtied(struct rp_machine *mach, uint32_t page);
void rp_flusher_periodic(struct rp_machine *mach, uint64_t now);
void rp_insert_page(struct rp_machine *mach, uint32_t page, unsigned ctx, int write);
void rp_wb_complete_all(struct rp_machine *mach);
void rp_wb_complete_until(struct rp_machine *mach, uint64_t t);

/* ---- events.c ---- */

void rp_set_next_due(struct rp_machine *mach);

#endif /* MR_RP_MACHINE_INT_H */
